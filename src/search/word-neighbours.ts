// The few memories that share the most words with a text: what the save path hands the fact
// judge. One walk of the postings of the text's own words, and the best `k` kept as it goes, so
// a common word that matches most of the store costs a comparison a match, nothing more.
import type { MemoryStatus } from '../storage/records.js';
import type { LexicalIndex } from './lexical-index.js';

export interface WordNeighbour {
  id: string;
  /** Its BM25 score against the text. */
  score: number;
}

/** The `k` memories of `statuses` with the best BM25 score against `text`, best first. */
export function wordNeighbours(
  lexical: LexicalIndex,
  text: string,
  k: number,
  statuses: readonly MemoryStatus[],
): WordNeighbour[] {
  if (k <= 0) return [];
  const matches = lexical.match(text, statuses);
  // The best k, kept sorted (best first): k is small, so an insertion beats a heap.
  const ordinals: number[] = [];
  const scores: number[] = [];
  for (let j = 0; j < matches.count; j++) {
    const score = matches.scores[j] as number;
    if (scores.length === k && score <= (scores[k - 1] as number)) continue;
    let at = scores.length === k ? k - 1 : scores.length;
    // Full: the last one drops out; the worse ones move down one place.
    while (at > 0 && (scores[at - 1] as number) < score) {
      scores[at] = scores[at - 1] as number;
      ordinals[at] = ordinals[at - 1] as number;
      at--;
    }
    scores[at] = score;
    ordinals[at] = matches.ordinals[j] as number;
  }
  // The buffers are the index's own: the ids are read before anything searches again.
  return ordinals.map((ordinal, i) => ({ id: lexical.idAt(ordinal), score: scores[i] as number }));
}
