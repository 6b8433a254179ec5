import fs from 'node:fs';
import path from 'node:path';

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;
const NEWLINE = 0x0a;
const READ_CHUNK = 1 << 20;

export interface BadLine {
  offset: number;
  text: string;
}

export interface ReadResult {
  /** The file was replaced (compacted by another process) or truncated: start over from `values`. */
  reset: boolean;
  values: unknown[];
  /** Complete lines that are not JSON. */
  corrupt: BadLine[];
  /** Bytes after the last newline: a write in progress, or one a crash cut short. */
  tail: BadLine | null;
  /** `maxBytes` stopped the read early: call again for the rest. */
  more: boolean;
}

export interface ReadOptions {
  /** Takes each value as soon as it is parsed (then `values` stays empty). */
  visit?: (value: unknown) => void;
  /** Called before the first value when the file was replaced or truncated. */
  onReset?: () => void;
  /** Stop after about this many bytes (whole lines), leaving `more` set. */
  maxBytes?: number;
}

/**
 * One append-only JSON Lines file read incrementally. It keeps the offset of the last complete
 * line it consumed and the inode it read, so appends and replacements by other processes are
 * picked up by the next `readNew`.
 */
export class JsonlFile {
  readonly path: string;
  private fd: number | null = null;
  private ino = -1;
  private offset = 0;
  /** Complete lines consumed since the last reset (stale ones included). */
  lineCount = 0;
  private closed = false;

  constructor(filePath: string) {
    this.path = filePath;
  }

  get name(): string {
    return path.basename(this.path);
  }

  readNew({ visit, onReset, maxBytes = Number.POSITIVE_INFINITY }: ReadOptions = {}): ReadResult {
    this.assertOpen();
    const result: ReadResult = { reset: false, values: [], corrupt: [], tail: null, more: false };
    const stat = fs.statSync(this.path, { throwIfNoEntry: false });
    if (!stat) {
      if (this.ino !== -1) {
        this.closeFd();
        this.ino = -1;
        this.offset = 0;
        this.lineCount = 0;
        result.reset = true;
        onReset?.();
      }
      return result;
    }
    if (stat.ino !== this.ino || stat.size < this.offset) {
      if (this.ino !== -1) {
        result.reset = true;
        onReset?.();
      }
      this.closeFd();
      this.fd = fs.openSync(this.path, 'a+', FILE_MODE);
      this.ino = fs.fstatSync(this.fd).ino;
      this.offset = 0;
      this.lineCount = 0;
    }
    const end = stat.size;
    if (end === this.offset || this.fd === null) return result;
    // Read and parse a chunk at a time, handing each value to `visit` (when given) as soon as it
    // is parsed, so a large file never sits in memory whole, nor do all its parsed values.
    let pos = this.offset;
    let carry = Buffer.alloc(0);
    while (pos + carry.length < end) {
      const want = Math.min(READ_CHUNK, end - pos - carry.length);
      const buf = Buffer.allocUnsafe(carry.length + want);
      carry.copy(buf, 0);
      let read = carry.length;
      while (read < buf.length) {
        const n = fs.readSync(this.fd, buf, read, buf.length - read, pos + read);
        if (n === 0) break;
        read += n;
      }
      let start = 0;
      for (;;) {
        const nl = buf.indexOf(NEWLINE, start);
        if (nl === -1 || nl >= read) break;
        if (nl > start) {
          const text = buf.toString('utf8', start, nl);
          let value: unknown;
          let ok = true;
          try {
            value = JSON.parse(text);
          } catch {
            ok = false;
            if (text.trim() !== '') result.corrupt.push({ offset: pos + start, text });
          }
          if (ok) {
            if (visit) visit(value);
            else result.values.push(value);
          }
        }
        this.lineCount++;
        start = nl + 1;
      }
      pos += start;
      carry = Buffer.from(buf.subarray(start, read));
      if (read < buf.length) break;
      if (pos - this.offset >= maxBytes && pos + carry.length < end) {
        result.more = true;
        carry = Buffer.alloc(0);
        break;
      }
    }
    if (carry.length > 0) {
      result.tail = { offset: pos, text: carry.toString('utf8') };
    }
    this.offset = pos;
    return result;
  }

  /**
   * Appends lines and waits until they are on disk (without `sync`: derived data, which a crash
   * may lose). The caller holds the data dir lock.
   */
  append(values: readonly unknown[], { sync = true }: { sync?: boolean } = {}): void {
    this.assertOpen();
    if (values.length === 0) return;
    const fd = this.openForWrite();
    let text = '';
    for (const v of values) text += `${JSON.stringify(v)}\n`;
    const buf = Buffer.from(text, 'utf8');
    let written = 0;
    while (written < buf.length) {
      written += fs.writeSync(fd, buf, written, buf.length - written);
    }
    if (sync) fs.fdatasyncSync(fd);
    this.offset += buf.length;
    this.lineCount += values.length;
  }

  /** Ends a complete last line that lacks its newline (a hand edit). The caller holds the lock. */
  terminateTail(): void {
    const fd = this.openForWrite();
    fs.writeSync(fd, '\n');
    fs.fdatasyncSync(fd);
  }

  /** Cuts bytes after the last complete line (a torn write). The caller holds the lock. */
  truncateTail(): void {
    const fd = this.openForWrite();
    fs.ftruncateSync(fd, this.offset);
    fs.fdatasyncSync(fd);
  }

  /** Replaces the file with `values`: temp file, fsync, rename, fsync of the folder. */
  rewrite(values: Iterable<unknown>): void {
    this.assertOpen();
    const tmp = `${this.path}.${process.pid}.tmp`;
    const fd = fs.openSync(tmp, 'w', FILE_MODE);
    let lines = 0;
    try {
      let chunk = '';
      for (const v of values) {
        chunk += `${JSON.stringify(v)}\n`;
        lines++;
        if (chunk.length > 1 << 20) {
          fs.writeSync(fd, chunk);
          chunk = '';
        }
      }
      if (chunk) fs.writeSync(fd, chunk);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, this.path);
    syncDir(path.dirname(this.path));
    this.closeFd();
    this.fd = fs.openSync(this.path, 'a+', FILE_MODE);
    const stat = fs.fstatSync(this.fd);
    this.ino = stat.ino;
    this.offset = stat.size;
    this.lineCount = lines;
  }

  size(): number {
    return this.offset;
  }

  close(): void {
    this.closeFd();
    this.closed = true;
  }

  private assertOpen(): void {
    // A closed file would read as if nothing were there: refuse rather than mislead.
    if (this.closed) throw new Error(`${this.name} is closed`);
  }

  private openForWrite(): number {
    if (this.fd === null) {
      const created = !fs.existsSync(this.path);
      this.fd = fs.openSync(this.path, 'a+', FILE_MODE);
      this.ino = fs.fstatSync(this.fd).ino;
      // A new file's name is durable only once its folder is synced too.
      if (created) syncDir(path.dirname(this.path));
    }
    return this.fd;
  }

  private closeFd(): void {
    if (this.fd !== null) {
      fs.closeSync(this.fd);
      this.fd = null;
    }
  }
}

export function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some platforms (Windows) cannot fsync a directory; the rename is still atomic there.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Reads every parsable line of a file that is not kept open (forgotten.jsonl, quarantine). */
export function readAllLines(filePath: string): unknown[] {
  const file = new JsonlFile(filePath);
  try {
    return file.readNew().values;
  } finally {
    file.close();
  }
}
