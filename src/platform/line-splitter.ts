/**
 * Splits a byte stream at `\n` into lines of at most `max` bytes held: a longer line keeps its
 * first `max` bytes and only counts the rest, so memory stays bounded whatever the other side
 * sends (a line that never ends included), and each chunk is scanned once.
 */
export class LineSplitter {
  private pieces: Buffer[] = [];
  private held = 0;
  private length = 0;

  /** `onLine` gets the line's first `max` bytes (all of it when `bytes <= max`) and its length. */
  constructor(
    private readonly max: number,
    private readonly onLine: (line: Buffer, bytes: number) => void,
  ) {}

  /** Bytes of the line being read so far, past `max` too. */
  get pending(): number {
    return this.length;
  }

  push(data: Buffer): void {
    let start = 0;
    while (start <= data.length) {
      const newline = data.indexOf(0x0a, start);
      const end = newline === -1 ? data.length : newline;
      const kept = Math.min(end - start, this.max - this.held);
      if (kept > 0) {
        this.pieces.push(Buffer.from(data.subarray(start, start + kept)));
        this.held += kept;
      }
      this.length += end - start;
      if (newline === -1) return;
      const line = Buffer.concat(this.pieces);
      const bytes = this.length;
      this.clear();
      start = newline + 1;
      this.onLine(line, bytes);
    }
  }

  clear(): void {
    this.pieces = [];
    this.held = 0;
    this.length = 0;
  }
}
