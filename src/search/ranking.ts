// How a relevant memory is ranked, and how review candidates are blended into a page.

/**
 * The share of the decay's weight a clear word match is spared: the best match (relevance 1)
 * keeps 40% of it, a faint one nearly all. At 0.6, of two near-equal matches (within 5%) saved
 * 5 days apart, the newer still comes first (test/memory/search.test.ts).
 */
export const CLEAR_MATCH_SPARES = 0.6;

/**
 * rank = relevance * (1 - d * (1 - min(1, score))), d = w * (1 - 0.6 * relevance). Relevance
 * (0..1, the best match is 1) leads; the decay score can take off at most the share d, which
 * shrinks as the match gets clearer: of two equal matches the livelier one comes first, and an
 * old memory that matches well still beats a fresh one that barely matches. (With d = w, memories
 * of months ago that matched a question best lost to last week's that matched less: on LoCoMo
 * saved at its sessions' dates, multi-hop questions fell from 0.535 to 0.472.)
 */
export function combinedRank(relevance: number, score: number, decayWeight: number): number {
  const share = decayWeight * (1 - CLEAR_MATCH_SPARES * Math.min(1, relevance));
  // 1 - share * (1 - s) rather than (1 - share) + share * s: exactly 1 at s = 1, never above,
  // so the value never exceeds relevance * combinedRank(1, 1, w) (what pruning relies on).
  return relevance * (1 - share * (1 - Math.min(1, score)));
}

export interface Ranked {
  index: number;
  rank: number;
}

/** The `n` best by rank, best first, without sorting all of them. */
export function topN(
  ranks: Float64Array | Float32Array | number[],
  n: number,
  keep?: (i: number) => boolean,
): Ranked[] {
  if (n <= 0) return [];
  // A min-heap of size n over (rank, -index), so ties keep insertion order.
  const heap: Ranked[] = [];
  const less = (a: Ranked, b: Ranked) =>
    a.rank < b.rank || (a.rank === b.rank && a.index > b.index);
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && less(heap[l] as Ranked, heap[m] as Ranked)) m = l;
      if (r < heap.length && less(heap[r] as Ranked, heap[m] as Ranked)) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m] as Ranked, heap[i] as Ranked];
      i = m;
    }
  };
  const up = (i: number) => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(heap[i] as Ranked, heap[p] as Ranked)) return;
      [heap[i], heap[p]] = [heap[p] as Ranked, heap[i] as Ranked];
      i = p;
    }
  };
  for (let i = 0; i < ranks.length; i++) {
    const rank = ranks[i] as number;
    // Full, and not above the least kept (a later index loses a tie): nothing to make or ask,
    // as for most rows of a large index.
    if (heap.length === n && !(rank > (heap[0] as Ranked).rank)) continue;
    if (keep && !keep(i)) continue;
    const item = { index: i, rank };
    if (heap.length < n) {
      heap.push(item);
      up(heap.length - 1);
    } else if (less(heap[0] as Ranked, item)) {
      heap[0] = item;
      down(0);
    }
  }
  return heap.sort((a, b) => b.rank - a.rank || a.index - b.index);
}

/** Two primaries, then one review candidate, until one list runs out; then the rest. */
export function interleave<T>(primary: readonly T[], review: readonly T[]): T[] {
  const out: T[] = [];
  let p = 0;
  let r = 0;
  while (p < primary.length || r < review.length) {
    for (let k = 0; k < 2 && p < primary.length; k++) out.push(primary[p++] as T);
    if (r < review.length) out.push(review[r++] as T);
    if (p >= primary.length) while (r < review.length) out.push(review[r++] as T);
  }
  return out;
}

/**
 * Relevance from both sides of a hybrid search, 0..1. The lexical side is BM25 over the best
 * BM25 of the query; the vector side is how far the cosine rises above the similarity threshold,
 * over how far the best one does, so a memory just at the threshold adds nothing and the closest
 * adds the whole weight `w`. A side that did not match gives 0.
 */
export function fusedRelevance(
  lexical: number,
  bestLexical: number,
  sim: number | undefined,
  bestSim: number,
  threshold: number,
  w: number,
): number {
  const lex = bestLexical > 0 ? lexical / bestLexical : 0;
  const vec =
    sim === undefined || bestSim <= threshold ? 0 : (sim - threshold) / (bestSim - threshold);
  return (1 - w) * lex + w * Math.max(0, vec);
}
