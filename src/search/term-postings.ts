// The postings of a BM25 index (bm25.ts), by term id: which documents hold a term, how often,
// and how many live ones do, in ordinal order. Those of the documents added before the last
// `freeze` are the base, term by term: their ordinals in one typed array and their tfs in
// another beside it (6 bytes a posting, where pairs of 32-bit numbers took 8: the postings are
// most of an index and of its sidecar). The others are in a typed list a term, as flat
// [ordinal, tf, ordinal, tf, ...] pairs.
import { gallopTo, tfAmong, tfAt } from './posting-search.js';

/**
 * The most a tf counts: a word said more often in one document counts this often (what it adds
 * to BM25 has long stopped growing: tf / (tf + about 1)). No memory under 50,000 characters
 * holds a word 65,535 times; a note's body may.
 */
export const MAX_TF = 0xffff;

export class TermPostings {
  /**
   * By term id: postings added since the last freeze, in a typed list that doubles as it fills
   * (`looseEnds[t]` numbers of it are used). Typed, not number[]: a load of 1M memories spent 5 s
   * growing plain arrays, and they held 8 bytes a number.
   */
  lists: (Int32Array | undefined)[] = [];
  looseEnds = new Int32Array(1024);
  /** By term id: the number of live documents that hold it. */
  df = new Int32Array(1024);
  /**
   * Numbers in the per-term lists: once they outnumber the frozen ones (and a million), they are
   * frozen too, so the lists (8 bytes a number) never hold most of a large index, at a cost
   * that stays linear overall.
   */
  private loose = 0;
  /**
   * The frozen postings: term `t`'s are `baseOrdinals[baseStarts[t] .. baseStarts[t + 1])`, with
   * their tfs at the same places of `baseTfs`.
   */
  baseOrdinals: Int32Array = new Int32Array(0);
  baseTfs: Uint16Array = new Uint16Array(0);
  baseStarts: Int32Array = new Int32Array(1);
  /** By term id: 1 + the ordinal of the last document that added the term. */
  private lastAdder = new Int32Array(1024);

  /** Adds the postings of the document numbered `ordinal` (above every one added before). */
  add(ordinal: number, terms: ArrayLike<number>): void {
    if (this.loose > Math.max(1 << 20, 2 * this.baseOrdinals.length)) this.freeze();
    const stamp = ordinal + 1;
    for (let k = 0; k < terms.length; k++) {
      const term = terms[k] as number;
      if (term >= this.lastAdder.length) this.growTo(term);
      // Kept dense: an element set far past the end turns a JS array into a dictionary (a
      // hash lookup a posting), as the first document after a freeze did.
      while (this.lists.length <= term) this.lists.push(undefined);
      let list = this.lists[term];
      const end = this.looseEnds[term] as number;
      if (this.lastAdder[term] === stamp && list) {
        // This document's posting is the last one of the list: count one more occurrence.
        if ((list[end - 1] as number) < MAX_TF) list[end - 1] = (list[end - 1] as number) + 1;
        continue;
      }
      this.lastAdder[term] = stamp;
      if (!list || end + 2 > list.length) {
        const grown = new Int32Array(Math.max(4, end * 2));
        if (list) grown.set(list);
        list = grown;
        this.lists[term] = list;
      }
      list[end] = ordinal;
      list[end + 1] = 1;
      this.looseEnds[term] = end + 2;
      this.loose += 2;
      this.df[term] = (this.df[term] as number) + 1;
    }
  }

  /** A document holding `terms` was removed: its postings stay, dead, until a vacuum. */
  remove(terms: readonly number[]): void {
    for (const term of new Set(terms)) {
      if (term < this.df.length && (this.df[term] as number) > 0) {
        this.df[term] = (this.df[term] as number) - 1;
      }
    }
  }

  clear(): void {
    this.lists = [];
    this.looseEnds = new Int32Array(1024);
    this.df = new Int32Array(1024);
    this.baseOrdinals = new Int32Array(0);
    this.baseTfs = new Uint16Array(0);
    this.baseStarts = new Int32Array(1);
    this.loose = 0;
    this.lastAdder = new Int32Array(1024);
  }

  /** Live documents that hold `term`. */
  documentFrequency(term: number): number {
    return term < this.df.length ? (this.df[term] as number) : 0;
  }

  /** How often the document at `ordinal` holds `term` (0: not at all), by halving. */
  tf(term: number, ordinal: number): number {
    let tf = 0;
    if (term + 1 < this.baseStarts.length) {
      const from = this.baseStarts[term] as number;
      const end = this.baseStarts[term + 1] as number;
      tf = tfAmong(this.baseOrdinals, this.baseTfs, from, end, ordinal);
    }
    const list = this.lists[term];
    if (tf === 0 && list) tf = tfAt(list, 0, this.looseEnds[term] as number, ordinal);
    return tf;
  }

  /**
   * `tf(term, o)` for each of `ordinals` (rising), into `tfs` at the same places: the frozen
   * postings walked once forward (`gallopTo`), the loose ones halved.
   */
  tfsOf(term: number, ordinals: Int32Array, tfs: Int32Array): void {
    let at = 0;
    let end = 0;
    if (term + 1 < this.baseStarts.length) {
      at = this.baseStarts[term] as number;
      end = this.baseStarts[term + 1] as number;
    }
    const list = this.lists[term];
    const looseEnd = list ? (this.looseEnds[term] as number) : 0;
    for (let k = 0; k < ordinals.length; k++) {
      const ordinal = ordinals[k] as number;
      let tf = 0;
      if (at < end) {
        at = gallopTo(this.baseOrdinals, at, end, ordinal);
        if (at < end && this.baseOrdinals[at] === ordinal) tf = this.baseTfs[at] as number;
      }
      if (tf === 0 && list) tf = tfAt(list, 0, looseEnd, ordinal);
      tfs[k] = tf;
    }
  }

  private growTo(term: number): void {
    const size = Math.max(term + 1, this.lastAdder.length * 2);
    const next = new Int32Array(size);
    next.set(this.lastAdder);
    this.lastAdder = next;
    const df = new Int32Array(size);
    df.set(this.df);
    this.df = df;
    const looseEnds = new Int32Array(size);
    looseEnds.set(this.looseEnds);
    this.looseEnds = looseEnds;
  }

  /**
   * Moves every posting into the typed base (dropping dead ones when `remap` renumbers
   * documents: -1 for a removed one): the compact form, and the one a state keeps.
   */
  freeze(remap?: Int32Array): void {
    const steps = this.freezeSteps(remap, Number.POSITIVE_INFINITY);
    while (!steps.next().done);
  }

  /** Whether postings wait in the per-term lists (a state is taken of the base alone). */
  get hasLoose(): boolean {
    return this.lists.length > 0;
  }

  /**
   * `freeze` about `slice` numbers' work a step. The base is replaced at the end, never changed
   * in place, so what was taken of it before stays whole.
   */
  *freezeSteps(remap: Int32Array | undefined, slice: number): Generator<void, void> {
    // Every posting is in the base already: nothing to move (a copy of it all was 0.4 s at 1M).
    if (!remap && this.lists.length === 0) return;
    const terms = Math.max(this.lists.length, this.baseStarts.length - 1);
    let total = 0;
    for (let t = 0; t < terms; t++) {
      total += this.baseLength(t) + (this.lists[t] ? (this.looseEnds[t] as number) >> 1 : 0);
    }
    const ordinals = new Int32Array(total);
    const tfs = new Uint16Array(total);
    const starts = new Int32Array(terms + 1);
    let at = 0;
    let work = 0;
    /** Copies the base's postings `[from, end)` to the new base, renumbered by `remap`. */
    const putBase = (from: number, end: number) => {
      if (!remap) {
        ordinals.set(this.baseOrdinals.subarray(from, end), at);
        tfs.set(this.baseTfs.subarray(from, end), at);
        at += end - from;
        return;
      }
      for (let i = from; i < end; i++) {
        const to = remap[this.baseOrdinals[i] as number] as number;
        if (to === -1) continue;
        ordinals[at] = to;
        tfs[at++] = this.baseTfs[i] as number;
      }
      work += 2 * (end - from);
    };
    /** Copies a loose list's pairs `[0, end)` to the new base, renumbered by `remap`. */
    const putPairs = (pairs: Int32Array, end: number) => {
      for (let i = 0; i < end; i += 2) {
        const to = remap ? (remap[pairs[i] as number] as number) : (pairs[i] as number);
        if (to === -1) continue;
        ordinals[at] = to;
        tfs[at++] = pairs[i + 1] as number;
      }
    };
    for (let t = 0; t < terms; t++) {
      starts[t] = at;
      const length = this.baseLength(t);
      const from = this.baseStarts[t] as number;
      if (length > 0) putBase(from, from + length);
      // A loose list is typed and doubles as it fills: only its first `looseEnds[t]` count.
      const list = this.lists[t];
      if (list) putPairs(list, this.looseEnds[t] as number);
      work += (length >> 3) + (list ? (this.looseEnds[t] as number) : 0);
      if (work >= slice) {
        work = 0;
        yield;
      }
    }
    starts[terms] = at;
    this.baseOrdinals = at === total ? ordinals : ordinals.slice(0, at);
    this.baseTfs = at === total ? tfs : tfs.slice(0, at);
    this.baseStarts = starts;
    this.lists = [];
    this.looseEnds.fill(0);
    this.loose = 0;
    // A frozen document's postings are not the last of a list any more.
    this.lastAdder.fill(0);
  }

  /**
   * Gives term `t` the id `remap[t]` (-1: dropped with its postings, which no live document
   * has), the kept terms in their order; `terms` of them are kept.
   */
  renumberTerms(remap: Int32Array, terms: number): void {
    this.freeze();
    let total = 0;
    remap.forEach((to, t) => {
      if (to !== -1) total += this.baseLength(t);
    });
    const ordinals = new Int32Array(total);
    const tfs = new Uint16Array(total);
    const starts = new Int32Array(terms + 1);
    const df = new Int32Array(Math.max(1024, terms));
    let at = 0;
    remap.forEach((to, t) => {
      if (to === -1) return;
      starts[to] = at;
      const length = this.baseLength(t);
      if (length > 0) {
        const from = this.baseStarts[t] as number;
        ordinals.set(this.baseOrdinals.subarray(from, from + length), at);
        tfs.set(this.baseTfs.subarray(from, from + length), at);
      }
      at += length;
      df[to] = t < this.df.length ? (this.df[t] as number) : 0;
    });
    starts[terms] = at;
    this.baseOrdinals = ordinals;
    this.baseTfs = tfs;
    this.baseStarts = starts;
    this.df = df;
    this.lastAdder = new Int32Array(df.length);
    this.looseEnds = new Int32Array(df.length);
  }

  private baseLength(term: number): number {
    if (term + 1 >= this.baseStarts.length) return 0;
    return (this.baseStarts[term + 1] as number) - (this.baseStarts[term] as number);
  }

  /** Takes frozen postings (a state's, checked) as the whole of them. */
  restore(ordinals: Int32Array, tfs: Uint16Array, starts: Int32Array, df: Int32Array): void {
    this.clear();
    this.baseOrdinals = ordinals;
    this.baseTfs = tfs;
    this.baseStarts = starts;
    const terms = starts.length - 1;
    this.lastAdder = new Int32Array(Math.max(1024, terms));
    this.looseEnds = new Int32Array(Math.max(1024, terms));
    this.df = new Int32Array(Math.max(1024, terms));
    this.df.set(df);
  }
}
