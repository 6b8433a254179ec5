// How far behind the other replicas this one applies their writes: for each change it reads,
// the time from the change row's write (the database's clock, just before its commit) to its
// application here. Kept for the last changes only, for /health.

import type { LagSummary } from '../namespace-view.js';

/** The changes the figures are of: the most recent ones. */
export const LAG_WINDOW = 1024;

export class ReplicationLag {
  private readonly samples = new Float64Array(LAG_WINDOW);
  private count = 0;

  /** Changes written at `writtenAt` (ms since the epoch) were applied at `now`. */
  applied(writtenAt: readonly number[], now = Date.now()): void {
    for (const at of writtenAt) {
      // A clock of the database's host ahead of this one's reads as no lag, not a negative one.
      this.samples[this.count % LAG_WINDOW] = Math.max(0, now - at);
      this.count++;
    }
  }

  /**
   * Nearest-rank percentiles of the last LAG_WINDOW changes (fewer until that many were), in
   * whole ms; null before any change was applied.
   */
  summary(): LagSummary | null {
    const n = Math.min(this.count, LAG_WINDOW);
    if (n === 0) return null;
    const sorted = this.samples.slice(0, n).sort();
    const at = (p: number) => Math.round(sorted[Math.max(0, Math.ceil(p * n) - 1)] as number);
    return { p50_ms: at(0.5), p99_ms: at(0.99) };
  }
}
