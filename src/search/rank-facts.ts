// What a search's ranking reads of a memory besides its words and decay numbers: whose memory it
// is (its subject, and the other names it says), its session (its source and context), and
// the times it says. The lexical index keeps them as six numbers beside the decay numbers
// (`rankFactsOf`), so a search lifts its best rows without reading their records from the log:
// reading them was 0.6 of a search's 1.6 ms of CPU at 100,000 memories.
//
// Names and sessions are kept as 53-bit hashes (`contentHash`) and compared as such: two names
// that differ share a hash about once in 2^53 comparisons, which would lift a memory a little.
// The names past the two kept are kept as bits (a Bloom filter: a name not among them is told
// for sure, one that may be needs the record), the times said as the whole days they span.

import type { MemoryRecord } from '../storage/records.js';
import { contentHash } from './string-hash.js';
import { statedTimes } from './time-query.js';

/** A capitalised word: letters, digits, and the apostrophes and hyphens inside a name. */
const CAPITALISED = /\p{Lu}[\p{L}\p{N}'’-]{0,63}/gu;
const POSSESSIVE = /['’]s?$/u;

/** Capitalised words a sentence or a question may begin with that name nothing. */
const NOT_NAMES = new Set(
  `a an the i i'm i've i'd i'll im what which who whom whose when where why how do does did is are
  was were be been have has had can could would should will shall may might must if in on at for
  of to from by with about as and or but not no yes so then there here this that these those it
  its my your our their his her we you they he she me us them hey hi hello thanks thank wow oh
  yeah yep sure okay ok great awesome cool nice congrats`.split(/\s+/),
);

/** Names a query or a memory is read for: more say nothing more of who it is about. */
export const MAX_NAMES = 16;

/**
 * Calls `each` with the names `text` says, lowercased, in order, until it answers true or `limit`
 * were given: capitalised words less their possessive ("Caroline's": caroline) and the words a
 * sentence begins with ("What", "Thanks").
 */
function eachName(text: string, limit: number, each: (name: string) => boolean): void {
  let given = 0;
  for (const m of text.matchAll(CAPITALISED)) {
    const name = m[0].replace(POSSESSIVE, '').toLowerCase();
    if (name.length < 2 || NOT_NAMES.has(name)) continue;
    if (each(name) || ++given >= limit) return;
  }
}

/** The names `text` says, lowercased, in order, at most `limit` (see `eachName`). */
export function namesOf(text: string, limit: number): string[] {
  const out: string[] = [];
  eachName(text, limit, (name) => {
    out.push(name);
    return false;
  });
  return out;
}

/** A memory's names: its entities (the first is its subject), then those its content says. */
export function memoryNames(record: MemoryRecord): { entities: string[]; said: string[] } {
  return {
    entities: record.entities.slice(0, MAX_NAMES).map((e) => e.toLowerCase()),
    said: namesOf(record.content, MAX_NAMES),
  };
}

/** The session of a memory without a source or a context. */
export const NO_SESSION = '[null,null]';

/** A memory's session: its source and context (NO_SESSION with neither). */
export const sessionKey = (record: MemoryRecord): string =>
  JSON.stringify([record.meta.source || null, record.meta.context || null]);

/** How many numbers `rankFactsOf` gives. */
export const RANK_FACTS = 6;
/** In the first number, below its session's hash: more names than those kept. */
const MORE_NAMES = 1;

/** A name's or a session's hash: never 0, which stands for none. */
export const nameHash = (name: string): number => contentHash(name) || 1;

/**
 * A memory's session as a number: 0 for no session, else its key's hash less its two lowest
 * bits (at most 2^53 - 4, so `rankFactsOf`'s flags add to it exactly), never 0.
 */
export function sessionCode(record: MemoryRecord): number {
  if (!record.meta.source && !record.meta.context) return 0;
  const key = sessionKey(record);
  if (key === NO_SESSION) return 0;
  const hash = nameHash(key);
  return hash - (hash % 4) || 4;
}

/** The bits of the names filter (a number below 2^52, so every bit is exact in a double). */
const NAME_BITS = 52;

/** The two bits of the names filter a name's hash sets. */
const bitsOf = (hash: number): [number, number] => [
  hash % NAME_BITS,
  Math.floor(hash / 64) % NAME_BITS,
];

const hasBit = (bits: number, bit: number) => Math.floor(bits / 2 ** bit) % 2 === 1;

/** `bits` with the name of hash `hash` added. */
function withName(bits: number, hash: number): number {
  let out = bits;
  for (const bit of bitsOf(hash)) if (!hasBit(out, bit)) out += 2 ** bit;
  return out;
}

/** Whether the names filter `bits` may hold the name of hash `hash` (false: it does not). */
export const mayHoldName = (bits: number, hash: number): boolean =>
  bitsOf(hash).every((bit) => hasBit(bits, bit));

/** Whole days of epoch seconds as kept: 0 stands for -Infinity, DAY_CODES - 1 for +Infinity. */
const DAY_CODES = 2 ** 26;
/** The day code of day 0 (1970-01-01). */
const DAY_ZERO = 2 ** 25;
const DAY = 86_400;

/** The day code at or before `t` (a range's start); at or after it with `up` (its end). */
function dayCode(t: number, up: boolean): number {
  if (t === Number.NEGATIVE_INFINITY) return 0;
  if (t === Number.POSITIVE_INFINITY) return DAY_CODES - 1;
  const code = (up ? Math.ceil(t / DAY) : Math.floor(t / DAY)) + DAY_ZERO;
  // Past what a code holds, widened (a start to -Infinity, an end to +Infinity), never narrowed.
  if (code < 1) return up ? 1 : 0;
  if (code > DAY_CODES - 2) return up ? DAY_CODES - 1 : DAY_CODES - 2;
  return code;
}

const secondsOf = (code: number): number => {
  if (code === 0) return Number.NEGATIVE_INFINITY;
  if (code === DAY_CODES - 1) return Number.POSITIVE_INFINITY;
  return (code - DAY_ZERO) * DAY;
};

/**
 * The times a memory says, as one number: 0 for none, else the whole days from the start of the
 * first to the end of the last (a span that holds them all).
 */
function saidCode(record: MemoryRecord): number {
  const said = statedTimes(record.content, record.created_at);
  if (said.length === 0) return 0;
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (const range of said) {
    if (range.from < from) from = range.from;
    if (range.to > to) to = range.to;
  }
  return 1 + dayCode(from, false) * DAY_CODES + dayCode(to, true);
}

/**
 * The six numbers the index keeps of a memory for ranking: its session's hash (0: no session)
 * with a flag in its lowest bits (more names than kept); its subject's hash (its first entity,
 * else the first name it says; 0: none); the hashes of two other names it holds (0: none); the
 * filter of the names past those (0: none); and the span of the times it says (0: none).
 */
export function rankFactsOf(record: MemoryRecord): number[] {
  let subject: string | undefined;
  // Besides the subject, each name once, in order (at most 2 * MAX_NAMES: a list is cheaper
  // than a set at that size, on every save and every memory of a load).
  const others: string[] = [];
  const { entities } = record;
  for (let i = 0; i < entities.length && i < MAX_NAMES; i++) {
    const entity = (entities[i] as string).toLowerCase();
    // The first entity is the subject; the others count as mentions even when one repeats it
    // (`nameLift` reads every entity).
    if (i === 0) subject = entity;
    else if (!others.includes(entity)) others.push(entity);
  }
  // The names said, as `nameLift` reads them (MAX_NAMES at most).
  eachName(record.content, MAX_NAMES, (name) => {
    if (subject === undefined) subject = name;
    else if (name !== subject && !others.includes(name)) others.push(name);
    return false;
  });
  let moreBits = 0;
  for (let i = 2; i < others.length; i++)
    moreBits = withName(moreBits, nameHash(others[i] as string));
  const first = others[0];
  const second = others[1];
  return [
    sessionCode(record) + (others.length > 2 ? MORE_NAMES : 0),
    subject === undefined ? 0 : nameHash(subject),
    first === undefined ? 0 : nameHash(first),
    second === undefined ? 0 : nameHash(second),
    moreBits,
    saidCode(record),
  ];
}

/** A row's facts as a search reads them (`RankedRows.facts`). */
export interface RowFacts {
  createdAt: number;
  /** Its session's hash, 0 for a memory of no session. */
  session: number;
  /** Its subject's hash, 0 for none. */
  subject: number;
  /** The hashes of the other names kept (0: none). */
  names: readonly [number, number];
  /** Whether it holds more names than those. */
  moreNames: boolean;
  /** The filter of those (`mayHoldName`). */
  moreNameBits: number;
  /** A span of whole days that holds every time it says; undefined when it says none. */
  said: { from: number; to: number } | undefined;
}

/** `RowFacts` of a row's creation time and its RANK_FACTS numbers of `rankFactsOf` (from `at`). */
export function rowFacts(createdAt: number, facts: ArrayLike<number>, at = 0): RowFacts {
  const head = facts[at] as number;
  const flags = head % 4;
  const said = facts[at + 5] as number;
  const span = said - 1;
  return {
    createdAt,
    session: head - flags,
    subject: facts[at + 1] as number,
    names: [facts[at + 2] as number, facts[at + 3] as number],
    moreNames: (flags & MORE_NAMES) !== 0,
    moreNameBits: facts[at + 4] as number,
    said:
      said === 0
        ? undefined
        : {
            from: secondsOf(Math.floor(span / DAY_CODES)),
            to: secondsOf(span % DAY_CODES),
          },
  };
}
