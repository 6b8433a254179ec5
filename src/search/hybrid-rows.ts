// Which rows of a hybrid search (words and meaning) can reach a page, without scoring every
// match of a common word: the meaning side brings its few hits, each ranked; a row the meaning
// side did not find has a relevance that its BM25 score alone decides, and that rises with it,
// so the walk of top-rows.ts leaves out those that cannot reach any top.
import type { MemoryRecord } from '../storage/records.js';
import { largest } from './best-values.js';
import type { Matches } from './bm25.js';
import type { Dynamics, LexicalIndex } from './lexical-index.js';
import { PageBars } from './page-bars.js';
import { RankedRows } from './ranked-rows.js';
import { fusedRelevance } from './ranking.js';
import { type Filter, filteredMatches, hasTag, type Top } from './top-rows.js';

/** The meaning side of a search: its hits (ids, cosines) and how they fuse with the words. */
export interface MeaningHits {
  ids: readonly string[];
  sims: ArrayLike<number>;
  threshold: number;
  weight: number;
}

/**
 * The marks of one search's hits by ordinal, all 0 between searches: kept, so a search of a large
 * store does not zero megabytes for a few hundred hits.
 */
let marks = new Int32Array(0);

/**
 * Whether `rowsByWordsAndMeaning` can rank with this weight: a row without a cosine then has a
 * relevance of (1 - weight) times its share of the best BM25, which never falls as BM25 rises.
 */
export const prunable = (weight: number): boolean => weight >= 0 && weight <= 1;

/**
 * `Retriever.rank` with a meaning side, pruned, without a minimum score. The rows are those of
 * the exhaustive ranking (the matches by words that `filter` keeps, in their order, then the
 * hits by meaning alone that it keeps, in theirs), with the same relevance, decay score, best
 * BM25 and best cosine, less rows that cannot be among the best of any top: every hit by
 * meaning is scored; a match by words alone is left out when its relevance times each top's
 * ceiling is below what `count` rows already reached there.
 */
export function rowsByWordsAndMeaning(
  index: LexicalIndex,
  lookup: (id: string) => MemoryRecord | undefined,
  matches: Matches,
  filter: Filter,
  tops: readonly Top[],
  meaning: MeaningHits,
): RankedRows {
  const { threshold, weight } = meaning;
  const { ordinals, lexical, n, best } = filteredMatches(index, matches, filter);
  // As the exhaustive ranking reads them: an id found twice keeps its first place, last cosine.
  const sims = new Map(meaning.ids.map((id, i) => [id, meaning.sims[i] as number]));
  const hitIds = [...sims.keys()];
  const hitSims = [...sims.values()];

  // Which word rows are hits: a mark (hit + 1) at each hit's ordinal, read by the one walk.
  let size = 0;
  const hitOrdinals = hitIds.map((id) => {
    const ordinal = index.ordinalOf(id);
    if (ordinal === undefined) return -1;
    size = Math.max(size, ordinal + 1);
    return ordinal;
  });
  if (marks.length < size) marks = new Int32Array(Math.max(size, 2 * marks.length));
  const mark = marks;
  hitOrdinals.forEach((ordinal, k) => {
    if (ordinal >= 0) mark[ordinal] = k + 1;
  });
  const found = new Uint8Array(hitIds.length);
  const simOfRow = new Map<number, number>();
  for (let j = 0; j < n; j++) {
    const ordinal = ordinals[j] as number;
    if (ordinal >= size || mark[ordinal] === 0) continue;
    const k = (mark[ordinal] as number) - 1;
    found[k] = 1;
    simOfRow.set(j, hitSims[k] as number);
  }
  // Cleared for the next search (nothing awaits in between).
  for (const ordinal of hitOrdinals) if (ordinal >= 0) mark[ordinal] = 0;
  // The hits the words missed (or the filter left out of them): read, and kept as a search by
  // meaning alone keeps them.
  const statuses = new Set(filter.statuses);
  const since = filter.since ?? null;
  const tags = filter.tags ?? null;
  const others: MemoryRecord[] = [];
  const otherSims: number[] = [];
  for (let k = 0; k < hitIds.length; k++) {
    const record = found[k] ? undefined : lookup(hitIds[k] as string);
    if (!record || !statuses.has(record.status)) continue;
    if (since !== null && record.last_used < since) continue;
    if (tags !== null && !hasTag(record, tags)) continue;
    others.push(record);
    otherSims.push(hitSims[k] as number);
  }
  let bestSim = threshold;
  for (const sim of simOfRow.values()) bestSim = Math.max(bestSim, sim);
  for (const sim of otherSims) bestSim = Math.max(bestSim, sim);

  // Row i < n is word row i; row n + q is others[q] (BM25 0).
  const total = n + others.length;
  const lexicalOf = (i: number) => (i < n ? (lexical[i] as number) : 0);
  const simOf = (i: number) => (i < n ? simOfRow.get(i) : otherSims[i - n]);
  const relevanceOf = (i: number) =>
    fusedRelevance(lexicalOf(i), best, simOf(i), bestSim, threshold, weight);
  const dynamics: Dynamics = { created_at: 0, last_used: 0, use_count: 0, strength: 0 };
  const scoreOf = (i: number) =>
    filter.score(
      i < n ? index.dynamicsAt(ordinals[i] as number, dynamics) : (others[i - n] as MemoryRecord),
    );

  const bars = new PageBars(tops, total);
  // Below `cutoff` (a BM25 score), a row without a cosine is below every bar: its relevance is
  // (1 - weight) * lexical / best (a share of words near 0 leaves every row to the exact test).
  const share = 1 - weight;
  const cutoffNow = () => (share >= 1e-6 ? bars.cutoff(best / share) : Number.NEGATIVE_INFINITY);
  let cutoff = cutoffNow();
  const seen = new Uint8Array(total);
  const taken: number[] = [];
  const takenScores: number[] = [];
  const takenRelevance: number[] = [];
  const take = (i: number, r: number) => {
    seen[i] = 1;
    const score = scoreOf(i);
    if (!bars.offer(r, score)) return;
    taken.push(i);
    takenScores.push(score);
    takenRelevance.push(r);
    cutoff = cutoffNow();
  };
  // Every hit first (there are `limit` at most), then the best by words, then the rest.
  for (const j of simOfRow.keys()) take(j, relevanceOf(j));
  for (let q = 0; q < others.length; q++) take(n + q, relevanceOf(n + q));
  let first = 0;
  for (const top of tops) first += top.count;
  for (const i of largest(lexical, n, first)) if (!seen[i]) take(i, relevanceOf(i));
  for (let i = 0; i < n; i++) {
    if ((lexical[i] as number) < cutoff || seen[i]) continue;
    const r = fusedRelevance(lexical[i] as number, best, undefined, bestSim, threshold, weight);
    if (bars.mayReach(r)) take(i, r);
  }

  // In the order every row would have, so ties break the same way.
  const order = Int32Array.from(taken.keys()).sort(
    (a, b) => (taken[a] as number) - (taken[b] as number),
  );
  const rows = new RankedRows(true, lookup, index);
  rows.matched = total;
  const relevance = new Float64Array(order.length);
  for (let k = 0; k < order.length; k++) {
    const j = order[k] as number;
    const i = taken[j] as number;
    const id = i < n ? index.idAt(ordinals[i] as number) : (others[i - n] as MemoryRecord).id;
    const ordinal = i < n ? (ordinals[i] as number) : (index.ordinalOf(id) ?? -1);
    rows.push(id, lexicalOf(i), simOf(i), takenScores[j] as number, ordinal);
    relevance[k] = takenRelevance[j] as number;
  }
  rows.relevance = relevance;
  return rows;
}
