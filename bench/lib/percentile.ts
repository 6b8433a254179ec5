/** Summary of a list of timings, in the unit they were given (ms here). */
export interface Summary {
  n: number;
  p50: number;
  p99: number;
}

/**
 * The nearest-rank percentile (0 < p <= 100) of `values`: the smallest value with at least p% of
 * the values at or below it. With 20 samples, p99 is the maximum.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] as number;
}

export function summarize(values: readonly number[]): Summary {
  return { n: values.length, p50: percentile(values, 50), p99: percentile(values, 99) };
}
