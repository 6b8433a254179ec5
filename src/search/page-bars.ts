// What a pruned walk (top-rows.ts, hybrid-rows.ts) asks of the tops while it offers rows: the
// bar of each top (the worst of the best values it holds), whether a row may still be among one
// top's best, and from the bars the lowest BM25 score a row may have and still reach one.
import { BestValues } from './best-values.js';
import type { Top } from './top-rows.js';

export class PageBars {
  private readonly bars: BestValues[];
  private readonly ceilings: Float64Array;
  private readonly positive: boolean[];
  private readonly floors: Float64Array;
  /** The highest ceiling of the tops. */
  private readonly highest: number;
  /**
   * The lowest bar: a row whose relevance times the highest ceiling is below it is below every
   * top's (relevance >= 0, so r * ceiling <= r * highest in floating point too).
   */
  private lowest = Number.NEGATIVE_INFINITY;

  /** `rows`: how many rows there are; no bar holds more (as in `contenders`). */
  constructor(
    private readonly tops: readonly Top[],
    rows: number,
  ) {
    this.bars = tops.map((top) => new BestValues(Math.min(top.count, rows)));
    this.ceilings = Float64Array.from(tops, (top) => top.ceiling);
    this.positive = tops.map((top) => top.positive === true);
    this.floors = new Float64Array(tops.length);
    let highest = 0;
    for (const ceiling of this.ceilings) highest = Math.max(highest, ceiling);
    this.highest = highest;
    this.raise();
  }

  /**
   * Offers a row of relevance `r` and decay score `score` to every top; true when it may be
   * among some top's best (the bars are then read again).
   */
  offer(r: number, score: number): boolean {
    let wanted = false;
    for (let t = 0; t < this.tops.length; t++) {
      const top = this.tops[t] as Top;
      const value = top.value(r, score);
      // Beaten outright by `count` rows already there (or at 0 in a positive-only top): never
      // among this top's best. A NaN is kept, as `contenders` keeps it.
      if (!(value < (this.floors[t] as number)) && !(this.positive[t] && !(value > 0))) {
        wanted = true;
      }
      if (!top.positive || value > 0) (this.bars[t] as BestValues).offer(value);
    }
    if (wanted) this.raise();
    return wanted;
  }

  /** Whether a row of relevance `r` can reach some top's bar at its ceiling. */
  mayReach(r: number): boolean {
    if (r * this.highest < this.lowest) return false;
    for (let t = 0; t < this.tops.length; t++) {
      const reach = r * (this.ceilings[t] as number);
      if (!(reach < (this.floors[t] as number) || (reach <= 0 && this.positive[t]))) return true;
    }
    return false;
  }

  /**
   * The BM25 score below which a row whose relevance is its score over `scale` is below every
   * bar (the margin, far above rounding, leaves a row near the edge to the exact test).
   */
  cutoff(scale: number): number {
    const { lowest, highest } = this;
    return lowest > 0 && highest > 0 && lowest < Number.POSITIVE_INFINITY
      ? (lowest / highest) * scale * (1 - 1e-9)
      : Number.NEGATIVE_INFINITY;
  }

  private raise(): void {
    let lowest = Number.POSITIVE_INFINITY;
    for (let t = 0; t < this.tops.length; t++) {
      const floor = (this.bars[t] as BestValues).floor;
      this.floors[t] = this.positive[t] ? Math.max(0, floor) : floor;
      lowest = Math.min(lowest, this.floors[t] as number);
    }
    this.lowest = lowest;
  }
}
