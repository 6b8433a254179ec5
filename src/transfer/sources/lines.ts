import fs from 'node:fs';
import readline from 'node:readline';

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

/** The non-blank lines of a file, numbered from 1, read as a stream (constant memory). */
export async function* lines(
  file: string,
  progress?: ReadProgress,
): AsyncGenerator<{ number: number; line: string }> {
  const input = fs.createReadStream(file, { encoding: 'utf8' });
  const reader = readline.createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let number = 0;
  let counted = 0;
  try {
    for await (const line of reader) {
      number++;
      if (progress && input.bytesRead !== counted) {
        progress.add(input.bytesRead - counted);
        counted = input.bytesRead;
      }
      if (line.trim() !== '') yield { number, line };
    }
  } finally {
    reader.close();
    input.destroy();
  }
}
