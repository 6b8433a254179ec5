// What a query names lifts its best matches: a time (time-ranking.ts) and names
// (entity-ranking.ts). Each lift reads the memory's record, so only the rows that can still
// reach the page are lifted: the best LIFT_POOL, in rank order, until the rest could not reach
// the `need` best even at the highest lift.
import { BestValues } from '../search/best-values.js';
import { topN } from '../search/ranking.js';

/** The best matches a query's lifts look at: the rest rank as they are. */
export const LIFT_POOL = 100;

/**
 * Multiplies the ranks of the best LIFT_POOL rows by `liftOf(row)` (at least 1, at most
 * `maxLift`), in place, as far as it can change the `need` best: a row whose rank times
 * `maxLift` stays below the `need`-th best lifted rank already is left as it is, with every row
 * after it. The `need` best rows and their order are those of lifting every row of the pool.
 */
export function liftBest(
  ranks: Float64Array,
  need: number,
  maxLift: number,
  liftOf: (row: number) => number,
): void {
  const bar = new BestValues(need);
  // A margin far above rounding: the product of the lifts may round above maxLift by an ulp.
  const reach = maxLift * (1 + 1e-9);
  for (const { index, rank } of topN(ranks, LIFT_POOL)) {
    if (rank * reach < bar.floor) break;
    const lifted = rank * liftOf(index);
    ranks[index] = lifted;
    bar.offer(lifted);
  }
}
