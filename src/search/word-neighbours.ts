// The few memories that share the most words with a text: what the save path hands the fact
// judge. The text's rarest words are walked first, up to a bounded number of postings; the
// commoner ones only re-score the best few found so far (each word's postings read once, forward,
// for them in ordinal order), so a long text of common words costs about the same at 100,000
// memories as at 1,000. At 100,000 LoCoMo memories the full walk of every word was 4-5 ms a save
// with facts, most of a save.
import type { MemoryStatus } from '../storage/records.js';
import type { LexicalIndex } from './lexical-index.js';

export interface WordNeighbour {
  id: string;
  /** Its BM25 score against the text. */
  score: number;
}

/**
 * Postings walked at most (words whose memories add up to more are left to the re-scoring; the
 * rarest word is always walked). Below it, which is every text of a store this small, the answer
 * is the exact `k` best.
 */
export const WALK_BUDGET = 4000;
/**
 * The best by the rare words that the commoner ones re-score: at 100,000 LoCoMo memories 9 of
 * the exact 10 best are among them (the 10th most often a tie with the same score).
 */
export const RESCORED = 100;

/** The `k` memories of `statuses` with the best BM25 score against `text`, best first. */
export function wordNeighbours(
  lexical: LexicalIndex,
  text: string,
  k: number,
  statuses: readonly MemoryStatus[],
  budget = WALK_BUDGET,
): WordNeighbour[] {
  if (k <= 0) return [];
  const terms = [...new Set(lexical.termsOf(text))].filter(
    (term) => lexical.documentFrequency(term) > 0,
  );
  const walked = rarestWithin(lexical, terms, budget);
  const rest = terms.filter((term) => !walked.has(term));
  // In the text's order, as a full match takes them: the same ties when nothing is left out.
  const matches = lexical.matchTerms(
    terms.filter((term) => walked.has(term)),
    statuses,
  );
  const best = bestOf(
    matches.ordinals,
    matches.scores,
    matches.count,
    rest.length > 0 ? Math.max(k, RESCORED) : k,
  );
  if (rest.length > 0) {
    // Each commoner word's postings read once, forward, for the best in ordinal order; each
    // score gets the words' shares in the text's order, as one by one.
    const byOrdinal = best.ordinals
      .map((_, i) => i)
      .sort((a, b) => (best.ordinals[a] as number) - (best.ordinals[b] as number));
    const ordinals = Int32Array.from(byOrdinal, (i) => best.ordinals[i] as number);
    const shares = new Float64Array(ordinals.length);
    const scores = Float64Array.from(byOrdinal, (i) => best.scores[i] as number);
    for (const term of rest) {
      lexical.termScores(term, ordinals, shares);
      for (let j = 0; j < scores.length; j++)
        scores[j] = (scores[j] as number) + (shares[j] as number);
    }
    byOrdinal.forEach((i, j) => {
      best.scores[i] = scores[j] as number;
    });
    const order = best.ordinals.map((_, i) => i);
    // Stable: equal scores keep the order they were first met in.
    order.sort((a, b) => (best.scores[b] as number) - (best.scores[a] as number));
    best.ordinals = order.slice(0, k).map((i) => best.ordinals[i] as number);
    best.scores = order.slice(0, k).map((i) => best.scores[i] as number);
  }
  // The buffers are the index's own: the ids are read before anything searches again.
  return best.ordinals.map((ordinal, i) => ({
    id: lexical.idAt(ordinal),
    score: best.scores[i] as number,
  }));
}

/** The rarest of `terms` whose postings add up to at most `budget` (the rarest one always). */
function rarestWithin(
  lexical: LexicalIndex,
  terms: readonly number[],
  budget: number,
): Set<number> {
  const byRarity = [...terms].sort(
    (a, b) => lexical.documentFrequency(a) - lexical.documentFrequency(b),
  );
  const out = new Set<number>();
  let postings = 0;
  for (const term of byRarity) {
    postings += lexical.documentFrequency(term);
    if (out.size > 0 && postings > budget) break;
    out.add(term);
  }
  return out;
}

/** The best `k` of `count` scored ordinals, best first; ties keep their order. */
function bestOf(
  ordinalsIn: Int32Array,
  scoresIn: Float64Array,
  count: number,
  k: number,
): { ordinals: number[]; scores: number[] } {
  // Kept sorted (best first): k is small, so an insertion beats a heap.
  const ordinals: number[] = [];
  const scores: number[] = [];
  for (let j = 0; j < count; j++) {
    const score = scoresIn[j] as number;
    if (scores.length === k && score <= (scores[k - 1] as number)) continue;
    let at = scores.length === k ? k - 1 : scores.length;
    // Full: the last one drops out; the worse ones move down one place.
    while (at > 0 && (scores[at - 1] as number) < score) {
      scores[at] = scores[at - 1] as number;
      ordinals[at] = ordinals[at - 1] as number;
      at--;
    }
    scores[at] = score;
    ordinals[at] = ordinalsIn[j] as number;
  }
  return { ordinals, scores };
}
