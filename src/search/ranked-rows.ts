// What a search answers: its rows in columns (see RankedRows).
import type { MemoryRecord } from '../storage/records.js';

/** A memory that a search found. */
export interface RankedRow {
  record: MemoryRecord;
  /** How well it matches, 0..1 relative to the best match found: words and meaning fused. */
  relevance: number;
  /** Its BM25 score for the query's words: 0 when only its meaning matched, 1 without a query. */
  lexical: number;
  /** The cosine of its meaning to the query's, when that is a match. */
  similarity: number | undefined;
  /** Its decay score, as the filter answered it. */
  score: number;
}

/**
 * What a search found, one row a memory. Kept in columns: a query's words can match most of the
 * store, and an object a row would cost more (time, and garbage to collect) than the search
 * itself. `row(i)` (or iterating) gives one row as an object, for the few a page shows.
 */
export class RankedRows implements Iterable<RankedRow> {
  /** The memories' ids: a row's record is read only when `row(i)` asks for it. */
  readonly ids: string[] = [];
  readonly lexical: number[] = [];
  readonly score: number[] = [];
  /** Filled by the retriever once every row is in. */
  relevance: Float64Array = new Float64Array(0);
  /** How many memories matched: more than the rows when the retriever left out sure losers. */
  matched = 0;
  /** With meaning on: NaN where it did not match (a number, so the column stays doubles). */
  readonly similarity: number[] = [];
  /** The records read so far, by row. */
  private readonly read = new Map<number, MemoryRecord>();

  constructor(
    private readonly withMeaning: boolean,
    private readonly lookup: (id: string) => MemoryRecord | undefined,
  ) {}

  get length(): number {
    return this.ids.length;
  }

  push(id: string, lexical: number, similarity: number | undefined, score: number): void {
    this.ids.push(id);
    this.lexical.push(lexical);
    this.score.push(score);
    if (this.withMeaning) this.similarity.push(similarity ?? Number.NaN);
  }

  similarityOf(i: number): number | undefined {
    const similarity = this.withMeaning ? (this.similarity[i] as number) : Number.NaN;
    return Number.isNaN(similarity) ? undefined : similarity;
  }

  /**
   * The record of row `i`, read at its first asking and kept for the rest of this search: the
   * ranking's lifts and the page ask for the same best rows in turn. The store's own cache of
   * recent records (JSONL's MemoryTable) answers a repeat too, but through the engine's view and
   * its least-recently-used bookkeeping; this is one lookup by row, for this search only.
   */
  record(i: number): MemoryRecord {
    let record = this.read.get(i);
    if (record === undefined) {
      record = this.lookup(this.ids[i] as string) as MemoryRecord;
      this.read.set(i, record);
    }
    return record;
  }

  row(i: number): RankedRow {
    return {
      record: this.record(i),
      relevance: this.relevance[i] as number,
      lexical: this.lexical[i] as number,
      similarity: this.similarityOf(i),
      score: this.score[i] as number,
    };
  }

  *[Symbol.iterator](): Iterator<RankedRow> {
    for (let i = 0; i < this.length; i++) yield this.row(i);
  }
}
