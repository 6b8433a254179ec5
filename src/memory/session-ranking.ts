// Sessions in a search: a question is about something said in one conversation (a session: the
// memories of one source and context, or, with neither, saved within hours of each other). Two
// signals come from the best matches' sessions. A memory whose session holds another strong
// match is more likely the one meant (what was said around it is about the question too): it is
// lifted. And the first few results should not all come from one session when another's match
// is nearly as good: the page is spread over sessions, a little.

import { sessionCode } from '../search/rank-facts.js';
import { topN } from '../search/ranking.js';
import type { MemoryRecord } from '../storage/records.js';
import { NO_SESSION_WINDOW } from './neighbours.js';

/** The best matches whose sessions are read (each one's record). */
export const SESSION_POOL = 30;
/** The most a memory is lifted for a strong match in its session (as strong as the best). */
export const SESSION_LIFT = 0.2;
/** Results the spread acts on: past them, the order is the ranks'. */
export const SPREAD_TOP = 5;
/** The share of its rank a match loses, while the spread acts, for a session already shown. */
export const SPREAD_COST = 0.1;
/** The best matches the spread picks its first results from. */
const SPREAD_POOL = 15;

/**
 * What tells a memory's session: its key (the hash of its source and context, as the index
 * keeps it: 0 for none), and when it was saved (for a memory of none).
 */
export interface Placed {
  key: number;
  at: number;
}

/** Where a memory is, from its record (a row the index has no facts of). */
export function placeOf(record: MemoryRecord): Placed {
  return { key: sessionCode(record), at: record.created_at };
}

const together = (a: Placed, b: Placed) =>
  a.key === b.key && (a.key !== 0 || Math.abs(a.at - b.at) < NO_SESSION_WINDOW);

/** Whether two memories are of one session, as their neighbours are (neighbours.ts). */
export function sameSession(a: MemoryRecord, b: MemoryRecord): boolean {
  return together(placeOf(a), placeOf(b));
}

/**
 * Lifts each of the best SESSION_POOL ranks, in place, by 1 + SESSION_LIFT * (the best other
 * rank of its session in the pool, over the best rank): a match alone in its session is not
 * lifted. Only the pool moves, and only up: the rest rank as they are.
 */
export function liftBySession(ranks: Float64Array, placeAt: (row: number) => Placed): void {
  const pool = topN(ranks, SESSION_POOL);
  const best = pool[0]?.rank ?? 0;
  if (pool.length < 2 || !(best > 0)) return;
  const places = pool.map(({ index }) => placeAt(index));
  const lifts = pool.map((_, k) => {
    let other = 0;
    for (let j = 0; j < pool.length; j++) {
      const rank = (pool[j] as (typeof pool)[number]).rank;
      if (j !== k && rank > other && together(places[k] as Placed, places[j] as Placed)) {
        other = rank;
      }
    }
    return 1 + (SESSION_LIFT * Math.min(other, best)) / best;
  });
  pool.forEach(({ index, rank }, k) => {
    ranks[index] = rank * (lifts[k] as number);
  });
}

/**
 * Spreads the first SPREAD_TOP results over sessions, in place: each is picked, from the best
 * SPREAD_POOL, as the best rank times (1 - SPREAD_COST) when its session is already shown, else
 * its rank. The pool's rank values are then given out again in that order, so every page reads
 * one order (a match taken off page 1 is on page 2). When every match is of one session, nothing
 * moves.
 */
export function spreadOverSessions(ranks: Float64Array, placeAt: (row: number) => Placed): void {
  const pool = topN(ranks, SPREAD_POOL, (i) => (ranks[i] as number) > 0);
  if (pool.length < 2) return;
  const left = pool.map(({ index, rank }) => ({ index, rank, place: placeAt(index) }));
  const shown: Placed[] = [];
  const order: number[] = [];
  while (left.length > 0) {
    let pick = 0;
    if (shown.length < SPREAD_TOP) {
      let bestValue = Number.NEGATIVE_INFINITY;
      left.forEach(({ rank, place }, k) => {
        const value = shown.some((s) => together(s, place)) ? rank * (1 - SPREAD_COST) : rank;
        if (value > bestValue) {
          bestValue = value;
          pick = k;
        }
      });
    }
    const [picked] = left.splice(pick, 1);
    if (!picked) break;
    shown.push(picked.place);
    order.push(picked.index);
  }
  // The pool's ranks, best first, to the picks in order: ties are broken by row order in topN,
  // so a rank is nudged below the one before it when they are equal.
  let previous = Number.POSITIVE_INFINITY;
  order.forEach((index, k) => {
    let rank = (pool[k] as (typeof pool)[number]).rank;
    if (rank >= previous) rank = nextDown(previous);
    ranks[index] = rank;
    previous = rank;
  });
}

/** The largest double below `x` (x > 0 and finite). */
function nextDown(x: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) - 1n);
  return view.getFloat64(0);
}
