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
import { seededRandom } from '../bench/lib/content.js';
import { HOME_AND_WORK } from './facts-eval/families-home-work.js';
import { PERSONAL } from './facts-eval/families-personal.js';
import { type Person, POOLS, type Split, type Values } from './facts-eval/pools.js';

const FAMILIES = [...HOME_AND_WORK, ...PERSONAL];

const random = seededRandom(25);
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
