import fs from 'node:fs';
import readline from 'node:readline';

/** The non-blank lines of a file, numbered from 1, read as a stream (constant memory). */
export async function* lines(file: string): AsyncGenerator<{ number: number; line: string }> {
  const input = fs.createReadStream(file, { encoding: 'utf8' });
  const reader = readline.createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let number = 0;
  try {
    for await (const line of reader) {
      number++;
      if (line.trim() !== '') yield { number, line };
    }
  } finally {
    reader.close();
    input.destroy();
  }
}
