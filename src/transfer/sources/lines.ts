import fs from 'node:fs';
import { LineSplitter } from '../../platform/line-splitter.js';

/** Told how far a source has read: bytes done of the bytes it will read in all. */
export type ReadReport = (done: number, total: number) => void;

/** Bytes read across the passes a source makes over its files, told to a report. */
export class ReadProgress {
  private done = 0;

  constructor(
    private readonly total: number,
    private readonly report: ReadReport | undefined,
  ) {}

  /** A progress over the files' sizes, `passes` times each; none without a report. */
  static of(files: string[], report: ReadReport | undefined, passes = 1): ReadProgress {
    let total = 0;
    if (report) {
      for (const file of files) {
        try {
          total += fs.statSync(file).size * passes;
        } catch {
          // not there: nothing to read
        }
      }
    }
    return new ReadProgress(total, report);
  }

  add(bytes: number): void {
    if (!this.report || bytes === 0) return;
    this.done += bytes;
    this.report(Math.min(this.done, this.total), this.total);
  }
}

/**
 * The longest line read whole: no record of the formats imported comes near it. A longer one is
 * given by its first bytes only, so its source refuses it by its number (it is no JSON) and the
 * rest imports: readline held any line whole, and one past 512 MB ended `mnemo import` with a
 * stack trace.
 */
export const MAX_IMPORT_LINE_BYTES = 16 << 20;

/** The non-blank lines of a file, numbered from 1, read as a stream (bounded memory). */
export async function* lines(
  file: string,
  progress?: ReadProgress,
): AsyncGenerator<{ number: number; line: string }> {
  const input = fs.createReadStream(file);
  const ready: string[] = [];
  const splitter = new LineSplitter(MAX_IMPORT_LINE_BYTES, (line) => {
    // A CRLF file's lines end with \r, which is no part of them.
    const end = line.length > 0 && line[line.length - 1] === 0x0d ? line.length - 1 : line.length;
    ready.push(line.toString('utf8', 0, end));
  });
  let number = 0;
  try {
    for await (const chunk of input) {
      progress?.add((chunk as Buffer).length);
      splitter.push(chunk as Buffer);
      for (const line of ready.splice(0)) {
        number++;
        if (line.trim() !== '') yield { number, line };
      }
    }
    if (splitter.pending > 0) splitter.push(Buffer.from('\n'));
    for (const line of ready.splice(0)) {
      number++;
      if (line.trim() !== '') yield { number, line };
    }
  } finally {
    input.destroy();
  }
}
