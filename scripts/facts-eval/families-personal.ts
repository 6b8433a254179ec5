// facts-eval families: favourites, numbers, names, dates, relationships, counts, ages, diet, car.

import type { Family } from './pools.js';
import {
  AGE,
  APPOINTMENT,
  CAR,
  DATING,
  DIET,
  EMAIL,
  FAV,
  KIDS,
  kids,
  MARRIED,
  NUMBER_WORDS,
  PET,
  PHONE,
} from './say.js';

export const PERSONAL: Family[] = [
  // Favourites, names, numbers.
  {
    kind: 'favourite',
    case: 'update',
    label: 'supersedes',
    old: FAV,
    new: [
      (p, v) => `${p.Poss} favourite colour is now ${v.colour[1]}.`,
      (p, v) =>
        `${v.colour[1][0]?.toUpperCase()}${v.colour[1].slice(1)} is ${p.poss} new favourite colour.`,
      (p, v) => `${p.Poss} favorite color changed to ${v.colour[1]}.`,
    ],
  },
  {
    kind: 'favourite',
    case: 'restatement',
    label: 'none',
    old: FAV,
    new: [(p, v) => `${p.Poss} favorite color is ${v.colour[0]}.`],
  },
  {
    kind: 'favourite',
    case: 'conflict',
    label: 'conflicts',
    old: FAV,
    new: [(p, v) => `${p.Poss} favourite colour is ${v.colour[1]}.`],
  },
  {
    kind: 'favourite',
    case: 'near-miss',
    label: 'none',
    old: FAV,
    new: [
      (_p, v) => `${v.other}'s favourite colour is ${v.colour[1]}.`,
      (p, v) => `${p.Poss} car is ${v.colour[1]}.`,
    ],
  },
  {
    kind: 'phone',
    case: 'update',
    label: 'supersedes',
    old: PHONE,
    new: [
      (p, v) => `${p.Poss} new phone number is ${v.phone[1]}.`,
      (p, v) => `${p.Poss} number changed to ${v.phone[1]}.`,
      (p, v) => `${p.Poss} phone number is now ${v.phone[1]}.`,
    ],
  },
  {
    kind: 'phone',
    case: 'restatement',
    label: 'none',
    old: PHONE,
    new: [
      (p, v) => `${p.Poss} cell number is ${v.phone[0]}.`,
      (p, v) => `${p.Poss} phone number is still ${v.phone[0]}.`,
    ],
  },
  {
    kind: 'phone',
    case: 'conflict',
    label: 'conflicts',
    old: PHONE,
    new: [(p, v) => `${p.Poss} phone number is ${v.phone[1]}.`],
  },
  {
    kind: 'phone',
    case: 'near-miss',
    label: 'none',
    old: PHONE,
    new: [
      (_p, v) => `${v.other}'s phone number is ${v.phone[1]}.`,
      (p, v) => `${p.Poss} old phone number was ${v.phone[1]}.`,
    ],
  },
  {
    kind: 'email',
    case: 'update',
    label: 'supersedes',
    old: EMAIL,
    new: [
      (p, v) => `${p.Poss} new email is ${v.email[1]}.`,
      (p, v) => `${p.Poss} email address is now ${v.email[1]}.`,
    ],
  },
  {
    kind: 'email',
    case: 'conflict',
    label: 'conflicts',
    old: EMAIL,
    new: [(p, v) => `${p.Poss} email is ${v.email[1]}.`],
  },
  {
    kind: 'name',
    case: 'conflict',
    label: 'conflicts',
    old: PET,
    new: [
      (p, v) => `${p.Poss} dog is called ${v.pet[1]}.`,
      (p, v) => `${p.Poss} dog is named ${v.pet[1]}.`,
    ],
  },
  {
    kind: 'name',
    case: 'restatement',
    label: 'none',
    old: PET,
    new: [(p, v) => `${p.Poss} dog is named ${v.pet[0]}.`],
  },
  {
    kind: 'name',
    case: 'near-miss',
    label: 'none',
    old: PET,
    new: [
      (p, v) => `${p.Poss} cat is called ${v.pet[1]}.`,
      (_p, v) => `${v.other}'s dog is called ${v.pet[1]}.`,
    ],
  },
  {
    kind: 'date',
    case: 'update',
    label: 'supersedes',
    old: APPOINTMENT,
    new: [
      (p) => `${p.Poss} dentist appointment was moved to Friday.`,
      (p) => `${p.Poss} dentist appointment got rescheduled to next Monday.`,
    ],
  },
  {
    kind: 'date',
    case: 'conflict',
    label: 'conflicts',
    old: APPOINTMENT,
    new: [(p) => `${p.Poss} dentist appointment is on Friday.`],
  },
  {
    kind: 'date',
    case: 'restatement',
    label: 'none',
    old: [(p) => `${p.Poss} birthday is May 3.`],
    new: [(p) => `${p.Poss} birthday is on the 3rd of May.`, (p) => `${p.Poss} birthday is 3 May.`],
  },
  {
    kind: 'date',
    case: 'conflict',
    label: 'conflicts',
    old: [(p) => `${p.Poss} birthday is May 3.`],
    new: [(p) => `${p.Poss} birthday is June 9.`],
  },
  // Relationships.
  {
    kind: 'relationship',
    case: 'update',
    label: 'supersedes',
    old: DATING,
    new: [
      (p, v) =>
        p.S === 'I'
          ? `${v.partner[0]} and I got engaged.`
          : `${p.S} and ${v.partner[0]} got engaged.`,
      (p, v) => `${p.S} ${p.be} engaged to ${v.partner[0]}.`,
      (p, v) => `${p.S} broke up with ${v.partner[0]}.`,
      (p, v) => `${p.S} married ${v.partner[0]} in June.`,
      (p) => `${p.S} ${p.be} single now.`,
    ],
  },
  {
    kind: 'relationship',
    case: 'update',
    label: 'supersedes',
    old: MARRIED,
    new: [(p) => `${p.S} got divorced.`, (p, v) => `${p.S} ${p.be} divorced from ${v.partner[0]}.`],
  },
  {
    kind: 'relationship',
    case: 'restatement',
    label: 'none',
    old: MARRIED,
    new: [
      (p, v) => `${p.S} ${p.be} happily married to ${v.partner[0]}.`,
      (p, v) =>
        p.S === 'I'
          ? `${v.partner[0]} and I are married.`
          : `${p.S} and ${v.partner[0]} are married.`,
    ],
  },
  {
    kind: 'relationship',
    case: 'conflict',
    label: 'conflicts',
    old: MARRIED,
    new: [
      (p, v) => `${p.S} ${p.be} married to ${v.partner[1]}.`,
      (p, v) => `${p.S} ${p.be} dating ${v.partner[1]}.`,
    ],
  },
  {
    kind: 'relationship',
    case: 'near-miss',
    label: 'none',
    old: MARRIED,
    new: [
      (_p, v) => `${v.other} is married to ${v.partner[1]}.`,
      (p, v) => `${p.S} might marry ${v.partner[1]}.`,
      (p, v) => `${p.S} used to date ${v.partner[1]}.`,
    ],
  },
  // Counts and ages.
  {
    kind: 'count',
    case: 'update',
    label: 'supersedes',
    old: KIDS,
    new: [
      (p, v) => `${p.S} ${p.have} ${kids(v.count[1])} now.`,
      (p, v) => `${p.S} now ${p.have} ${NUMBER_WORDS[v.count[1]]} children.`,
    ],
  },
  {
    kind: 'count',
    case: 'conflict',
    label: 'conflicts',
    old: KIDS,
    new: [(p, v) => `${p.S} ${p.have} ${kids(v.count[1])}.`],
  },
  {
    kind: 'count',
    case: 'restatement',
    label: 'none',
    old: KIDS,
    new: [(p, v) => `${p.S} ${p.have} ${v.count[0]} ${v.count[0] === 1 ? 'child' : 'children'}.`],
  },
  {
    kind: 'count',
    case: 'unrelated',
    label: 'none',
    old: KIDS,
    new: [(p) => `${p.S} ${p.have} two dogs.`, (p) => `${p.S} ${p.have} a sister.`],
  },
  {
    kind: 'age',
    case: 'update',
    label: 'supersedes',
    old: AGE,
    days: 400,
    new: [
      (p, v) => `${p.S} turned ${v.age + 1}.`,
      (p, v) => `${p.S} ${p.be} ${v.age + 1} years old.`,
    ],
  },
  {
    kind: 'age',
    case: 'conflict',
    label: 'conflicts',
    old: AGE,
    days: 30,
    new: [(p, v) => `${p.S} ${p.be} ${v.age + 6} years old.`],
  },
  {
    kind: 'age',
    case: 'near-miss',
    label: 'none',
    old: AGE,
    new: [
      (p, v) => `${p.S} will turn ${v.age + 1} next month.`,
      (_p, v) => `${v.other} is ${v.age + 1}.`,
    ],
  },
  // Diet, car.
  {
    kind: 'diet',
    case: 'update',
    label: 'supersedes',
    old: DIET,
    new: [(p) => `${p.S} went vegan.`, (p) => `${p.S} ${p.be} no longer vegetarian.`],
  },
  {
    kind: 'diet',
    case: 'conflict',
    label: 'conflicts',
    old: DIET,
    new: [(p) => `${p.S} ${p.be} vegan.`],
  },
  {
    kind: 'car',
    case: 'update',
    label: 'supersedes',
    old: CAR,
    new: [
      (p, v) => `${p.S} drive${p.s} a ${v.car[1]} now.`,
      (p, v) => `${p.S} switched from the ${v.car[0]} to a ${v.car[1]}.`,
    ],
  },
  {
    kind: 'car',
    case: 'conflict',
    label: 'conflicts',
    old: CAR,
    new: [(p, v) => `${p.S} drive${p.s} a ${v.car[1]}.`],
  },
];
