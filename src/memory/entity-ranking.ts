// Names in a search: a query that names someone or something ("What did Melanie paint?") lifts
// the memories about it: most of all those whose subject it is (their first entity, else the
// first name they say), a little those that only mention it. A name is a rare word, so BM25
// already favours the memories that hold it; what it cannot tell is whose memory it is: in a
// conversation, "Thanks, Melanie!" is said to her, not by her.

import {
  MAX_NAMES,
  mayHoldName,
  memoryNames,
  nameHash,
  namesOf,
  type RowFacts,
} from '../search/rank-facts.js';
import type { MemoryRecord } from '../storage/records.js';

/** For a memory whose subject the query names. */
export const SUBJECT_LIFT = 0.4;
/** For a memory that names, past its subject, what the query names. */
export const MENTION_LIFT = 0.1;
/** The most names lift a memory. */
export const MAX_NAME_LIFT = 1 + SUBJECT_LIFT;

/** The names a query holds (each with its hash: `RowFacts` keep names so), or null for none. */
export interface QueryNames {
  names: ReadonlySet<string>;
  hashes: ReadonlySet<number>;
}

/** The names a query holds, or null when it names nothing. */
export function queryNames(query: string): QueryNames | null {
  const names = new Set(namesOf(query, MAX_NAMES));
  return names.size > 0 ? { names, hashes: new Set([...names].map(nameHash)) } : null;
}

/** How much a memory is lifted for the names a query holds: 1 when not at all. */
export function nameLift(record: MemoryRecord, { names }: QueryNames): number {
  const { entities, said } = memoryNames(record);
  const subject = entities[0] ?? said[0];
  if (subject !== undefined && names.has(subject)) return 1 + SUBJECT_LIFT;
  return entities.some((e) => names.has(e)) || said.some((n) => names.has(n))
    ? 1 + MENTION_LIFT
    : 1;
}

/**
 * `nameLift` from a row's facts, without its record; undefined when they cannot tell (the
 * memory holds more names than its facts keep, and the filter of those may hold one of the
 * query's): read the record.
 */
export function nameLiftOf(facts: RowFacts, { hashes }: QueryNames): number | undefined {
  if (facts.subject !== 0 && hashes.has(facts.subject)) return 1 + SUBJECT_LIFT;
  if (facts.names.some((h) => h !== 0 && hashes.has(h))) return 1 + MENTION_LIFT;
  if (!facts.moreNames) return 1;
  for (const hash of hashes) if (mayHoldName(facts.moreNameBits, hash)) return undefined;
  return 1;
}
