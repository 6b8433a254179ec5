// What a search's ranking reads of a memory besides its words and decay numbers: whose memory it
// is (its subject, and the other names it says), its session (its source and context), and
// whether it may say a time. The lexical index keeps them as four numbers beside the decay
// numbers (`rankFactsOf`), so a search lifts its best rows without reading their records from
// the log: reading them was 0.6 of a search's 1.6 ms of CPU at 100,000 memories.
//
// Names and sessions are kept as 53-bit hashes (`contentHash`) and compared as such: two names
// that differ share a hash about once in 2^53 comparisons, which would lift a memory a little.

import type { MemoryRecord } from '../storage/records.js';
import { contentHash } from './string-hash.js';
import { maySayTime } from './time-query.js';

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
export const RANK_FACTS = 4;
/** The names kept besides a memory's subject. */
const KEPT_NAMES = 2;
/** In the first number, below its session's hash: more names than those kept. */
const MORE_NAMES = 1;
/** In the first number: the memory may say a time. */
const MAY_SAY_TIME = 2;

/** A name's or a session's hash: never 0, which stands for none. */
export const nameHash = (name: string): number => contentHash(name) || 1;

/**
 * A memory's session as a number: 0 for no session, else its key's hash less its two lowest
 * bits (at most 2^53 - 4, so `rankFactsOf`'s flags add to it exactly), never 0.
 */
export function sessionCode(record: MemoryRecord): number {
  const key = sessionKey(record);
  if (key === NO_SESSION) return 0;
  const hash = nameHash(key);
  return hash - (hash % 4) || 4;
}

/**
 * The four numbers the index keeps of a memory for ranking: its session's hash (0: no session)
 * with two flags in its lowest bits (more names than kept, may say a time); its subject's hash
 * (its first entity, else the first name it says; 0: none); and the hashes of two other names it
 * holds (0: none).
 */
export function rankFactsOf(record: MemoryRecord): number[] {
  const entities = record.entities.slice(0, MAX_NAMES).map((e) => e.toLowerCase());
  let subject = entities[0];
  const others = new Set(entities.slice(1));
  // The names said, as `nameLift` reads them (MAX_NAMES at most), only until they can no longer
  // change the facts: a subject and more names than kept.
  if (others.size <= KEPT_NAMES) {
    eachName(record.content, MAX_NAMES, (name) => {
      if (subject === undefined) subject = name;
      else if (name !== subject) others.add(name);
      return others.size > KEPT_NAMES;
    });
  }
  const [first, second] = others;
  const flags =
    (others.size > KEPT_NAMES ? MORE_NAMES : 0) | (maySayTime(record.content) ? MAY_SAY_TIME : 0);
  return [
    sessionCode(record) + flags,
    subject === undefined ? 0 : nameHash(subject),
    first === undefined ? 0 : nameHash(first),
    second === undefined ? 0 : nameHash(second),
  ];
}

/** A row's facts as a search reads them (`RankedRows.facts`). */
export interface RowFacts {
  createdAt: number;
  /** Its session's hash, 0 for a memory of no session. */
  session: number;
  /** Whether it may say a time (else it says none). */
  maySayTime: boolean;
  /** Its subject's hash, 0 for none. */
  subject: number;
  /** The hashes of the other names kept (0: none). */
  names: readonly [number, number];
  /** Whether it holds more names than those. */
  moreNames: boolean;
}

/** `RowFacts` of a row's creation time and its four numbers of `rankFactsOf` (from `at`). */
export function rowFacts(createdAt: number, facts: ArrayLike<number>, at = 0): RowFacts {
  const head = facts[at] as number;
  const flags = head % 4;
  return {
    createdAt,
    session: head - flags,
    maySayTime: (flags & MAY_SAY_TIME) !== 0,
    subject: facts[at + 1] as number,
    names: [facts[at + 2] as number, facts[at + 3] as number],
    moreNames: (flags & MORE_NAMES) !== 0,
  };
}
