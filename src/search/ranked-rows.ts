// What a search answers: its rows in columns (see RankedRows).
import type { MemoryRecord } from '../storage/records.js';
import { RANK_FACTS, type RowFacts, rowFacts } from './rank-facts.js';

/** What rows read of the index at `push`: a memory's creation time and its rank facts. */
export interface FactsSource {
  valueAt(ordinal: number, column: number): number;
  rankFactsAt(ordinal: number, out: number[]): void;
  learnRankFacts(record: MemoryRecord): void;
}

/** Numbers a row keeps of the index: its creation time, then its RANK_FACTS. */
const ROW_FACTS = 1 + RANK_FACTS;

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
  /** By row, ROW_FACTS numbers: NaN for a row the index has no facts of. */
  private readonly factValues: number[] = [];
  /** By row, what `facts` answered (null: the index had none), once asked. */
  private readonly madeFacts: (RowFacts | null)[] = [];

  /**
   * `index`: where `push` reads a row's facts, as it is at that moment (a search awaits between
   * its match and its ranking, and the index may be renumbered meanwhile).
   */
  readonly #index: FactsSource | undefined;

  constructor(
    private readonly withMeaning: boolean,
    private readonly lookup: (id: string) => MemoryRecord | undefined,
    index?: FactsSource,
  ) {
    this.#index = index;
  }

  get length(): number {
    return this.ids.length;
  }

  /** A row; `ordinal`: its place in the index the rows were made with (-1: not in it). */
  push(
    id: string,
    lexical: number,
    similarity: number | undefined,
    score: number,
    ordinal = -1,
  ): void {
    this.ids.push(id);
    this.lexical.push(lexical);
    this.score.push(score);
    if (this.withMeaning) this.similarity.push(similarity ?? Number.NaN);
    const index = this.#index;
    if (index && ordinal >= 0) {
      this.factValues.push(index.valueAt(ordinal, 0));
      index.rankFactsAt(ordinal, this.factValues);
    } else {
      for (let c = 0; c < ROW_FACTS; c++) this.factValues.push(Number.NaN);
    }
  }

  /**
   * What the ranking reads of row `i` without its record (rank-facts.ts), or undefined when the
   * index had none of it (a match by meaning alone, a memory of another namespace).
   */
  facts(i: number): RowFacts | undefined {
    // Made once a row: the lifts and both session passes ask for the same rows' facts.
    const made = this.madeFacts[i];
    if (made !== undefined) return made ?? undefined;
    const at = i * ROW_FACTS;
    const values = this.factValues;
    let known = true;
    for (let k = at; k < at + ROW_FACTS; k++) if (Number.isNaN(values[k])) known = false;
    const facts = known ? rowFacts(values[at] as number, values, at + 1) : null;
    this.madeFacts[i] = facts;
    return facts ?? undefined;
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
      // Read whole: a row whose facts the index did not know gives them for the next search.
      if (record && Number.isNaN(this.factValues[i * ROW_FACTS + 1] as number)) {
        this.#index?.learnRankFacts(record);
      }
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
