import { KeyIndex, stringHash } from '../platform/key-index.js';
import { withRoom } from '../platform/room.js';
import { adopt, type Bm25State, checkState, roomy } from './bm25-state.js';
import { TermPostings } from './term-postings.js';
import { idfOf, type Matches, type RareMatches, TermWalk, type WalkIndex } from './term-walk.js';

export type { Matches, RareMatches } from './term-walk.js';

export interface Bm25Params {
  k1: number;
  b: number;
  /** How many numbers each document carries beside its words (`add`'s `values`). */
  values?: number;
  /** Told when the documents' ordinals changed (a vacuum). */
  renumbered?: () => void;
}

export interface LexicalHits<D = unknown> {
  ids: string[];
  scores: number[];
  /** The payload each hit was added with. */
  docs: D[];
}

/** The numbers of work `stateInSteps` does between two turns of the event loop. */
const STATE_SLICE = 500_000;

/** Every class of document (bits 1..31). */
export const ALL_CLASSES = ~1;

/**
 * An incremental BM25 index (Lucene's idf, ln(1 + (N - df + 0.5) / (df + 0.5))) over term ids
 * (small integers from the Tokenizer's vocabulary). Documents get ordinals; a term's postings
 * are kept in term-postings.ts. A removed document leaves dead postings behind that searches
 * skip and `vacuum` drops.
 */
export class Bm25Index<D = unknown> {
  private readonly k1: number;
  private readonly b: number;
  private readonly ordinalOf = new KeyIndex<string>(
    stringHash,
    (ordinal) => this.ids[ordinal] ?? undefined,
  );
  /** Told after `vacuum` renumbered the documents. */
  private readonly renumbered: (() => void) | undefined;
  private ids: (string | null)[] = [];
  /** By ordinal: the number of terms, and the class (0 once removed): typed, for the walk. */
  private lengths = new Int32Array(1024);
  private classes = new Uint8Array(1024);
  private docs: (D | undefined)[] = [];
  /** By term id: which documents hold it, and how often. */
  private readonly terms = new TermPostings();
  private live = 0;
  private totalLength = 0;
  private changes = 0;
  /** A match's buffers. */
  private readonly walk = new TermWalk();

  // b 0.3 rather than the textbook 0.75: a memory's extra words are mostly more facts, not
  // padding. On LoCoMo (bench/recall.ts) it lifts turn recall_any@5 from 0.594 to 0.623.
  constructor(params: Bm25Params = { k1: 1.2, b: 0.3 }) {
    this.k1 = params.k1;
    this.b = params.b;
    this.values = Array.from({ length: params.values ?? 0 }, () => new Float64Array(1024));
    this.renumbered = params.renumbered;
  }

  /**
   * Moves on with every change to the documents or their words (not with a `freeze`, which keeps
   * them): what a state taken in steps (`stateInSteps`) is checked against between steps.
   */
  get revision(): number {
    return this.changes;
  }

  /** Ordinals given so far (live or not): `match` answers ordinals below it. */
  get ordinals(): number {
    return this.ids.length;
  }

  /** By column, by ordinal: the numbers each document carries (typed: no object a document). */
  private values: Float64Array[];

  /** Value `column` of the document at `ordinal`. */
  valueAt(ordinal: number, column: number): number {
    return (this.values[column] as Float64Array)[ordinal] as number;
  }

  /**
   * Sets one number of the document at `ordinal`, for a value derived from the document that a
   * caller fills in later: not a change (the revision stays).
   */
  setValueAt(ordinal: number, column: number, value: number): void {
    (this.values[column] as Float64Array)[ordinal] = value;
  }

  /** The ordinal of a live document (what `match` answers), if it is one. */
  ordinal(id: string): number | undefined {
    return this.ordinalOf.get(id);
  }

  /** The class of the document at `ordinal` (0 once removed). */
  classAt(ordinal: number): number {
    return this.classes[ordinal] as number;
  }

  private setValues(ordinal: number, values: ArrayLike<number> | undefined): void {
    if (!values) return;
    for (let c = 0; c < this.values.length; c++) {
      (this.values[c] as Float64Array)[ordinal] = values[c] as number;
    }
  }

  get size(): number {
    return this.live;
  }

  /**
   * `cls` (1..31) is what a search can pick documents by without reading their payload (the
   * memories' status): only the classes a search asks for are scored. Answers its ordinal.
   */
  add(
    id: string,
    terms: ArrayLike<number>,
    previousTerms?: readonly number[],
    doc?: D,
    cls = 1,
    values?: ArrayLike<number>,
  ): number {
    if (this.ordinalOf.has(id)) this.remove(id, previousTerms ?? []);
    this.changes++;
    const ordinal = this.ids.length;
    if (ordinal >= this.lengths.length) this.growOrdinals(ordinal + 1);
    this.ids.push(id);
    this.docs.push(doc);
    this.lengths[ordinal] = terms.length;
    this.classes[ordinal] = cls;
    this.setValues(ordinal, values);
    this.ordinalOf.set(id, ordinal);
    this.live++;
    this.totalLength += terms.length;
    this.terms.add(ordinal, terms);
    return ordinal;
  }

  /** The payload a live document was added with. */
  doc(id: string): D | undefined {
    const ordinal = this.ordinalOf.get(id);
    return ordinal === undefined ? undefined : this.docs[ordinal];
  }

  /** Replaces the payload (and class) of a document whose words did not change. */
  setDoc(id: string, doc: D, cls = 1, values?: ArrayLike<number>): void {
    const ordinal = this.ordinalOf.get(id);
    if (ordinal === undefined) return;
    this.changes++;
    this.docs[ordinal] = doc;
    this.classes[ordinal] = cls;
    this.setValues(ordinal, values);
  }

  /** The id of the document at `ordinal`, as `match` answered it. */
  idAt(ordinal: number): string {
    return this.ids[ordinal] as string;
  }

  /** The payload of the document at `ordinal`, as `match` answered it. */
  docAt(ordinal: number): D {
    return this.docs[ordinal] as D;
  }

  /** `terms` must be the ones the document was added with (to keep document frequencies). */
  remove(id: string, terms: readonly number[]): void {
    const ordinal = this.ordinalOf.get(id);
    if (ordinal === undefined) return;
    this.changes++;
    this.ordinalOf.delete(id);
    this.ids[ordinal] = null;
    this.docs[ordinal] = undefined;
    this.totalLength -= this.lengths[ordinal] as number;
    this.lengths[ordinal] = 0;
    this.classes[ordinal] = 0;
    this.live--;
    this.terms.remove(terms);
    if (this.ids.length > 1024 && this.ids.length > 2 * this.live) this.vacuum();
  }

  clear(): void {
    this.changes++;
    this.ordinalOf.clear();
    this.ids = [];
    this.lengths = new Int32Array(1024);
    this.classes = new Uint8Array(1024);
    this.values = this.values.map(() => new Float64Array(1024));
    this.docs = [];
    this.terms.clear();
    this.live = 0;
    this.totalLength = 0;
  }

  /** Every live document that shares a term with the query, with its BM25 score. */
  search(queryTerms: readonly number[]): LexicalHits<D> {
    const hits: LexicalHits<D> = { ids: [], scores: [], docs: [] };
    const { ordinals, scores, count } = this.match(queryTerms, ALL_CLASSES);
    for (let i = 0; i < count; i++) {
      const ordinal = ordinals[i] as number;
      hits.ids.push(this.ids[ordinal] as string);
      hits.scores.push(scores[i] as number);
      hits.docs.push(this.docs[ordinal] as D);
    }
    return hits;
  }

  /**
   * The live documents of the classes in `classMask` (bit `c` for class `c`) that share a term
   * with the query, with their BM25 scores, in the order they were first met (the rarest
   * term's postings, then the new ones of the next rarest): the order ties keep. Answered in
   * buffers this index reuses: read them before it changes or searches again. Payloads are not
   * touched (`docAt` reads the few wanted): a common word can match most of the index.
   */
  match(queryTerms: readonly number[], classMask: number): Matches {
    return this.walk.match(this.walkIndex(), queryTerms, classMask);
  }

  /**
   * `match` of the documents that hold one of the query's rarer terms, each with its whole
   * score, when the query's commonest terms hold enough postings for that to pay (term-walk.ts);
   * a document left out scores at most `restBound`. Undefined: `match` it.
   */
  matchRare(queryTerms: readonly number[], classMask: number): RareMatches | undefined {
    return this.walk.matchRare(this.walkIndex(), queryTerms, classMask);
  }

  private walkIndex(): WalkIndex {
    const { k1, b, lengths, classes, terms, live } = this;
    return {
      k1,
      b,
      lengths,
      classes,
      terms,
      live,
      avgLength: this.totalLength / this.live || 1,
      ordinals: this.ids.length,
    };
  }

  /** Live documents that hold `term`: about the postings a walk of it reads. */
  documentFrequency(term: number): number {
    return this.terms.documentFrequency(term);
  }

  /**
   * What `term` adds to the BM25 score of the document at `ordinal`, as `match` counts it (0
   * when it does not hold it): a binary search of the term's postings, which are in ordinal
   * order (a document is numbered when added, and a freeze or vacuum keeps the order).
   */
  termScore(term: number, ordinal: number): number {
    const df = this.documentFrequency(term);
    if (df === 0) return 0;
    const tf = this.terms.tf(term, ordinal);
    if (tf === 0) return 0;
    return this.share(idfOf(this.live, df), tf, ordinal, this.totalLength / this.live || 1);
  }

  /** What a term of `idf` said `tf` times adds to the score of the document at `ordinal`. */
  private share(idf: number, tf: number, ordinal: number, avgLength: number): number {
    const length = this.lengths[ordinal] as number;
    const norm = this.k1 * (1 - this.b + (this.b * length) / avgLength);
    return (idf * tf * (this.k1 + 1)) / (tf + norm);
  }

  /**
   * `termScore(term, o)` into `scores[k]` for each `o = ordinals[k]` (rising): the same numbers
   * as asking one by one, the postings read once forward.
   */
  termScores(term: number, ordinals: Int32Array, scores: Float64Array): void {
    const tfs = new Int32Array(ordinals.length);
    const df = this.documentFrequency(term);
    if (df > 0) this.terms.tfsOf(term, ordinals, tfs);
    const avgLength = this.totalLength / this.live || 1;
    const idf = idfOf(this.live, df);
    for (let k = 0; k < ordinals.length; k++) {
      const tf = tfs[k] as number;
      scores[k] = tf === 0 ? 0 : this.share(idf, tf, ordinals[k] as number, avgLength);
    }
  }

  private growOrdinals(size: number): void {
    const next = Math.max(size, this.lengths.length * 2);
    const lengths = new Int32Array(next);
    lengths.set(this.lengths);
    this.lengths = lengths;
    const classes = new Uint8Array(next);
    classes.set(this.classes);
    this.classes = classes;
    this.values = this.values.map((column) => {
      const grown = new Float64Array(next);
      grown.set(column);
      return grown;
    });
  }

  /**
   * Moves every posting into the typed base (dropping dead ones when `remap` renumbers
   * documents: -1 for a removed one): the compact form, and the one `state` answers.
   */
  freeze(remap?: Int32Array): void {
    this.terms.freeze(remap);
  }

  /** Whether a live document holds `term`. */
  holds(term: number): boolean {
    return this.terms.documentFrequency(term) > 0;
  }

  /**
   * Gives term `t` the id `remap[t]` (-1: dropped with its postings, which no live document
   * has), the kept terms in their order (`Tokenizer.compact`); `terms` of them are kept.
   */
  renumberTerms(remap: Int32Array, terms: number): void {
    this.changes++;
    this.terms.renumberTerms(remap, terms);
  }

  /**
   * The index as typed arrays (frozen first); `keyOf` says what to keep of each live id, told
   * the document's number as a hint (KeyOf in storage/engine.ts).
   */
  state(keyOf: (id: string, hint?: number) => number): Bm25State {
    const steps = this.stateInSteps(keyOf);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /**
   * `state` a slice at a time, for a caller that lets the event loop run between slices (a
   * sidecar taken while calls are answered): each `next()` does about `slice` numbers' work
   * (a few tens of milliseconds at most). The caller must call `next()` only while `revision`
   * is what it was at the first: a change between steps makes what was taken of no one point,
   * and the generator is then dropped. The postings moved meanwhile become the index's own base
   * at the end, as after `freeze` (the documents are the same).
   */
  *stateInSteps(
    keyOf: (id: string, hint?: number) => number,
    slice = STATE_SLICE,
  ): Generator<void, Bm25State> {
    if (this.terms.hasLoose) {
      yield* this.terms.freezeSteps(undefined, slice);
      yield;
    }
    const count = this.ids.length;
    const keys = new Int32Array(count);
    const step = Math.max(1, slice >> 4);
    for (let from = 0; from < count; from += step) {
      const to = Math.min(count, from + step);
      for (let i = from; i < to; i++) {
        const id = this.ids[i];
        keys[i] = id === null || id === undefined ? -1 : keyOf(id, i);
      }
      yield;
    }
    const lengths = this.lengths.slice(0, count);
    const classes = this.classes.slice(0, count);
    const { baseOrdinals, baseTfs, baseStarts } = this.terms;
    const df = this.terms.df.slice(0, baseStarts.length - 1);
    yield;
    const values: Float64Array[] = [];
    for (const column of this.values) {
      values.push(column.slice(0, count));
      yield;
    }
    const idTable = this.ordinalOf.buckets();
    // The base is replaced, never changed in place: no copy of it is needed.
    return {
      idTable,
      keys,
      lengths,
      classes,
      starts: baseStarts,
      ordinals: baseOrdinals,
      tfs: baseTfs,
      df,
      values,
    };
  }

  /** Takes `state` as the whole index; `idOf` turns a key back into its id. */
  restore(state: Bm25State, idOf: (key: number) => string): void {
    checkState(state);
    this.clear();
    const count = state.keys.length;
    this.ids = new Array(count);
    this.docs = new Array(count);
    if (state.values.length !== this.values.length) {
      throw new Error(
        `the index keeps ${this.values.length} values a document, not ${state.values.length}`,
      );
    }
    // Each column of a number a document kept as read where it was read with room (a sidecar's,
    // see ListenerPersistence.grows): a copy of a million's was 0.3 s of a start.
    const room = withRoom(count);
    this.lengths = roomy(state.lengths, room, (n, b) =>
      b ? new Int32Array(b, 0, n) : new Int32Array(n),
    );
    this.classes = roomy(state.classes, room, (n, b) =>
      b ? new Uint8Array(b, 0, n) : new Uint8Array(n),
    );
    this.values = state.values.map((column) =>
      roomy(column, room, (n, b) => (b ? new Float64Array(b, 0, n) : new Float64Array(n))),
    );
    let live = 0;
    let totalLength = 0;
    for (let i = 0; i < count; i++) {
      const key = state.keys[i] as number;
      if (key === -1) {
        this.ids[i] = null;
        continue;
      }
      const id = idOf(key);
      if (typeof id !== 'string')
        throw new Error(`document ${i} is of no memory the sidecar lists`);
      this.ids[i] = id;
      live++;
      totalLength += state.lengths[i] as number;
    }
    // A copy: the table is written to after, and a state may be restored more than once.
    if (!state.idTable || !this.ordinalOf.adopt(state.idTable.slice(), count, live)) {
      this.ordinalOf.rebuild(count);
    }
    this.live = live;
    this.totalLength = totalLength;
    // Never a view of a larger buffer, which would keep all of it alive.
    this.terms.restore(adopt(state.ordinals), adopt(state.tfs), adopt(state.starts), state.df);
  }

  /** Renumbers live documents and drops dead postings. */
  private vacuum(): void {
    this.changes++;
    const remap = new Int32Array(this.ids.length).fill(-1);
    const ids: string[] = [];
    const lengths = new Int32Array(this.lengths.length);
    const classes = new Uint8Array(this.classes.length);
    const values = this.values.map((column) => new Float64Array(column.length));
    const docs: (D | undefined)[] = [];
    this.ids.forEach((id, ordinal) => {
      if (id === null) return;
      remap[ordinal] = ids.length;
      lengths[ids.length] = this.lengths[ordinal] as number;
      classes[ids.length] = this.classes[ordinal] as number;
      values.forEach((column, c) => {
        column[ids.length] = (this.values[c] as Float64Array)[ordinal] as number;
      });
      ids.push(id);
      docs.push(this.docs[ordinal]);
    });
    this.freeze(remap);
    this.ids = ids;
    this.lengths = lengths;
    this.classes = classes;
    this.values = values;
    this.docs = docs;
    this.ordinalOf.rebuild(ids.length);
    this.renumbered?.();
  }
}
