// facts-eval families: where someone lives, works, as what, what they like and prefer.

import type { Family } from './pools.js';
import { A, art, B, C, D, F, G, her, J, K, LIKES, LIVES, ROLE, SEAT, WORKS } from './say.js';

export const HOME_AND_WORK: Family[] = [
  // Where someone lives.
  {
    kind: 'residence',
    case: 'update',
    label: 'supersedes',
    old: LIVES,
    new: [
      (p, v) => `${p.S} moved to ${B(v)}.`,
      (p, v) => `${p.S} just relocated to ${B(v)} for work.`,
      (p, v) => `${p.S} moved from ${A(v)} to ${B(v)} last month.`,
      (p, v) => `${p.S} live${p.s} in ${B(v)} now.`,
      (p, v) => `${p.S} ${p.have} moved to ${B(v)}, closer to family.`,
      (p, v) => `${p.S} ${p.be} now living in ${B(v)}.`,
      (p, v) =>
        `${p.S} no longer live${p.s} in ${A(v)}.`.replace('no longer lives', 'no longer lives'),
      (p, v) => `${p.S} finally moved back to ${B(v)} in March.`,
      (p, v) => `${p.S} ${p.have} been living in ${B(v)} since the spring.`,
    ],
  },
  {
    kind: 'residence',
    case: 'restatement',
    label: 'none',
    old: LIVES,
    new: [
      (p, v) => `${p.S} still live${p.s} in ${A(v)}.`,
      (p, v) => `${p.S} live${p.s} in ${A(v)}, near the river.`,
      (p, v) => `${p.S} ${p.be} based in ${A(v)}.`,
      (p, v) => `${p.S} ${p.have} lived in ${A(v)} since 2019.`,
    ],
  },
  {
    kind: 'residence',
    case: 'near-miss',
    label: 'none',
    old: LIVES,
    new: [
      (p, v) => `${p.S} might move to ${B(v)} next year.`,
      (p, v) => `${p.S} ${p.be} thinking about moving to ${B(v)}.`,
      (p, v) => `Does ${p.S === 'I' ? 'the user' : p.S} still live in ${A(v)}?`,
      (p, v) => `${p.S} used to live in ${B(v)}.`,
      (p, v) => `${p.S} grew up in ${B(v)}.`,
      (_p, v) => `${v.other} moved to ${B(v)}.`,
      (p, v) => `${p.S} would love to live in ${B(v)} someday.`,
      (p, v) => `${p.S} lived in ${B(v)} as a student.`,
      (p, v) => `${p.S} ${p.be} moving to ${B(v)} if the job offer comes through.`,
      (p, v) => `${p.S} visited ${B(v)} last summer.`,
    ],
  },
  {
    kind: 'residence',
    case: 'conflict',
    label: 'conflicts',
    old: LIVES,
    new: [
      (p, v) => `${p.S} live${p.s} in ${B(v)}.`,
      (p, v) => `${p.S} ${p.be} based in ${B(v)}.`,
      (p, v) => `${p.S} ${p.does === 'do' ? "don't" : "doesn't"} live in ${A(v)}.`,
    ],
  },
  {
    kind: 'residence',
    case: 'older',
    label: 'conflicts',
    old: LIVES,
    days: -40,
    new: [(p, v) => `${p.S} moved to ${B(v)}.`, (p, v) => `${p.S} live${p.s} in ${B(v)} now.`],
  },
  {
    kind: 'residence',
    case: 'partial',
    label: 'conflicts',
    old: [(p, v) => `${p.S} live${p.s} in ${A(v)} and work${p.s} at ${C(v)}.`],
    new: [(p, v) => `${p.S} moved to ${B(v)}.`],
  },
  // Where someone works.
  {
    kind: 'employer',
    case: 'update',
    label: 'supersedes',
    old: WORKS,
    new: [
      (p, v) => `${p.S} joined ${D(v)} in January.`.replace('joined the', 'joined The'),
      (p, v) => `${p.S} started a new job at ${D(v)}.`,
      (p, v) => `${p.S} quit ${her(p)} job at ${C(v)}.`,
      (p, v) => `${p.S} left ${C(v)}.`.replace('left the', 'left the'),
      (p, v) => `${p.S} no longer work${p.s} at ${C(v)}.`,
      (p, v) => `${p.S} work${p.s} at ${D(v)} now.`,
      (p, v) => `${p.S} got a job at ${D(v)}.`,
      (p, v) => `${p.S} was laid off from ${C(v)}.`,
      (p, v) => `${p.S} ${p.have} a new job at ${D(v)}.`,
    ],
  },
  {
    kind: 'employer',
    case: 'restatement',
    label: 'none',
    old: WORKS,
    new: [
      (p, v) => `${p.S} still work${p.s} at ${C(v)}.`,
      (p, v) => `${p.S} work${p.s} for ${C(v)}.`,
      (p, v) => `${p.S} ${p.have} worked at ${C(v)} for three years.`,
    ],
  },
  {
    kind: 'employer',
    case: 'near-miss',
    label: 'none',
    old: WORKS,
    new: [
      (p, v) => `${p.S} ${p.be} hoping to join ${D(v)}.`,
      (p, v) => `${p.S} used to work at ${D(v)}.`,
      (p, v) => `${p.S} worked at ${D(v)} during college.`,
      (p, v) => `${p.S} applied to ${D(v)}.`,
      (_p, v) => `${v.other} works at ${D(v)}.`,
      (p, v) => `${p.S} might leave ${C(v)} next year.`,
      (p, v) => `${p.S} had an interview at ${D(v)}.`,
    ],
  },
  {
    kind: 'employer',
    case: 'conflict',
    label: 'conflicts',
    old: WORKS,
    new: [
      (p, v) => `${p.S} work${p.s} at ${D(v)}.`,
      (p, v) => `${p.S} ${p.be} employed by ${D(v)}.`,
    ],
  },
  // As what.
  {
    kind: 'role',
    case: 'update',
    label: 'supersedes',
    old: ROLE,
    new: [
      (p, v) => `${p.S} became ${art(K(v))}.`,
      (p, v) => `${p.S} work${p.s} as ${art(K(v))} now.`,
      (p, v) => `${p.S} ${p.be} now ${art(K(v))}.`,
      (p, v) => `${p.S} got promoted to senior ${J(v)}.`,
      (p, v) => `${p.S} recently became ${art(K(v))}.`,
    ],
  },
  {
    kind: 'role',
    case: 'restatement',
    label: 'none',
    old: ROLE,
    new: [
      (p, v) => `${p.S} work${p.s} as ${art(J(v))}.`,
      (p, v) => `${p.S} ${p.be} still ${art(J(v))}.`,
    ],
  },
  {
    kind: 'role',
    case: 'near-miss',
    label: 'none',
    old: ROLE,
    new: [
      (p, v) => `${p.S} want${p.s} to become ${art(K(v))}.`,
      (p, v) => `${p.S} ${p.be} studying to be ${art(K(v))}.`,
      (_p, v) => `${v.other} is ${art(K(v))}.`,
      (p, v) => `${p.S} ${p.be} a big fan of ${G(v)}.`,
    ],
  },
  {
    kind: 'role',
    case: 'conflict',
    label: 'conflicts',
    old: ROLE,
    new: [(p, v) => `${p.S} ${p.be} ${art(K(v))}.`, (p, v) => `${p.S} work${p.s} as ${art(K(v))}.`],
  },
  // Likes.
  {
    kind: 'likes',
    case: 'update',
    label: 'supersedes',
    old: LIKES,
    new: [
      (p, v) => `${p.S} ${p.does === 'do' ? "don't" : "doesn't"} like ${F(v)} anymore.`,
      (p, v) => `${p.S} stopped liking ${F(v)}.`,
      (p, v) => `${p.S} gave up ${F(v)}.`,
      (p, v) => `${p.S} ${p.be} no longer into ${F(v)}.`,
      (p, v) => `${p.S} switched from ${F(v)} to ${G(v)}.`,
      (p, v) => `${p.S} got tired of ${F(v)}.`,
    ],
  },
  {
    kind: 'likes',
    case: 'restatement',
    label: 'none',
    old: LIKES,
    new: [(p, v) => `${p.S} really love${p.s} ${F(v)}.`, (p, v) => `${p.S} ${p.be} into ${F(v)}.`],
  },
  {
    kind: 'likes',
    case: 'unrelated',
    label: 'none',
    old: LIKES,
    new: [
      (p, v) => `${p.S} love${p.s} ${G(v)} too.`,
      (p, v) => `${p.S} also enjoy${p.s} ${G(v)}.`,
      (p, v) => `${p.S} work${p.s} at ${D(v)}.`,
      (p, v) => `${p.S} live${p.s} in ${B(v)}.`,
    ],
  },
  {
    kind: 'likes',
    case: 'near-miss',
    label: 'none',
    old: LIKES,
    new: [
      (p, v) => `${p.S} used to love ${G(v)}.`,
      (p, v) => `Does ${p.S === 'I' ? 'the user' : p.S} like ${F(v)}?`,
      (_p, v) => `${v.other} hates ${F(v)}.`,
      (p, v) => `${p.S} might try ${G(v)}.`,
    ],
  },
  {
    kind: 'likes',
    case: 'conflict',
    label: 'conflicts',
    old: LIKES,
    new: [
      (p, v) => `${p.S} hate${p.s} ${F(v)}.`,
      (p, v) => `${p.S} ${p.does === 'do' ? "don't" : "doesn't"} like ${F(v)}.`,
    ],
  },
  // Preferences of one slot.
  {
    kind: 'prefers',
    case: 'update',
    label: 'supersedes',
    old: SEAT,
    new: [
      (p) => `${p.S} prefer${p.s} the aisle seat now.`,
      (p) => `${p.S} now prefer${p.s} the aisle seat.`,
    ],
  },
  {
    kind: 'prefers',
    case: 'update-other-slot',
    label: 'supersedes',
    old: [(p, v) => `${p.S} prefer${p.s} ${F(v)}.`],
    new: [(p, v) => `${p.S} prefer${p.s} ${G(v)} now.`],
  },
];
