// Which rows of a search can reach a page: the decay score of a match is worked out only when
// its relevance, times the most its value can reach, is not beaten outright by rows already
// scored (best-values.ts). Retriever.rank answers what these leave.
import type { MemoryRecord, MemoryStatus } from '../storage/records.js';
import { BestValues, largest } from './best-values.js';
import type { Matches, RareMatches } from './bm25.js';
import { type Dynamics, LAST_USED, type LexicalIndex } from './lexical-index.js';
import { PageBars } from './page-bars.js';
import { RankedRows } from './ranked-rows.js';

/** Which memories a search considers, and their decay scores. */
export interface Filter {
  /** The statuses a search looks at: picked in the index's walk, without reading a record. */
  statuses: readonly MemoryStatus[];
  /** Only memories last used at or after this (epoch seconds), when set. */
  since?: number | null | undefined;
  /** Only memories with one of these tags (lowercased), when set: each match's record is read. */
  tags?: ReadonlySet<string> | null | undefined;
  /**
   * A memory's decay score from the numbers it depends on: asked only of the matches a page
   * could show (see `Top`), from the index's columns, without reading the record.
   */
  score(memory: Dynamics): number;
  /** Matches scoring below this are left out too (then every match needs its score). */
  minScore: number | null;
}

/** Whether `record` has one of `tags` (lowercased), case aside. */
export function hasTag(record: MemoryRecord, tags: ReadonlySet<string>): boolean {
  return record.meta.tags.some((t) => tags.has(t.toLowerCase()));
}

/**
 * A ranking the caller takes the `count` best rows of (best first, ties in row order), by
 * `value(relevance, score)`. The value must never exceed `relevance * ceiling`, in floating
 * point too: relevance times a factor that is at most `ceiling` is (rounding keeps the order).
 * That bound is what lets the retriever skip a row without its decay score.
 */
export interface Top {
  count: number;
  value(relevance: number, score: number): number;
  ceiling: number;
  /** Only rows of a value above 0 are taken (a row at 0 or below is never among the best). */
  positive?: boolean;
}

/**
 * The matches `filter`'s `since` and `tags` keep, in their order, and the best BM25 score of
 * those (the index's own buffers when neither is set; else copies: the index's are its own).
 */
export function filteredMatches(
  index: LexicalIndex,
  matches: Matches,
  filter: Filter,
): { ordinals: Int32Array; lexical: Float64Array; n: number; best: number } {
  const since = filter.since ?? null;
  const tags = filter.tags ?? null;
  if (since === null && tags === null) {
    return {
      ordinals: matches.ordinals,
      lexical: matches.scores,
      n: matches.count,
      best: matches.best,
    };
  }
  const n = matches.count;
  const ordinals = new Int32Array(n);
  const lexical = new Float64Array(n);
  let k = 0;
  let best = 0;
  for (let j = 0; j < n; j++) {
    const ordinal = matches.ordinals[j] as number;
    if (since !== null && index.valueAt(ordinal, LAST_USED) < since) continue;
    if (tags !== null && !hasTag(index.recordAt(ordinal), tags)) continue;
    ordinals[k] = ordinal;
    const score = matches.scores[j] as number;
    lexical[k++] = score;
    if (score > best) best = score;
  }
  return { ordinals, lexical, n: k, best };
}

/**
 * `Retriever.rank` by words alone, pruned, without a minimum score: the common search. The same rows as
 * `contenders` would leave (or fewer: a row scored and beaten in every top is dropped too), but
 * a row that cannot reach any top costs a division and a comparison, read from the index's
 * buffers where they are: the matches of a common word are most of the store, and copying
 * them, or keeping a relevance for each, cost more than the rest of the search.
 */
export function rowsByWords(
  index: LexicalIndex,
  lookup: (id: string) => MemoryRecord | undefined,
  matches: Matches,
  filter: Filter,
  tops: readonly Top[],
): RankedRows {
  return pagedRows(index, lookup, matches, filter, tops, undefined).rows;
}

/**
 * `rowsByWords` of the matches of a query's rarer words (`LexicalIndex.matchRare`), when the
 * memories those leave out cannot reach any top: each scores at most `rare.restBound`, so its
 * relevance is at most that over the best match. Undefined when one could: match in full.
 * Needs no `since` or `tags` in the filter (they change which match is the best).
 */
export function rowsByRareWords(
  index: LexicalIndex,
  lookup: (id: string) => MemoryRecord | undefined,
  rare: RareMatches,
  filter: Filter,
  tops: readonly Top[],
): RankedRows | undefined {
  if (rare.count === 0 || rare.restBound >= rare.best) return undefined;
  // The bars are as deep as they would be over every match (a top of more rows than the
  // rare ones would else take them all and skip the rest).
  const { rows, bars } = pagedRows(index, lookup, rare, filter, tops, rare.count + rare.restOnly);
  if (bars.mayReach(rare.restBound / rare.best)) return undefined;
  return rows;
}

function pagedRows(
  index: LexicalIndex,
  lookup: (id: string) => MemoryRecord | undefined,
  matches: Matches,
  filter: Filter,
  tops: readonly Top[],
  matched: number | undefined,
): { rows: RankedRows; bars: PageBars } {
  const { ordinals, lexical, n, best } = filteredMatches(index, matches, filter);
  const rows = new RankedRows(false, lookup, index);
  rows.matched = matched ?? n;

  const bars = new PageBars(tops, rows.matched);
  // The same test as `mayReach` on a BM25 score, without the division.
  let cutoff = bars.cutoff(best);
  const dynamics: Dynamics = { created_at: 0, last_used: 0, use_count: 0, strength: 0 };
  const taken: number[] = [];
  const takenScores: number[] = [];
  const take = (i: number) => {
    const r = (lexical[i] as number) / best;
    const score = filter.score(index.dynamicsAt(ordinals[i] as number, dynamics));
    if (!bars.offer(r, score)) return;
    taken.push(i);
    takenScores.push(score);
    cutoff = bars.cutoff(best);
  };
  let first = 0;
  for (const top of tops) first += top.count;
  const firstRows = largest(lexical, n, first);
  for (const i of firstRows) take(i);
  // Then the rest, skipping those: found by walking them in order beside the rows, rather than
  // marked in an array of every match (half a megabyte a search at a million, which the GC
  // then chased).
  const skip = firstRows.slice().sort();
  let next = 0;
  for (let i = 0; i < n; i++) {
    if ((lexical[i] as number) < cutoff) continue;
    while (next < skip.length && (skip[next] as number) < i) next++;
    if (skip[next] === i) continue;
    if (bars.mayReach((lexical[i] as number) / best)) take(i);
  }
  // In the order every row would have, so ties break the same way.
  const order = Int32Array.from(taken.keys()).sort(
    (a, b) => (taken[a] as number) - (taken[b] as number),
  );
  const relevance = new Float64Array(order.length);
  for (let k = 0; k < order.length; k++) {
    const j = order[k] as number;
    const i = taken[j] as number;
    const ordinal = ordinals[i] as number;
    rows.push(
      index.idAt(ordinal),
      lexical[i] as number,
      undefined,
      takenScores[j] as number,
      ordinal,
    );
    relevance[k] = (lexical[i] as number) / best;
  }
  rows.relevance = relevance;
  return { rows, bars };
}

/**
 * Which of `n` rows can be among the best of some top, scoring (into `scores`) only those. The
 * rows of highest relevance go first, so each top's bar is high before the rest are looked at;
 * then a row is skipped when relevance times the top's ceiling (what its value can reach at
 * most) is below the bar of every top: `count` rows already beat it outright there.
 */
export function contenders(
  scoreOf: (i: number) => number,
  n: number,
  relevance: Float64Array,
  scores: Float64Array,
  tops: readonly Top[],
): { rows: Uint8Array; count: number } {
  const rows = new Uint8Array(n);
  let count = 0;
  // No bar holds more than the n rows there are: a caller's count (a page far past the last)
  // is not an allocation. Past n offers every row is taken, so the bars behave the same.
  const bars = tops.map((top) => new BestValues(Math.min(top.count, n)));
  const ceilings = Float64Array.from(tops, (top) => top.ceiling);
  // Each top's bar, read again only when a row taken may have raised it. A positive-only top
  // never takes a row that cannot rise above 0.
  const floorOf = (t: number) => {
    const floor = (bars[t] as BestValues).floor;
    return (tops[t] as Top).positive ? Math.max(0, floor) : floor;
  };
  const floors = Float64Array.from(tops, (_, t) => floorOf(t));
  const take = (i: number) => {
    rows[i] = 1;
    count++;
    const r = relevance[i] as number;
    const score = Number.isNaN(scores[i] as number) ? scoreOf(i) : (scores[i] as number);
    scores[i] = score;
    for (let t = 0; t < tops.length; t++) {
      const top = tops[t] as Top;
      const bar = bars[t] as BestValues;
      const value = top.value(r, score);
      if (!top.positive || value > 0) bar.offer(value);
      floors[t] = floorOf(t);
    }
  };
  let first = 0;
  for (const top of tops) first += top.count;
  for (const i of largest(relevance, n, first)) take(i);
  const positive = tops.map((top) => top.positive === true);
  for (let i = 0; i < n; i++) {
    if (rows[i]) continue;
    const r = relevance[i] as number;
    for (let t = 0; t < tops.length; t++) {
      // Written so that a NaN keeps the row: only a sure loser is skipped (for a positive-only
      // top, a row that reaches 0 at most is one too).
      const reach = r * (ceilings[t] as number);
      const floor = floors[t] as number;
      if (!(reach < floor || (reach <= 0 && positive[t]))) {
        take(i);
        break;
      }
    }
  }
  return { rows, count };
}
