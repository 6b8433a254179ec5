// A words index's vocabulary kept to what its documents hold: the Tokenizer numbers every stem it
// has seen and the index keeps a document frequency a number, so updates and deletions to ever
// new words (a tenant's, a synced vault's) grew both without bound, whatever was kept.
import type { Bm25Index } from './bm25.js';
import type { Tokenizer } from './tokenizer.js';

/** The vocabulary is never compacted below this many stems. */
const MIN_CHECK = 65_536;

export class VocabularyCompaction {
  /** Vocabulary size at which to count again how much of it a live document still holds. */
  private nextCheck = MIN_CHECK;

  constructor(
    private readonly tokenizer: Tokenizer,
    private readonly bm25: Bm25Index<unknown>,
  ) {}

  /**
   * After a change: forgets the stems no live document holds once they are most of the
   * vocabulary. Counted only when the vocabulary has doubled since, so the cost is amortised
   * over the words learned (300 updates of one memory to 6,000 new words held 290 MB).
   */
  afterChange(): void {
    const size = this.tokenizer.vocabularySize;
    if (size < this.nextCheck) return;
    let live = 0;
    for (let term = 0; term < size; term++) if (this.bm25.holds(term)) live++;
    if (live * 2 < size) {
      this.bm25.renumberTerms(
        this.tokenizer.compact((term) => this.bm25.holds(term)),
        live,
      );
    }
    this.nextCheck = Math.max(MIN_CHECK, 2 * this.tokenizer.vocabularySize);
  }
}
