// Searching a BM25 index (bm25.ts): every match scored (`Bm25Search.match`), or, for a search
// that keeps only the best few, a max-score walk (`WordQuery.walk`) that scores only the
// documents that can reach them, and the number of matches counted without scoring them.

/** The documents a search found, in buffers the index reuses (see `Bm25Search.match`). */
export interface Matches {
  ordinals: Int32Array;
  scores: Float64Array;
  count: number;
  /** The highest of the scores (0 without a match): found while they are written out. */
  best: number;
}

/**
 * What a search reads of a BM25 index as it is at that moment: its parameters, its documents'
 * lengths and classes, and each term's postings, [ordinal, tf] pairs in ordinal order (the frozen
 * ones in `base`, then those added since in `loose`).
 */
export interface Bm25Postings {
  k1: number;
  b: number;
  live: number;
  avgLength: number;
  /** Ordinals given so far (live or not). */
  ordinals: number;
  lengths: Int32Array;
  classes: Uint8Array;
  df: Int32Array;
  base: Int32Array;
  baseStarts: Int32Array;
  loose: readonly (Int32Array | undefined)[];
  looseEnds: Int32Array;
  /** By class: how many live documents are of it (class 0, the removed, counts none). */
  classCounts: Int32Array;
  bounds: TermBounds;
}

/** A relative margin far above the rounding of a sum of a few BM25 terms (about 1e-15). */
const MARGIN = 1e-9;
/** Past the last posting. */
const NO_MORE = 0x7fffffff;

/** Term `term`'s inverse document frequency, as every search of the index computes it. */
function idfOf(index: Bm25Postings, term: number): number {
  const df = term < index.df.length ? (index.df[term] as number) : 0;
  return Math.log(1 + (index.live - df + 0.5) / (df + 0.5));
}

/**
 * By term: the largest tf of its postings and the shortest document that holds it, which bound
 * what the term can add to a score (BM25 grows with tf and shrinks with length). Learned from a
 * term's postings the first time a search needs it, then kept up by `note` as documents are
 * added; a removed document leaves the bounds as they were (still bounds).
 */
export class TermBounds {
  private known = new Uint8Array(0);
  private maxTf = new Int32Array(0);
  private shortest = new Int32Array(0);

  /** A posting of `term` now has `tf`, in a document of `length` terms. */
  note(term: number, tf: number, length: number): void {
    if (term >= this.known.length || this.known[term] === 0) return;
    if (tf > (this.maxTf[term] as number)) this.maxTf[term] = tf;
    if (length < (this.shortest[term] as number)) this.shortest[term] = length;
  }

  /** Forgets every bound (the terms were renumbered, or the index replaced). */
  reset(): void {
    this.known = new Uint8Array(0);
    this.maxTf = new Int32Array(0);
    this.shortest = new Int32Array(0);
  }

  /** The most `term` can add to a document's score in `index` (rounding aside). */
  bound(index: Bm25Postings, term: number, idf: number): number {
    if (term >= this.known.length) this.grow(term);
    if (this.known[term] === 0) this.learn(index, term);
    const tf = this.maxTf[term] as number;
    const { k1, b } = index;
    const norm = k1 * (1 - b + (b * (this.shortest[term] as number)) / index.avgLength);
    return (idf * tf * (k1 + 1)) / (tf + norm);
  }

  private learn(index: Bm25Postings, term: number): void {
    let maxTf = 0;
    let shortest = NO_MORE;
    const cursor = new PostingCursor(index, term);
    for (; cursor.doc !== NO_MORE; cursor.advance()) {
      const tf = cursor.tf();
      if (tf > maxTf) maxTf = tf;
      const length = index.lengths[cursor.doc] as number;
      if (length < shortest) shortest = length;
    }
    this.maxTf[term] = maxTf;
    this.shortest[term] = shortest;
    this.known[term] = 1;
  }

  private grow(term: number): void {
    const size = Math.max(term + 1, this.known.length * 2, 1024);
    const known = new Uint8Array(size);
    known.set(this.known);
    const maxTf = new Int32Array(size);
    maxTf.set(this.maxTf);
    const shortest = new Int32Array(size);
    shortest.set(this.shortest);
    this.known = known;
    this.maxTf = maxTf;
    this.shortest = shortest;
  }
}

/** A term's postings read in ordinal order, the frozen ones and then the loose ones. */
class PostingCursor {
  /** The ordinal of the posting at the cursor, or NO_MORE past the last. */
  doc = NO_MORE;
  private list: Int32Array;
  private pos: number;
  private end: number;
  private next: Int32Array | undefined;
  private nextEnd: number;

  constructor(index: Bm25Postings, term: number) {
    const { baseStarts } = index;
    const hasBase = term + 1 < baseStarts.length;
    this.list = index.base;
    this.pos = hasBase ? (baseStarts[term] as number) : 0;
    this.end = hasBase ? (baseStarts[term + 1] as number) : 0;
    this.next = index.loose[term];
    this.nextEnd = this.next ? (index.looseEnds[term] as number) : 0;
    this.settle();
  }

  /** How many postings the term has (dead ones too). */
  static length(index: Bm25Postings, term: number): number {
    const { baseStarts } = index;
    const base =
      term + 1 < baseStarts.length
        ? (baseStarts[term + 1] as number) - (baseStarts[term] as number)
        : 0;
    return (base + (index.loose[term] ? (index.looseEnds[term] as number) : 0)) / 2;
  }

  tf(): number {
    return this.list[this.pos + 1] as number;
  }

  advance(): void {
    this.pos += 2;
    this.settle();
  }

  /** Moves to the first posting at or past ordinal `target`. */
  seek(target: number): void {
    while (this.doc < target) {
      const list = this.list;
      const last = this.end - 2;
      if ((list[last] as number) < target) {
        this.pos = this.end;
        this.settle();
        continue;
      }
      // list[lo] < target <= list[hi]: gallop, then halve (positions are of pairs).
      let lo = this.pos;
      let step = 2;
      let hi = lo + step;
      while (hi < last && (list[hi] as number) < target) {
        lo = hi;
        step *= 2;
        hi = lo + step;
      }
      if (hi > last) hi = last;
      while (hi - lo > 2) {
        const mid = lo + (((hi - lo) >> 2) << 1);
        if ((list[mid] as number) < target) lo = mid;
        else hi = mid;
      }
      this.pos = hi;
      this.doc = list[hi] as number;
    }
  }

  /** Past the end of the frozen postings, on to the loose ones; past those, NO_MORE. */
  private settle(): void {
    if (this.pos < this.end) {
      this.doc = this.list[this.pos] as number;
      return;
    }
    if (this.next && this.nextEnd > 0) {
      this.list = this.next;
      this.pos = 0;
      this.end = this.nextEnd;
      this.next = undefined;
      this.doc = this.list[0] as number;
      return;
    }
    this.next = undefined;
    this.doc = NO_MORE;
  }
}

/** Calls `visit` with the ordinal of each of `term`'s postings, in order (dead ones too). */
function forEachPosting(index: Bm25Postings, term: number, visit: (ordinal: number) => void): void {
  const { base, baseStarts } = index;
  if (term + 1 < baseStarts.length) {
    const end = baseStarts[term + 1] as number;
    for (let i = baseStarts[term] as number; i < end; i += 2) visit(base[i] as number);
  }
  const list = index.loose[term];
  if (!list) return;
  const end = index.looseEnds[term] as number;
  for (let i = 0; i < end; i += 2) visit(list[i] as number);
}

const mark = (bits: Uint32Array, ordinal: number) => {
  bits[ordinal >>> 5] = (bits[ordinal >>> 5] as number) | (1 << (ordinal & 31));
};
const marked = (bits: Uint32Array, ordinal: number) =>
  ((bits[ordinal >>> 5] as number) & (1 << (ordinal & 31))) !== 0;

/** Whether a document is one a search takes, beside its class (a filter on its columns). */
export type KeepDocument = ((ordinal: number) => boolean) | null;

/** One term of a query, as a walk reads it. */
interface QueryTerm {
  term: number;
  /** Its place among the query's distinct terms: the order scores are summed in. */
  order: number;
  idf: number;
  /** The most it adds to a score. */
  bound: number;
}

/**
 * A query's terms over an index as it is now, for a search that keeps the best few: how many
 * documents match (`count`) and those that can reach a bar (`walk`). Read it before the index
 * changes.
 */
export class WordQuery {
  private readonly terms: QueryTerm[] = [];

  constructor(
    private readonly index: Bm25Postings,
    private readonly search: Bm25Search,
    queryTerms: readonly number[],
    private readonly classMask: number,
  ) {
    let order = 0;
    for (const term of new Set(queryTerms)) {
      const df = term < index.df.length ? (index.df[term] as number) : 0;
      if (df === 0) continue;
      const idf = idfOf(index, term);
      this.terms.push({ term, order: order++, idf, bound: index.bounds.bound(index, term, idf) });
    }
  }

  private wanted(ordinal: number, keep: KeepDocument): boolean {
    const cls = this.index.classes[ordinal] as number;
    // A removed document is class 0, never asked for.
    return cls !== 0 && ((this.classMask >>> cls) & 1) === 1 && (keep === null || keep(ordinal));
  }

  /**
   * How many documents of the asked classes that `keep` keeps hold a query term (what `match`
   * counts), without scoring them: the longest postings counted by their document frequency when
   * every live document is of an asked class and kept, and each other posting whose document is
   * not marked yet (a bit an ordinal).
   */
  count(keep: KeepDocument): number {
    const { index, terms } = this;
    if (terms.length === 0) return 0;
    let longest = terms[0] as QueryTerm;
    for (const t of terms) {
      if (PostingCursor.length(index, t.term) > PostingCursor.length(index, longest.term))
        longest = t;
    }
    const bits = terms.length > 1 ? this.search.bits(index.ordinals) : null;
    let count = 0;
    if (keep === null && this.everyLiveAsked()) {
      count = index.df[longest.term] as number;
      // Its documents, asked for or not, are marked: met again in another list, they count not.
      if (bits) forEachPosting(index, longest.term, (doc) => mark(bits, doc));
    } else {
      forEachPosting(index, longest.term, (doc) => {
        if (bits) mark(bits, doc);
        if (this.wanted(doc, keep)) count++;
      });
    }
    if (!bits) return count;
    for (const t of terms) {
      if (t === longest) continue;
      forEachPosting(index, t.term, (doc) => {
        if (marked(bits, doc)) return;
        mark(bits, doc);
        if (this.wanted(doc, keep)) count++;
      });
    }
    bits.fill(0);
    return count;
  }

  private everyLiveAsked(): boolean {
    const { classCounts } = this.index;
    for (let cls = 1; cls < classCounts.length; cls++) {
      if ((classCounts[cls] as number) > 0 && ((this.classMask >>> cls) & 1) === 0) return false;
    }
    return true;
  }

  /**
   * Visits, in ordinal order, each document of the asked classes that `keep` keeps, holds a query
   * term and may score at least `floor()` (asked again after each visit: it may only rise), with
   * its BM25 score (to the last bit what `match` gives) and the place of the first query term it
   * holds. Max-score: the terms whose bounds sum below the floor are only looked up for the
   * documents the others bring, and a document is left as soon as what it can still reach is
   * below the floor. Documents below the floor may be visited too.
   */
  walk(
    keep: KeepDocument,
    floor: () => number,
    visit: (ordinal: number, score: number, first: number) => void,
  ): void {
    const { index } = this;
    const k = this.terms.length;
    if (k === 0) return;
    const { k1, b, lengths, avgLength } = index;
    // By bound, least first: cursors [0, essential) are looked up, the others walked.
    const terms = [...this.terms].sort((x, y) => x.bound - y.bound);
    const cursors = terms.map((t) => new PostingCursor(index, t.term));
    const reach = new Float64Array(k);
    let sum = 0;
    for (let i = 0; i < k; i++) reach[i] = sum += (terms[i] as QueryTerm).bound;
    const parts = new Float64Array(k);
    let essential = 0;
    let bar = Number.NEGATIVE_INFINITY;
    const raise = () => {
      const f = floor();
      bar = f > 0 ? f * (1 - MARGIN) : Number.NEGATIVE_INFINITY;
      while (essential < k && (reach[essential] as number) < bar) essential++;
    };
    raise();
    while (essential < k) {
      let doc = NO_MORE;
      for (let i = essential; i < k; i++) {
        const at = (cursors[i] as PostingCursor).doc;
        if (at < doc) doc = at;
      }
      if (doc === NO_MORE) return;
      if (!this.wanted(doc, keep)) {
        for (let i = essential; i < k; i++) {
          const cursor = cursors[i] as PostingCursor;
          if (cursor.doc === doc) cursor.advance();
        }
        continue;
      }
      const norm = k1 * (1 - b + (b * (lengths[doc] as number)) / avgLength);
      let partial = 0;
      for (let i = essential; i < k; i++) {
        const cursor = cursors[i] as PostingCursor;
        if (cursor.doc !== doc) continue;
        const t = terms[i] as QueryTerm;
        const tf = cursor.tf();
        const part = (t.idf * tf * (k1 + 1)) / (tf + norm);
        parts[t.order] = part;
        partial += part;
        cursor.advance();
      }
      let below = false;
      for (let i = essential - 1; i >= 0; i--) {
        if (partial + (reach[i] as number) < bar) {
          below = true;
          break;
        }
        const cursor = cursors[i] as PostingCursor;
        cursor.seek(doc);
        if (cursor.doc !== doc) continue;
        const t = terms[i] as QueryTerm;
        const tf = cursor.tf();
        const part = (t.idf * tf * (k1 + 1)) / (tf + norm);
        parts[t.order] = part;
        partial += part;
      }
      // Summed in the query's order, from 0, as `match` sums them (a term's part is above 0).
      let score = 0;
      let first = -1;
      for (let o = 0; o < k; o++) {
        const part = parts[o] as number;
        if (part === 0) continue;
        if (first === -1) first = o;
        score += part;
        parts[o] = 0;
      }
      if (below) continue;
      visit(doc, score, first);
      raise();
    }
  }
}

/** The buffers of an index's searches, reused from one to the next. */
export class Bm25Search {
  /** Per search: the score of each ordinal, and the ordinals met, in order. */
  private scratch = new Float64Array(0);
  private touched = new Int32Array(0);
  private matched: Matches = {
    ordinals: new Int32Array(0),
    scores: new Float64Array(0),
    count: 0,
    best: 0,
  };
  private marks = new Uint32Array(0);

  /** A bit per ordinal, all clear: whoever sets some clears them after. */
  bits(ordinals: number): Uint32Array {
    const words = (ordinals >>> 5) + 1;
    if (this.marks.length < words)
      this.marks = new Uint32Array(Math.max(words, this.marks.length * 2));
    return this.marks;
  }

  /** The query's terms over `index`, for `WordQuery.count` and `walk`. */
  query(index: Bm25Postings, queryTerms: readonly number[], classMask: number): WordQuery {
    return new WordQuery(index, this, queryTerms, classMask);
  }

  /**
   * The live documents of the classes in `classMask` (bit `c` for class `c`) that share a term
   * with the query, with their BM25 scores, in the order they were first met (the first query
   * term's postings, then the new ones of the next): the order ties keep. Answered in buffers
   * reused by the next search.
   */
  match(index: Bm25Postings, queryTerms: readonly number[], classMask: number): Matches {
    const out = this.matched;
    out.count = 0;
    out.best = 0;
    if (index.live === 0) return out;
    if (this.scratch.length < index.ordinals) {
      const size = Math.max(index.ordinals, this.scratch.length * 2);
      this.scratch = new Float64Array(size);
      this.touched = new Int32Array(size);
      out.ordinals = new Int32Array(size);
      out.scores = new Float64Array(size);
    }
    const acc = this.scratch;
    const touched = this.touched;
    let n = 0;
    const { k1, b, lengths, classes, base, baseStarts, avgLength } = index;
    // A removed document is class 0, never asked for.
    const mask = classMask & ~1;
    for (const term of new Set(queryTerms)) {
      const df = term < index.df.length ? (index.df[term] as number) : 0;
      if (df === 0) continue;
      const idf = idfOf(index, term);
      if (term + 1 < baseStarts.length) {
        const end = baseStarts[term + 1] as number;
        for (let i = baseStarts[term] as number; i < end; i += 2) {
          const ordinal = base[i] as number;
          if (((mask >>> (classes[ordinal] as number)) & 1) === 0) continue;
          const tf = base[i + 1] as number;
          const norm = k1 * (1 - b + (b * (lengths[ordinal] as number)) / avgLength);
          if (acc[ordinal] === 0) touched[n++] = ordinal;
          acc[ordinal] = (acc[ordinal] as number) + (idf * tf * (k1 + 1)) / (tf + norm);
        }
      }
      const list = index.loose[term];
      if (!list) continue;
      const listEnd = index.looseEnds[term] as number;
      for (let i = 0; i < listEnd; i += 2) {
        const ordinal = list[i] as number;
        if (((mask >>> (classes[ordinal] as number)) & 1) === 0) continue;
        const tf = list[i + 1] as number;
        const norm = k1 * (1 - b + (b * (lengths[ordinal] as number)) / avgLength);
        if (acc[ordinal] === 0) touched[n++] = ordinal;
        acc[ordinal] = (acc[ordinal] as number) + (idf * tf * (k1 + 1)) / (tf + norm);
      }
    }
    const { ordinals, scores } = out;
    let best = 0;
    for (let i = 0; i < n; i++) {
      const ordinal = touched[i] as number;
      const score = acc[ordinal] as number;
      ordinals[i] = ordinal;
      scores[i] = score;
      if (score > best) best = score;
      acc[ordinal] = 0;
    }
    out.count = n;
    out.best = best;
    return out;
  }
}
