// Phrasings shared by the facts-eval families: the old memories and value short-hands.

import type { Person, Say, Values } from './pools.js';

export const her = (p: Person) => (p.S === 'I' ? 'my' : 'their');
export const NUMBER_WORDS = ['no', 'one', 'two', 'three', 'four', 'five'];
export const kids = (n: number) => (n === 1 ? 'a kid' : `${NUMBER_WORDS[n]} kids`);

// Short forms of the pair's values, for the templates.
export const A = (v: Values) => v.city[0];
export const B = (v: Values) => v.city[1];
export const C = (v: Values) => v.company[0];
export const D = (v: Values) => v.company[1];
export const J = (v: Values) => v.job[0];
export const K = (v: Values) => v.job[1];
export const F = (v: Values) => v.food[0];
export const G = (v: Values) => v.food[1];
export const art = (w: string) => (/^[aeiou]/i.test(w) ? `an ${w}` : `a ${w}`);

export const LIVES: Say[] = [
  (p, v) => `${p.S} live${p.s} in ${A(v)}.`,
  (p, v) => `${p.S} ${p.be} based in ${A(v)}.`,
  (p, v) => `${p.S} live${p.s} in ${A(v)} with ${her(p)} two cats.`,
  (p, v) => `${p.S} ${p.have} lived in ${A(v)} for five years.`,
];
export const WORKS: Say[] = [
  (p, v) => `${p.S} work${p.s} at ${C(v)}.`,
  (p, v) => `${p.S} work${p.s} for ${C(v)} in the finance team.`,
  (p, v) => `${p.S} ${p.be} employed by ${C(v)}.`,
];
export const ROLE: Say[] = [
  (p, v) => `${p.S} ${p.be} ${art(J(v))}.`,
  (p, v) => `${p.S} work${p.s} as ${art(J(v))}.`,
];
export const LIKES: Say[] = [
  (p, v) => `${p.S} love${p.s} ${F(v)}.`,
  (p, v) => `${p.S} really enjoy${p.s} ${F(v)}.`,
  (p, v) => `${p.S} like${p.s} ${F(v)} a lot.`,
];
export const DATING: Say[] = [
  (p, v) => `${p.S} ${p.be} dating ${v.partner[0]}.`,
  (p, v) => `${p.S} ${p.be} in a relationship with ${v.partner[0]}.`,
];
export const MARRIED: Say[] = [
  (p, v) => `${p.S} ${p.be} married to ${v.partner[0]}.`,
  (p, v) =>
    p.S === 'I' ? `${v.partner[0]} and I are married.` : `${p.S} and ${v.partner[0]} are married.`,
];
export const KIDS: Say[] = [
  (p, v) => `${p.S} ${p.have} ${kids(v.count[0])}.`,
  (p, v) =>
    `${p.S} ${p.have} ${NUMBER_WORDS[v.count[0]]} children.`.replace('one children', 'one child'),
];
export const AGE: Say[] = [
  (p, v) => `${p.S} ${p.be} ${v.age} years old.`,
  (p, v) => `${p.S} ${p.be} ${v.age}.`,
];
export const PHONE: Say[] = [(p, v) => `${p.Poss} phone number is ${v.phone[0]}.`];
export const EMAIL: Say[] = [(p, v) => `${p.Poss} email is ${v.email[0]}.`];
export const FAV: Say[] = [(p, v) => `${p.Poss} favourite colour is ${v.colour[0]}.`];
export const PET: Say[] = [(p, v) => `${p.Poss} dog is called ${v.pet[0]}.`];
export const CAR: Say[] = [(p, v) => `${p.S} drive${p.s} a ${v.car[0]}.`];
export const DIET: Say[] = [(p) => `${p.S} ${p.be} vegetarian.`];
export const APPOINTMENT: Say[] = [(p) => `${p.Poss} dentist appointment is on Thursday.`];
export const SEAT: Say[] = [(p) => `${p.S} prefer${p.s} the window seat on flights.`];
