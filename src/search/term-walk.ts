// How a BM25 match walks a query's terms (bm25.ts): rarest first, each term's postings adding
// what the term scores to the documents that hold it. A query that also holds very common words
// ("john", "time": half of a store's memories may hold one) can instead gather the documents of
// its rarer terms alone (`matchRare`): the common terms' postings then only add to the documents
// met and count the others, which are left out with a bound on what they can score, for the
// caller to decide whether one could still reach a page (top-rows.ts: if so, it matches in full).
import type { TermPostings } from './term-postings.js';

/** The documents a search found, in buffers the index reuses (see `Bm25Index.match`). */
export interface Matches {
  ordinals: Int32Array;
  scores: Float64Array;
  count: number;
  /** The highest of the scores (0 without a match): found while they are written out. */
  best: number;
}

/**
 * A match of a query's rarer terms (`TermWalk.matchRare`): the documents that hold one of them,
 * each with its whole score (the common terms' too), in the order a full match meets them.
 */
export interface RareMatches extends Matches {
  /** The most a document that holds none of the rarer terms can score. */
  restBound: number;
  /** How many documents of the classes asked for hold common terms only (left out). */
  restOnly: number;
}

/** What a walk reads of the index (Bm25Index's own arrays, for one match). */
export interface WalkIndex {
  k1: number;
  b: number;
  lengths: Int32Array;
  classes: Uint8Array;
  terms: TermPostings;
  /** Live documents, and their mean number of terms. */
  live: number;
  avgLength: number;
  /** Ordinals given (live or not): the walk's buffers cover them. */
  ordinals: number;
}

/** Lucene's idf of a term held by `df` of `live` documents. */
export const idfOf = (live: number, df: number) => Math.log(1 + (live - df + 0.5) / (df + 0.5));

/** The term frequencies and document lengths the walk's table covers (most of real text's). */
const TABLE_TF = 4;
const TABLE_LENGTHS = 256;
/** Postings from which a term's walk is worth the table's 1,024 divisions. */
const TABLE_FROM_POSTINGS = 2 * 4096;
/** A term held by at least this share of the live documents may be left to lookups. */
const COMMON_SHARE = 1 / 64;
/** The most the common terms may score, over what the rare ones score, for a rare match. */
const REST_SHARE = 0.4;
/** The postings the common terms must hold in all for a match of the rare ones to pay. */
const REST_FROM_POSTINGS = 4096;

/** The query's distinct terms that live documents hold, rarest first (ties in query order). */
interface Plan {
  terms: number[];
  dfs: number[];
}

export class TermWalk {
  /** Per match: the score of each ordinal, and the ordinals met, in order. */
  private acc = new Float64Array(0);
  private touched = new Int32Array(0);
  private n = 0;
  /** What a term of `idf` adds by (tf - 1) * TABLE_LENGTHS + length: reused. */
  private readonly table = new Float64Array(TABLE_TF * TABLE_LENGTHS);
  private readonly out: Matches = {
    ordinals: new Int32Array(0),
    scores: new Float64Array(0),
    count: 0,
    best: 0,
  };

  /**
   * The live documents of the classes in `classMask` (bit `c` for class `c`) that share a term
   * with the query, with their BM25 scores, in the order they were first met (the rarest
   * term's postings, then the new ones of the next rarest): the order ties keep. Answered in
   * buffers reused by the next match.
   */
  match(ix: WalkIndex, queryTerms: readonly number[], classMask: number): Matches {
    if (!this.begin(ix)) return this.out;
    const { terms, dfs } = planOf(ix, queryTerms);
    for (let t = 0; t < terms.length; t++) {
      this.walk(ix, terms[t] as number, idfOf(ix.live, dfs[t] as number), classMask);
    }
    return this.finish();
  }

  /**
   * As `match`, but only the documents that hold one of the query's rarer terms, when its
   * commonest terms hold enough postings for that to pay (else undefined): each with the same
   * score as `match` gives it (the common terms added in the same order), in the same order. A
   * document left out scores at most `restBound`; `restOnly` counts them.
   */
  matchRare(
    ix: WalkIndex,
    queryTerms: readonly number[],
    classMask: number,
  ): RareMatches | undefined {
    const { terms, dfs } = planOf(ix, queryTerms);
    const k = rareCount(dfs, ix.live, ix.k1);
    if (k === 0 || !this.begin(ix)) return undefined;
    for (let t = 0; t < k; t++) {
      this.walk(ix, terms[t] as number, idfOf(ix.live, dfs[t] as number), classMask);
    }
    // The documents of common terms only are marked -1 in `acc` and listed after the `n` met,
    // but for those of the last common term, only counted: no other term will meet them.
    let listed = 0;
    let counted = 0;
    let restBound = 0;
    for (let t = k; t < terms.length; t++) {
      const idf = idfOf(ix.live, dfs[t] as number);
      if (t + 1 < terms.length) {
        listed = this.walkRest(ix, terms[t] as number, idf, classMask, listed);
      } else {
        counted = this.walkRest(ix, terms[t] as number, idf, classMask, -1);
      }
      // What a term adds is below idf * (k1 + 1) (tf / (tf + norm) < 1), far above rounding.
      restBound += idf * (ix.k1 + 1) * (1 + 1e-9);
    }
    const { acc, touched, n } = this;
    for (let i = n; i < n + listed; i++) acc[touched[i] as number] = 0;
    const rare: RareMatches = { ...this.finish(), restBound, restOnly: listed + counted };
    return rare;
  }

  /** Sizes the buffers for the index's ordinals; false when no document is live. */
  private begin(ix: WalkIndex): boolean {
    this.n = 0;
    this.out.count = 0;
    this.out.best = 0;
    if (ix.live === 0) return false;
    if (this.acc.length < ix.ordinals) {
      const size = Math.max(ix.ordinals, this.acc.length * 2);
      this.acc = new Float64Array(size);
      this.touched = new Int32Array(size);
      this.out.ordinals = new Int32Array(size);
      this.out.scores = new Float64Array(size);
    }
    return true;
  }

  /** Adds what `term` scores to every document of `classMask` that holds it. */
  private walk(ix: WalkIndex, term: number, idf: number, classMask: number): void {
    const { acc, touched } = this;
    let n = this.n;
    const { k1, b, lengths, classes, avgLength } = ix;
    const { baseOrdinals, baseTfs, baseStarts, lists, looseEnds } = ix.terms;
    // A removed document is class 0, never asked for.
    const mask = classMask & ~1;
    if (term + 1 < baseStarts.length) {
      const end = baseStarts[term + 1] as number;
      const from = baseStarts[term] as number;
      if (end - from >= TABLE_FROM_POSTINGS) {
        // A common word's postings add from a table of what each (tf, length) adds, worked out
        // once by the same expression: the same numbers, without two divisions a posting.
        const table = this.addTable(ix, idf);
        for (let i = from; i < end; i++) {
          const ordinal = baseOrdinals[i] as number;
          if (((mask >>> (classes[ordinal] as number)) & 1) === 0) continue;
          const tf = baseTfs[i] as number;
          const length = lengths[ordinal] as number;
          const add =
            tf <= TABLE_TF && length < TABLE_LENGTHS
              ? (table[(tf - 1) * TABLE_LENGTHS + length] as number)
              : (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * length) / avgLength));
          const before = acc[ordinal] as number;
          if (before === 0) touched[n++] = ordinal;
          acc[ordinal] = before + add;
        }
      } else {
        for (let i = from; i < end; i++) {
          const ordinal = baseOrdinals[i] as number;
          if (((mask >>> (classes[ordinal] as number)) & 1) === 0) continue;
          const tf = baseTfs[i] as number;
          const norm = k1 * (1 - b + (b * (lengths[ordinal] as number)) / avgLength);
          const before = acc[ordinal] as number;
          if (before === 0) touched[n++] = ordinal;
          acc[ordinal] = before + (idf * tf * (k1 + 1)) / (tf + norm);
        }
      }
    }
    const list = lists[term];
    if (list) {
      const listEnd = looseEnds[term] as number;
      for (let i = 0; i < listEnd; i += 2) {
        const ordinal = list[i] as number;
        if (((mask >>> (classes[ordinal] as number)) & 1) === 0) continue;
        const tf = list[i + 1] as number;
        const norm = k1 * (1 - b + (b * (lengths[ordinal] as number)) / avgLength);
        if (acc[ordinal] === 0) touched[n++] = ordinal;
        acc[ordinal] = (acc[ordinal] as number) + (idf * tf * (k1 + 1)) / (tf + norm);
      }
    }
    this.n = n;
  }

  /**
   * Adds what `term` scores to the documents met so far (`acc` above 0), and marks and lists
   * the others of `classMask` that hold it after the `n` met and the `listed` ones (answering
   * how many are listed then), or with `listed` -1 counts them (answering how many).
   */
  private walkRest(
    ix: WalkIndex,
    term: number,
    idf: number,
    classMask: number,
    listed: number,
  ): number {
    const { acc, touched, n } = this;
    const list = listed >= 0;
    let end = n + Math.max(0, listed);
    let counted = 0;
    const { k1, b, lengths, classes, avgLength } = ix;
    const { baseOrdinals, baseTfs, baseStarts, lists, looseEnds } = ix.terms;
    const mask = classMask & ~1;
    const meet = (ordinal: number, tf: number) => {
      const score = acc[ordinal] as number;
      if (score > 0) {
        const norm = k1 * (1 - b + (b * (lengths[ordinal] as number)) / avgLength);
        acc[ordinal] = score + (idf * tf * (k1 + 1)) / (tf + norm);
      } else if (score === 0 && ((mask >>> (classes[ordinal] as number)) & 1) === 1) {
        if (!list) {
          counted++;
          return;
        }
        acc[ordinal] = -1;
        touched[end++] = ordinal;
      }
    };
    if (term + 1 < baseStarts.length) {
      // `meet` written out for the frozen postings, most of a common term's (no call a posting),
      // adding from the table of `walk`: the same numbers.
      const stop = baseStarts[term + 1] as number;
      const from = baseStarts[term] as number;
      const table = stop - from >= TABLE_FROM_POSTINGS ? this.addTable(ix, idf) : undefined;
      for (let i = from; i < stop; i++) {
        const ordinal = baseOrdinals[i] as number;
        const score = acc[ordinal] as number;
        if (score > 0) {
          const tf = baseTfs[i] as number;
          const length = lengths[ordinal] as number;
          acc[ordinal] =
            score +
            (table && tf <= TABLE_TF && length < TABLE_LENGTHS
              ? (table[(tf - 1) * TABLE_LENGTHS + length] as number)
              : (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * length) / avgLength)));
        } else if (score === 0 && ((mask >>> (classes[ordinal] as number)) & 1) === 1) {
          if (list) {
            acc[ordinal] = -1;
            touched[end++] = ordinal;
          } else {
            counted++;
          }
        }
      }
    }
    const loose = lists[term];
    if (loose) {
      const looseEnd = looseEnds[term] as number;
      for (let i = 0; i < looseEnd; i += 2) meet(loose[i] as number, loose[i + 1] as number);
    }
    return list ? end - n : counted;
  }

  /** Writes out the ordinals met and their scores (clearing the scores kept). */
  private finish(): Matches {
    const { acc, touched, out, n } = this;
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

  private addTable(ix: WalkIndex, idf: number): Float64Array {
    const { k1, b, avgLength } = ix;
    const { table } = this;
    for (let tf = 1; tf <= TABLE_TF; tf++) {
      for (let length = 0; length < TABLE_LENGTHS; length++) {
        const norm = k1 * (1 - b + (b * length) / avgLength);
        table[(tf - 1) * TABLE_LENGTHS + length] = (idf * tf * (k1 + 1)) / (tf + norm);
      }
    }
    return table;
  }
}

/** The query's distinct terms held by a live document, rarest first, ties in query order. */
function planOf(ix: WalkIndex, queryTerms: readonly number[]): Plan {
  const { df } = ix.terms;
  const terms = [...new Set(queryTerms)].filter((t) => t < df.length && (df[t] as number) > 0);
  // Stable: equal frequencies keep the query's order.
  terms.sort((x, y) => (df[x] as number) - (df[y] as number));
  return { terms, dfs: terms.map((t) => df[t] as number) };
}

/**
 * How many of the terms (rarest first, their document frequencies `dfs` among `live`) a match
 * of the rare ones walks: the fewest that leave the rest each held by a COMMON_SHARE of the
 * documents, together holding at least as many postings as the walked ones (the lookups are
 * about the documents met) and REST_FROM_POSTINGS, and scoring at most REST_SHARE of what the
 * walked ones would for a document that holds each once (about the best match: the documents
 * left out must score well below it to be left out). 0: walk them all (`match`).
 */
export function rareCount(dfs: readonly number[], live: number, k1: number): number {
  let rest = 0;
  let restIdf = 0;
  for (const df of dfs) {
    rest += df;
    restIdf += idfOf(live, df);
  }
  let walked = 0;
  let walkedIdf = 0;
  for (let k = 1; k < dfs.length; k++) {
    const df = dfs[k - 1] as number;
    walked += df;
    rest -= df;
    walkedIdf += idfOf(live, df);
    restIdf -= idfOf(live, df);
    if ((dfs[k] as number) < live * COMMON_SHARE) continue;
    if (rest < REST_FROM_POSTINGS || walked > rest) return 0;
    if (restIdf * (k1 + 1) <= REST_SHARE * walkedIdf) return k;
  }
  return 0;
}
