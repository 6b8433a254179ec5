// One line of a JSON Lines log at the level of bytes: what counts as a line, how long one may be,
// and what is kept of one that is not a record (a torn tail, an over-long line).
import fs from 'node:fs';

export const NEWLINE = 0x0a;
/**
 * The longest line read as a record: mnemo writes none near it (50,000 characters of content and
 * 20 versions of it, escaped, stay under 7 MB). A longer one (a synced or damaged file) is a bad
 * line, of which only the head is kept.
 */
export const MAX_LINE_BYTES = 16 << 20;
/** How much of an over-long line is kept for its quarantine. */
export const OVERLONG_HEAD = 64 * 1024;

export interface BadLine {
  offset: number;
  text: string;
}

/** Values as JSON Lines, each line ended. */
export function toLines(values: Iterable<unknown>): string {
  let text = '';
  for (const v of values) text += `${JSON.stringify(v)}\n`;
  return text;
}

export function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export function readFully(fd: number, buf: Buffer, position: number): number {
  let read = 0;
  while (read < buf.length) {
    const n = fs.readSync(fd, buf, read, buf.length - read, position + read);
    if (n === 0) break;
    read += n;
  }
  return read;
}

/** What is kept of a line of `length` bytes past MAX_LINE_BYTES: its head, and its size. */
export function overlongLine(pieces: Buffer[], length: number): string {
  const head = Buffer.concat(
    pieces,
    Math.min(
      OVERLONG_HEAD,
      pieces.reduce((n, p) => n + p.length, 0),
    ),
  ).toString('utf8');
  return `${head}… (a line of ${length} bytes, over the ${MAX_LINE_BYTES}-byte limit: the rest is not kept)`;
}

/** The bytes after the last newline of a file of `size` bytes, or null when it ends with one. */
export function lastFragment(fd: number, size: number): BadLine | null {
  if (size === 0) return null;
  const last = Buffer.alloc(1);
  readFully(fd, last, size - 1);
  if (last[0] === NEWLINE) return null;
  let start = 0;
  const chunk = Buffer.allocUnsafe(64 * 1024);
  for (let end = size; end > 0; ) {
    const from = Math.max(0, end - chunk.length);
    const n = readFully(fd, chunk.subarray(0, end - from), from);
    const nl = chunk.subarray(0, n).lastIndexOf(NEWLINE);
    if (nl !== -1) {
      start = from + nl + 1;
      break;
    }
    end = from;
  }
  // A fragment past the cap (a synced or damaged file) is kept by its head: read whole, 1 GB
  // of it failed every append.
  const length = size - start;
  const text = Buffer.alloc(Math.min(length, length <= MAX_LINE_BYTES ? length : OVERLONG_HEAD));
  readFully(fd, text, start);
  return {
    offset: start,
    text: length <= MAX_LINE_BYTES ? text.toString('utf8') : overlongLine([text], length),
  };
}
