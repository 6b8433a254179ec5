// How one fact of a new memory bears on one fact of an older memory. Only the same subject
// and the same kind of fact can bear at all; then the values, the negation and the words of
// change decide between an update, a contradiction to settle, and a restatement.

import type { Fact } from './extract.js';
import { sameValue } from './values.js';

export type Relation = 'supersedes' | 'conflicts' | 'restates' | 'unrelated';

const SECONDS_PER_YEAR = 365.25 * 24 * 3600;

/** Relationship statuses in the order a couple goes through them; an ending closes any. */
const RELATIONSHIP_RANK = new Map([
  ['partner', 1],
  ['dating', 1],
  ['engaged', 2],
  ['married', 3],
]);
/** Endings that are themselves news: "divorced" says it changed, "single" alone does not. */
const ENDINGS_OF_CHANGE = new Set(['divorced', 'separated', 'widowed']);

/**
 * How `next` (in the new memory) bears on `old` (in a candidate saved `elapsed` seconds
 * earlier; negative when the candidate is the newer).
 */
export function relate(next: Fact, old: Fact, elapsed: number): Relation {
  if (next.subject !== old.subject || old.past || old.kind === 'any') return 'unrelated';
  if (next.kind === 'any') {
    return !old.negated && sameValue(next.value, old.value) ? 'supersedes' : 'unrelated';
  }
  if (next.kind !== old.kind) return 'unrelated';
  if (next.kind === 'relationship') return relateRelationship(next, old);
  const same = sameValue(next.value, old.value) || (next.negated && next.value === '');
  if (next.past) return same && !old.negated ? 'conflicts' : 'unrelated';
  if (same) {
    if (next.negated === old.negated) return 'restates';
    return next.change ? 'supersedes' : 'conflicts';
  }
  if (next.negated || old.negated || next.multi) return 'unrelated';
  if (next.kind === 'prefers' && !sameSlot(next.value, old.value)) return 'unrelated';
  if (next.change) return 'supersedes';
  if (next.kind === 'age') return agedBy(next, old, elapsed) ? 'supersedes' : 'conflicts';
  return 'conflicts';
}

/** Two preferences of one slot end in the same word: "window seat" and "aisle seat". */
function sameSlot(a: string, b: string): boolean {
  return a.split(' ').pop() === b.split(' ').pop();
}

/** An age that grew by no more than the years between the two saves: the person got older. */
function agedBy(next: Fact, old: Fact, elapsed: number): boolean {
  const grew = Number(next.value) - Number(old.value);
  return grew > 0 && grew <= Math.ceil(elapsed / SECONDS_PER_YEAR);
}

function relateRelationship(next: Fact, old: Fact): Relation {
  const [nextStatus = '', nextPartner = ''] = next.value.split('|');
  const [oldStatus = '', oldPartner = ''] = old.value.split('|');
  const samePartner = nextPartner === '' || oldPartner === '' || nextPartner === oldPartner;
  if (next.past) return 'unrelated';
  if (nextStatus === oldStatus && samePartner) {
    if (next.negated === old.negated) return 'restates';
    return next.change ? 'supersedes' : 'conflicts';
  }
  if (next.negated || old.negated) return 'unrelated';
  const nextRank = RELATIONSHIP_RANK.get(nextStatus);
  const oldRank = RELATIONSHIP_RANK.get(oldStatus);
  if (nextRank === undefined) {
    // An ending: of the old relationship when the partner is the same or unnamed.
    if (oldRank === undefined || !samePartner) return 'unrelated';
    return next.change || ENDINGS_OF_CHANGE.has(nextStatus) ? 'supersedes' : 'conflicts';
  }
  if (oldRank === undefined || !samePartner) return next.change ? 'supersedes' : 'conflicts';
  if (nextRank > oldRank) return 'supersedes';
  if (nextRank === oldRank) return 'restates';
  return next.change ? 'supersedes' : 'conflicts';
}
