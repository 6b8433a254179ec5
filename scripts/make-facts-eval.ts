// Writes bench/data/facts-eval.jsonl: labelled pairs of memories (an older one, a newer one)
// for the fact judge, from templates written for this repository. Deterministic (a seeded
// generator), so the file is reproducible: `node --import tsx scripts/make-facts-eval.ts`.
//
// Each family below is one way a fact is said again: an update, a restatement, an unrelated
// fact about the same person, a near-miss (another person, a wish, a question, a history), a
// conflict. Names, places, employers and values come from two disjoint pools (dev and test),
// and a third of each family's phrasings appear only in the test split, so the test figures
// are of phrasings and values the judge was not tuned on.

import fs from 'node:fs';
import path from 'node:path';

type Label = 'supersedes' | 'conflicts' | 'none';
type Split = 'dev' | 'test';

interface Person {
  S: string;
  be: string;
  have: string;
  Poss: string;
  poss: string;
  s: string;
  es: string;
  does: string;
}

interface Values {
  name: string;
  other: string;
  city: [string, string];
  company: [string, string];
  job: [string, string];
  food: [string, string];
  partner: [string, string];
  pet: [string, string];
  phone: [string, string];
  email: [string, string];
  colour: [string, string];
  car: [string, string];
  count: [number, number];
  age: number;
}

type Say = (p: Person, v: Values) => string;

interface Family {
  kind: string;
  case: string;
  label: Label;
  old: Say[];
  new: Say[];
  days?: number;
}

const POOLS: Record<Split, Record<string, string[]>> = {
  dev: {
    name: [
      'Caroline',
      'Melanie',
      'Ben',
      'Priya',
      'Tom',
      'Aisha',
      'Lucas',
      'Mei',
      'Omar',
      'Sofia',
      'Jonas',
      'Hannah',
    ],
    city: [
      'Boston',
      'Denver',
      'Lisbon',
      'Austin',
      'Berlin',
      'Toronto',
      'Seattle',
      'Madrid',
      'Portland',
      'Dublin',
      'San Diego',
      'New York',
    ],
    company: [
      'Google',
      'Stripe',
      'Acme Corp',
      'Spotify',
      'Deloitte',
      'Shopify',
      'the city library',
      'Pfizer',
      'Airbnb',
      'Siemens',
    ],
    job: [
      'nurse',
      'teacher',
      'software engineer',
      'accountant',
      'chef',
      'graphic designer',
      'pharmacist',
      'lawyer',
      'barista',
      'data analyst',
    ],
    food: [
      'coffee',
      'sushi',
      'jazz',
      'hiking',
      'spicy food',
      'horror movies',
      'tennis',
      'red wine',
      'chess',
      'country music',
    ],
    partner: ['Daniel', 'Anna', 'Marco', 'Julia', 'Sam', 'Grace', 'Leo', 'Nina'],
    pet: ['Rex', 'Luna', 'Biscuit', 'Max', 'Pepper', 'Milo'],
    colour: ['blue', 'green', 'purple', 'red', 'yellow', 'orange'],
    car: ['Honda Civic', 'Tesla', 'Subaru Outback', 'Ford Focus', 'Volvo'],
  },
  test: {
    name: [
      'Nadia',
      'Carlos',
      'Yuki',
      'Fatima',
      'Ethan',
      'Ingrid',
      'Kwame',
      'Elena',
      'Raj',
      'Zoe',
      'Mateo',
      'Leila',
    ],
    city: [
      'Chicago',
      'Oslo',
      'Nairobi',
      'Melbourne',
      'Kyoto',
      'Vancouver',
      'Atlanta',
      'Prague',
      'Lyon',
      'Cape Town',
      'Mexico City',
      'Edinburgh',
    ],
    company: [
      'Microsoft',
      'Netflix',
      'Unilever',
      'IKEA',
      'Accenture',
      'Canva',
      'the county hospital',
      'Roche',
      'Zalando',
      'Bosch',
    ],
    job: [
      'electrician',
      'dentist',
      'product manager',
      'photographer',
      'architect',
      'physiotherapist',
      'journalist',
      'librarian',
      'pilot',
      'translator',
    ],
    food: [
      'tea',
      'pizza',
      'opera',
      'running',
      'dark chocolate',
      'sci-fi novels',
      'golf',
      'craft beer',
      'poker',
      'techno',
    ],
    partner: ['Hugo', 'Clara', 'Felix', 'Maya', 'Ivan', 'Rosa', 'Theo', 'Lena'],
    pet: ['Bella', 'Oscar', 'Ziggy', 'Coco', 'Toby', 'Nala'],
    colour: ['teal', 'black', 'pink', 'white', 'brown', 'grey'],
    car: ['Toyota Corolla', 'Kia Soul', 'Mini Cooper', 'Audi A4', 'Jeep Wrangler'],
  },
};

/** mulberry32: a small seeded generator, so the file is the same on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = seeded(25);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
function two(xs: readonly string[]): [string, string] {
  const a = pick(xs);
  let b = pick(xs);
  while (b === a) b = pick(xs);
  return [a, b];
}

const FIRST: Person = {
  S: 'I',
  be: 'am',
  have: 'have',
  Poss: 'My',
  poss: 'my',
  s: '',
  es: '',
  does: 'do',
};
function third(name: string): Person {
  return {
    S: name,
    be: 'is',
    have: 'has',
    Poss: `${name}'s`,
    poss: `${name}'s`,
    s: 's',
    es: 'es',
    does: 'does',
  };
}
const USER: Person = { ...third('The user'), Poss: "The user's", poss: "the user's" };
const her = (p: Person) => (p.S === 'I' ? 'my' : 'their');

function values(split: Split): Values {
  const pool = POOLS[split];
  const [name, other] = two(pool.name as string[]);
  const digits = () => `555-${String(1000 + Math.floor(random() * 9000))}`;
  const n = 1 + Math.floor(random() * 3);
  return {
    name,
    other,
    city: two(pool.city as string[]),
    company: two(pool.company as string[]),
    job: two(pool.job as string[]),
    food: two(pool.food as string[]),
    partner: two(pool.partner as string[]),
    pet: two(pool.pet as string[]),
    phone: [digits(), digits()],
    email: [
      `${name.toLowerCase()}@example.com`,
      `${name.toLowerCase()}.${other.toLowerCase()}@mail.example.org`,
    ],
    colour: two(pool.colour as string[]),
    car: two(pool.car as string[]),
    count: [n, n + 1],
    age: 25 + Math.floor(random() * 40),
  };
}

const NUMBER_WORDS = ['no', 'one', 'two', 'three', 'four', 'five'];
const kids = (n: number) => (n === 1 ? 'a kid' : `${NUMBER_WORDS[n]} kids`);

// Short forms of the pair's values, for the templates.
const A = (v: Values) => v.city[0];
const B = (v: Values) => v.city[1];
const C = (v: Values) => v.company[0];
const D = (v: Values) => v.company[1];
const J = (v: Values) => v.job[0];
const K = (v: Values) => v.job[1];
const F = (v: Values) => v.food[0];
const G = (v: Values) => v.food[1];
const art = (w: string) => (/^[aeiou]/i.test(w) ? `an ${w}` : `a ${w}`);

const LIVES: Say[] = [
  (p, v) => `${p.S} live${p.s} in ${A(v)}.`,
  (p, v) => `${p.S} ${p.be} based in ${A(v)}.`,
  (p, v) => `${p.S} live${p.s} in ${A(v)} with ${her(p)} two cats.`,
  (p, v) => `${p.S} ${p.have} lived in ${A(v)} for five years.`,
];
const WORKS: Say[] = [
  (p, v) => `${p.S} work${p.s} at ${C(v)}.`,
  (p, v) => `${p.S} work${p.s} for ${C(v)} in the finance team.`,
  (p, v) => `${p.S} ${p.be} employed by ${C(v)}.`,
];
const ROLE: Say[] = [
  (p, v) => `${p.S} ${p.be} ${art(J(v))}.`,
  (p, v) => `${p.S} work${p.s} as ${art(J(v))}.`,
];
const LIKES: Say[] = [
  (p, v) => `${p.S} love${p.s} ${F(v)}.`,
  (p, v) => `${p.S} really enjoy${p.s} ${F(v)}.`,
  (p, v) => `${p.S} like${p.s} ${F(v)} a lot.`,
];
const DATING: Say[] = [
  (p, v) => `${p.S} ${p.be} dating ${v.partner[0]}.`,
  (p, v) => `${p.S} ${p.be} in a relationship with ${v.partner[0]}.`,
];
const MARRIED: Say[] = [
  (p, v) => `${p.S} ${p.be} married to ${v.partner[0]}.`,
  (p, v) =>
    p.S === 'I' ? `${v.partner[0]} and I are married.` : `${p.S} and ${v.partner[0]} are married.`,
];
const KIDS: Say[] = [
  (p, v) => `${p.S} ${p.have} ${kids(v.count[0])}.`,
  (p, v) =>
    `${p.S} ${p.have} ${NUMBER_WORDS[v.count[0]]} children.`.replace('one children', 'one child'),
];
const AGE: Say[] = [
  (p, v) => `${p.S} ${p.be} ${v.age} years old.`,
  (p, v) => `${p.S} ${p.be} ${v.age}.`,
];
const PHONE: Say[] = [(p, v) => `${p.Poss} phone number is ${v.phone[0]}.`];
const EMAIL: Say[] = [(p, v) => `${p.Poss} email is ${v.email[0]}.`];
const FAV: Say[] = [(p, v) => `${p.Poss} favourite colour is ${v.colour[0]}.`];
const PET: Say[] = [(p, v) => `${p.Poss} dog is called ${v.pet[0]}.`];
const CAR: Say[] = [(p, v) => `${p.S} drive${p.s} a ${v.car[0]}.`];
const DIET: Say[] = [(p) => `${p.S} ${p.be} vegetarian.`];
const APPOINTMENT: Say[] = [(p) => `${p.Poss} dentist appointment is on Thursday.`];
const SEAT: Say[] = [(p) => `${p.S} prefer${p.s} the window seat on flights.`];

const FAMILIES: Family[] = [
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

function persons(v: Values): Person[] {
  return [FIRST, third(v.name), third(v.name), USER];
}

function write(): void {
  const lines: string[] = [];
  let n = 0;
  for (const family of FAMILIES) {
    family.new.forEach((say, index) => {
      // Every third phrasing is held out: it appears only in the test split.
      const heldOut = index % 3 === 2;
      const splits: Split[] = heldOut ? ['test', 'test'] : ['dev', 'test'];
      const repeats = family.new.length <= 2 ? 3 : 2;
      for (const split of splits) {
        for (let r = 0; r < repeats; r += 1) {
          const v = values(split);
          const p = pick(persons(v));
          const old = pick(family.old)(p, v);
          const days = family.days ?? 1 + Math.floor(random() * 300);
          lines.push(
            JSON.stringify({
              old,
              new: say(p, v),
              old_days_ago: days,
              label: family.label,
              kind: family.kind,
              case: family.case,
              split,
            }),
          );
          n += 1;
        }
      }
    });
  }
  // Pairs written one by one, not from templates, and not tuned on: test only.
  const hand = fs.readFileSync(path.resolve(import.meta.dirname, 'facts-eval-hand.jsonl'), 'utf8');
  for (const line of hand.split('\n').filter((l) => l.trim() !== '')) {
    lines.push(JSON.stringify({ ...JSON.parse(line), case: 'hand', split: 'test' }));
    n += 1;
  }
  const out = path.resolve(import.meta.dirname, '../bench/data/facts-eval.jsonl');
  fs.writeFileSync(out, `${lines.join('\n')}\n`);
  process.stderr.write(`wrote ${n} pairs to ${out}\n`);
}

write();
