// A search by words alone for a page (the retriever's common search): only the rows that can be
// among the best of some top get a decay score, and without a tag filter only the memories whose
// BM25 score can reach those tops are scored at all (a max-score walk, bm25-search.ts). The rows
// it answers give the same pages as every match ranked (test/search/pruned-ranking.test.ts).
import type { MemoryRecord, MemoryStatus } from '../storage/records.js';
import { BestValues, largest } from './best-values.js';
import type { KeepDocument } from './bm25-search.js';
import { type Dynamics, LAST_USED, type LexicalIndex } from './lexical-index.js';
import { RankedRows } from './ranked-rows.js';

/** Which memories a search considers, and their decay scores. */
export interface Filter {
  /** The statuses a search looks at: picked in the index's walk, without reading a record. */
  statuses: readonly MemoryStatus[];
  /** Only memories last used at or after this (epoch seconds), when set. */
  since?: number | null | undefined;
  /** Only memories with one of these tags (lowercased), when set: each match's record is read. */
  tags?: ReadonlySet<string> | null | undefined;
  /**
   * A memory's decay score from the numbers it depends on: asked only of the matches a page
   * could show (see `Top`), from the index's columns, without reading the record.
   */
  score(memory: Dynamics): number;
  /** Matches scoring below this are left out too (then every match needs its score). */
  minScore: number | null;
}

/**
 * A ranking the caller takes the `count` best rows of (best first, ties in row order), by
 * `value(relevance, score)`. The value must never exceed `relevance * ceiling`, in floating
 * point too: relevance times a factor that is at most `ceiling` is (rounding keeps the order).
 * That bound is what lets the retriever skip a row without its decay score.
 */
export interface Top {
  count: number;
  value(relevance: number, score: number): number;
  ceiling: number;
  /** Only rows of a value above 0 are taken (a row at 0 or below is never among the best). */
  positive?: boolean;
}

/** Whether `record` has one of `tags` (lowercased), case aside. */
export function hasTag(record: MemoryRecord, tags: ReadonlySet<string>): boolean {
  return record.meta.tags.some((t) => tags.has(t.toLowerCase()));
}

/**
 * Each top's bar (what its `count` best rows so far reach) and the rows taken: a row is taken,
 * and scored, unless `count` rows already beat it outright in every top.
 */
class TopBars {
  private readonly bars: BestValues[];
  private readonly ceilings: Float64Array;
  private readonly positive: boolean[];
  private readonly floors: Float64Array;
  private readonly highest: number;
  /** The lowest bar: a row whose relevance times the highest ceiling is below it is below all. */
  private lowest = Number.NEGATIVE_INFINITY;
  /**
   * The same test on a BM25 score, without the division: below it, a row is below `lowest`
   * (the margin, far above rounding, leaves a row near the edge to the exact test).
   */
  cutoff = Number.NEGATIVE_INFINITY;
  private readonly dynamics: Dynamics = {
    created_at: 0,
    last_used: 0,
    use_count: 0,
    strength: 0,
  };
  /** The rows taken: the key of their place among all rows, ordinal, BM25 and decay scores. */
  private readonly keys: number[] = [];
  private readonly ordinals: number[] = [];
  private readonly lexical: number[] = [];
  private readonly scores: number[] = [];

  constructor(
    private readonly tops: readonly Top[],
    rows: number,
    private readonly best: number,
    private readonly index: LexicalIndex,
    private readonly filter: Filter,
  ) {
    // No bar holds more than the rows there are (a page far past the last is no allocation).
    this.bars = tops.map((top) => new BestValues(Math.min(top.count, rows)));
    this.ceilings = Float64Array.from(tops, (top) => top.ceiling);
    this.positive = tops.map((top) => top.positive === true);
    this.floors = new Float64Array(tops.length);
    let highest = 0;
    for (const top of tops) highest = Math.max(highest, top.ceiling);
    this.highest = highest;
    this.raise();
  }

  private raise(): void {
    let lowest = Number.POSITIVE_INFINITY;
    for (let t = 0; t < this.tops.length; t++) {
      const floor = (this.bars[t] as BestValues).floor;
      this.floors[t] = this.positive[t] ? Math.max(0, floor) : floor;
      lowest = Math.min(lowest, this.floors[t] as number);
    }
    this.lowest = lowest;
    const { highest } = this;
    this.cutoff =
      lowest > 0 && highest > 0 && lowest < Number.POSITIVE_INFINITY
        ? (lowest / highest) * this.best * (1 - 1e-9)
        : Number.NEGATIVE_INFINITY;
  }

  /** Whether a row of BM25 score `lexical` may be among some top's best, its score unknown. */
  reaches(lexical: number): boolean {
    if (lexical < this.cutoff) return false;
    const r = lexical / this.best;
    if (r * this.highest < this.lowest) return false;
    for (let t = 0; t < this.tops.length; t++) {
      // Written so that a NaN keeps the row: only a sure loser is skipped (for a positive-only
      // top, a row that reaches 0 at most is one too).
      const reach = r * (this.ceilings[t] as number);
      const floor = this.floors[t] as number;
      if (!(reach < floor || (reach <= 0 && this.positive[t]))) return true;
    }
    return false;
  }

  /** Scores the row and offers it to every top; it is kept if some top may still want it. */
  take(key: number, ordinal: number, lexical: number): void {
    const r = lexical / this.best;
    const score = this.filter.score(this.index.dynamicsAt(ordinal, this.dynamics));
    let wanted = false;
    for (let t = 0; t < this.tops.length; t++) {
      const top = this.tops[t] as Top;
      const value = top.value(r, score);
      // Beaten outright by `count` rows already there (or at 0 in a positive-only top): never
      // among this top's best. A NaN is kept.
      const positive = this.positive[t] as boolean;
      if (!(value < (this.floors[t] as number)) && !(positive && !(value > 0))) wanted = true;
      if (!positive || value > 0) (this.bars[t] as BestValues).offer(value);
    }
    if (!wanted) return;
    this.keys.push(key);
    this.ordinals.push(ordinal);
    this.lexical.push(lexical);
    this.scores.push(score);
    this.raise();
  }

  /** The rows taken, in the order all the rows have (so ties break the same way). */
  rows(matched: number, lookup: (id: string) => MemoryRecord | undefined): RankedRows {
    const keys = this.keys;
    const order = Int32Array.from(keys.keys()).sort(
      (a, b) => (keys[a] as number) - (keys[b] as number),
    );
    const rows = new RankedRows(false, lookup);
    rows.matched = matched;
    const relevance = new Float64Array(order.length);
    for (let k = 0; k < order.length; k++) {
      const j = order[k] as number;
      const lexical = this.lexical[j] as number;
      rows.push(
        this.index.idAt(this.ordinals[j] as number),
        lexical,
        undefined,
        this.scores[j] as number,
      );
      relevance[k] = lexical / this.best;
    }
    rows.relevance = relevance;
    return rows;
  }
}

/**
 * The share of the best rows' BM25 score down to which the walk meets rows: a top's cutoff is
 * its bar over its ceiling, times the best score, and is rarely below half of it (the decay
 * score takes at most its weight off a row's relevance).
 */
const REACH = 0.7;

/** The rows of the most the tops take, all of them together: looked at first, to raise bars. */
function seedCount(tops: readonly Top[]): number {
  let count = 0;
  for (const top of tops) count += top.count;
  return count;
}

/**
 * Words alone, pruned, no minimum score, no tag filter. First a walk finds the best BM25 score
 * (relevance is relative to it) and the `seedCount` best, which are taken first; then the rows
 * that can still reach a top are taken: those the first walk met, when its bar is below every
 * top's cutoff, else those a second walk meets at that cutoff. The count of matches is of all
 * of them, none scored.
 */
export function rankWordsWalked(
  index: LexicalIndex,
  query: string,
  filter: Filter,
  tops: readonly Top[],
  lookup: (id: string) => MemoryRecord | undefined,
): RankedRows {
  const since = filter.since ?? null;
  const keep: KeepDocument =
    since === null ? null : (ordinal) => index.valueAt(ordinal, LAST_USED) >= since;
  const words = index.wordQuery(query, filter.statuses);
  const matched = words.count(keep);
  if (matched === 0) {
    const none = new RankedRows(false, lookup);
    none.relevance = new Float64Array(0);
    return none;
  }
  const wanted = seedCount(tops);
  const seeds = new BestValues(Math.max(1, Math.min(wanted, matched)));
  const met: { ordinals: number[]; scores: number[]; firsts: number[] } = {
    ordinals: [],
    scores: [],
    firsts: [],
  };
  let best = 0;
  words.walk(
    keep,
    () => seeds.floor * REACH,
    (ordinal, score, first) => {
      met.ordinals.push(ordinal);
      met.scores.push(score);
      met.firsts.push(first);
      seeds.offer(score);
      if (score > best) best = score;
    },
  );
  const bar = seeds.floor * REACH;
  const bars = new TopBars(tops, matched, best, index, filter);
  // A row's place among all rows (`match` meets them term by term, each in ordinal order).
  const span = index.ordinals;
  const seen = new Set<number>();
  const scores = Float64Array.from(met.scores);
  for (const j of largest(scores, scores.length, wanted)) {
    const ordinal = met.ordinals[j] as number;
    seen.add(ordinal);
    bars.take((met.firsts[j] as number) * span + ordinal, ordinal, scores[j] as number);
  }
  // In ordinal order, as a walk meets them.
  for (let j = 0; j < scores.length; j++) {
    const ordinal = met.ordinals[j] as number;
    const score = scores[j] as number;
    if (!seen.has(ordinal) && bars.reaches(score)) {
      bars.take((met.firsts[j] as number) * span + ordinal, ordinal, score);
    }
  }
  // A row the walk did not meet is below `bar`: once that is below the cutoff, `count` rows
  // taken beat it in every top. If not, rows below what the walk met may still reach a top,
  // and every match is scored after all.
  if (bars.cutoff < bar) return rankWordsMatched(index, query, filter, tops, lookup);
  return bars.rows(matched, lookup);
}

/**
 * Words alone, pruned, no minimum score, from every match already scored (`match`): with a tag
 * filter, which reads each match's record. A row that cannot reach any top costs a division
 * and a comparison, read from the index's buffers where they are.
 */
export function rankWordsMatched(
  index: LexicalIndex,
  query: string,
  filter: Filter,
  tops: readonly Top[],
  lookup: (id: string) => MemoryRecord | undefined,
): RankedRows {
  const matches = index.match(query, filter.statuses);
  let ordinals = matches.ordinals;
  let lexical = matches.scores;
  let n = matches.count;
  let best = matches.best;
  const since = filter.since ?? null;
  const tags = filter.tags ?? null;
  if (since !== null || tags !== null) {
    // Filtered into copies: the index's buffers are its own.
    const kept = new Int32Array(n);
    const keptLexical = new Float64Array(n);
    let k = 0;
    best = 0;
    for (let j = 0; j < n; j++) {
      const ordinal = ordinals[j] as number;
      if (since !== null && index.valueAt(ordinal, LAST_USED) < since) continue;
      if (tags !== null && !hasTag(index.recordAt(ordinal), tags)) continue;
      kept[k] = ordinal;
      const score = lexical[j] as number;
      keptLexical[k++] = score;
      if (score > best) best = score;
    }
    ordinals = kept;
    lexical = keptLexical;
    n = k;
  }
  const bars = new TopBars(tops, n, best, index, filter);
  const seen = new Uint8Array(n);
  for (const i of largest(lexical, n, seedCount(tops))) {
    seen[i] = 1;
    bars.take(i, ordinals[i] as number, lexical[i] as number);
  }
  for (let i = 0; i < n; i++) {
    if (seen[i] || !bars.reaches(lexical[i] as number)) continue;
    bars.take(i, ordinals[i] as number, lexical[i] as number);
  }
  return bars.rows(n, lookup);
}
