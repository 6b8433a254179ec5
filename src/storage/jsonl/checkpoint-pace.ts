// When a long load of memories.jsonl writes a checkpoint of its sidecar (log-sidecar.ts): the
// first after `firstMs`; each next one once the load has read twice the lines of the last and
// run three times as long as the last took to take and write (the load pays a few tenths for
// them at most). None when the load will be done sooner than twice what taking one would hold
// it (the load waits for the take): the sidecar written at its end comes about as soon, and a
// checkpoint at 96% of a million memories held the first answer up by a second.
export class CheckpointPace {
  /** When the load began (performance.now()), and the bytes of the log read then. */
  private started: { at: number; read: number } | undefined;
  /** How long the last take held the load, by line. */
  private takeMsPerLine: number | undefined;
  /** The last checkpoint's lines, and when the next one may be taken (performance.now()). */
  private last: { lines: number; due: number } | undefined;

  constructor(private readonly firstMs: number) {}

  /**
   * Whether a checkpoint is due `now`, the load having read `read` bytes of the log (`lines`
   * lines) with `remaining` bytes still to read.
   */
  due(now: number, read: number, lines: number, remaining: number): boolean {
    this.started ??= { at: now, read };
    const { last, started } = this;
    if (now < (last ? last.due : started.at + this.firstMs) || lines < 2 * (last?.lines ?? 0)) {
      return false;
    }
    // What the load reads a millisecond so far, and how long a take of this many lines holds it.
    const rate = (read - started.read) / Math.max(1, now - started.at);
    const takeMs = (this.takeMsPerLine ?? 0) * lines;
    return !(rate > 0 && remaining / rate < 2 * takeMs);
  }

  /** A checkpoint of `lines` lines was taken, asked for at `askedAt`: none until it is written. */
  taken(lines: number, askedAt: number, now: number): void {
    this.takeMsPerLine = (now - askedAt) / Math.max(1, lines);
    this.last = { lines, due: Number.POSITIVE_INFINITY };
  }

  /** The checkpoint asked for at `askedAt` is written (or failed to be) at `now`. */
  written(askedAt: number, now: number): void {
    if (!this.last) return;
    this.last = { lines: this.last.lines, due: now + Math.max(this.firstMs, 3 * (now - askedAt)) };
  }
}
