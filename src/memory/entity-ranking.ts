// Names in a search: a query that names someone or something ("What did Melanie paint?") lifts
// the memories about it: most of all those whose subject it is (their first entity, else the
// first name they say), a little those that only mention it. A name is a rare word, so BM25
// already favours the memories that hold it; what it cannot tell is whose memory it is: in a
// conversation, "Thanks, Melanie!" is said to her, not by her.

import type { MemoryRecord } from '../storage/records.js';

/** For a memory whose subject the query names. */
export const SUBJECT_LIFT = 0.4;
/** For a memory that names, past its subject, what the query names. */
export const MENTION_LIFT = 0.1;
/** The most names lift a memory. */
export const MAX_NAME_LIFT = 1 + SUBJECT_LIFT;

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

/**
 * The names `text` says, lowercased, in order, at most `limit`: capitalised words less their
 * possessive ("Caroline's": caroline) and the words a sentence begins with ("What", "Thanks").
 */
export function namesOf(text: string, limit: number): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(CAPITALISED)) {
    const name = m[0].replace(POSSESSIVE, '').toLowerCase();
    if (name.length < 2 || NOT_NAMES.has(name)) continue;
    out.push(name);
    if (out.length >= limit) break;
  }
  return out;
}

/** Names a query or a memory is read for: more say nothing more of who it is about. */
const MAX_NAMES = 16;

/** The names a query holds, or null when it names nothing. */
export function queryNames(query: string): ReadonlySet<string> | null {
  const names = new Set(namesOf(query, MAX_NAMES));
  return names.size > 0 ? names : null;
}

/** How much a memory is lifted for the names a query holds: 1 when not at all. */
export function nameLift(record: MemoryRecord, names: ReadonlySet<string>): number {
  const entities = record.entities.slice(0, MAX_NAMES).map((e) => e.toLowerCase());
  const said = namesOf(record.content, MAX_NAMES);
  const subject = entities[0] ?? said[0];
  if (subject !== undefined && names.has(subject)) return 1 + SUBJECT_LIFT;
  return entities.some((e) => names.has(e)) || said.some((n) => names.has(n))
    ? 1 + MENTION_LIFT
    : 1;
}
