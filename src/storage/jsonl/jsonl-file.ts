// One append-only JSON Lines file of the data dir: appended, read incrementally, rewritten whole.
import fs from 'node:fs';
import path from 'node:path';
import {
  APPEND_FILE,
  FILE_MODE,
  replaceFile,
  syncDir,
  UPDATE_FILE,
  writeAll,
} from '../../platform/durable-file.js';
import { errorCode, UserError } from '../../platform/errors.js';
import {
  type BadLine,
  isJson,
  lastFragment,
  MAX_LINE_BYTES,
  NEWLINE,
  OVERLONG_HEAD,
  overlongLine,
  readFully,
  toLines,
} from '../jsonl-lines.js';

const READ_CHUNK = 1 << 20;

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

/**
 * An append that failed. `undone`: what reached the file was cut off again, so nothing of it is
 * there; otherwise some of it may be on disk.
 *
 * A user error, though the disk is at fault, not the call: the person is the one who can fix it
 * (free space, a failing disk), the message names the file and says whether the change is on
 * disk, which the agent needs to know to retry or not, and it holds no secret (a path, an errno
 * code). Not transient: a full disk stays full.
 */
export class WriteError extends UserError {
  override name = 'WriteError';
  constructor(
    message: string,
    readonly undone: boolean,
    options?: ErrorOptions,
  ) {
    super(message, undefined, options);
  }
}

export interface JsonlFileOptions {
  /**
   * Keeps a copy of a torn last line (a write cut short) before the append path cuts it off.
   * Without it the fragment is ended with a newline instead and stays, as an unreadable line its
   * readers report: the way for a file written without the lock, where a cut could take another
   * process's line, and for the quarantine itself.
   */
  keepTorn?: (line: BadLine) => void;
}

export interface ReadOptions {
  /**
   * Takes each value as soon as it is parsed (then `values` stays empty), with where its line is
   * (first byte, length in bytes without the newline).
   */
  visit?: (value: unknown, offset: number, length: number) => void;
  /** Called before the first value when the file was replaced or truncated. */
  onReset?: () => void;
  /** Stop after about this many bytes (whole lines), leaving `more` set. */
  maxBytes?: number;
  /** True for a line the caller took otherwise (another thread parsed it): not parsed here. */
  skip?: ((offset: number, length: number) => boolean) | undefined;
  /**
   * The length of the line that starts at `offset`, when another thread read it (undefined when
   * it does not know one there): such a line that `skip` takes is passed over without reading or
   * looking through its bytes here.
   */
  known?: ((offset: number) => number | undefined) | undefined;
}

/** A line already serialized, for `rewrite` to write as it is (without its newline). */
export class RawLine {
  constructor(readonly text: string) {}
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
  private readonly keepTorn: ((line: BadLine) => void) | undefined;

  constructor(filePath: string, options: JsonlFileOptions = {}) {
    this.path = filePath;
    this.keepTorn = options.keepTorn;
  }

  get name(): string {
    return path.basename(this.path);
  }

  readNew({
    visit,
    onReset,
    skip,
    known,
    maxBytes = Number.POSITIVE_INFINITY,
  }: ReadOptions = {}): ReadResult {
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
      this.fd = fs.openSync(this.path, APPEND_FILE, FILE_MODE);
      this.ino = fs.fstatSync(this.fd).ino;
      this.offset = 0;
      this.lineCount = 0;
    }
    const end = stat.size;
    if (end === this.offset || this.fd === null) return result;
    // Read and parse a chunk at a time, handing each value to `visit` (when given) as soon as it
    // is parsed, so a large file never sits in memory whole, nor do all its parsed values. The
    // line being read is kept as the pieces of the chunks it spans (never copied again chunk by
    // chunk: a 64 MB line took 3 s) and only up to MAX_LINE_BYTES, past which it is counted.
    let pos = this.offset;
    let at = pos;
    let pieces: Buffer[] = [];
    let partial = 0;
    // The text of the line of `length` bytes that ends with `last`: whole, or past the cap its head.
    const lineText = (last: Buffer, length: number): string =>
      length <= MAX_LINE_BYTES
        ? (pieces.length === 0 ? last : Buffer.concat([...pieces, last])).toString('utf8')
        : overlongLine([...pieces, last], length);
    // Lines another thread read and `skip` takes are passed over by their known lengths, their
    // bytes neither read nor looked through (at a million memories, reading the log again on this
    // thread for its newlines was a sixth of the load's work here). `refused`: the line `skip`
    // did not take when asked by its known length, not asked again.
    let refused = -1;
    const passKnown = (): void => {
      if (!known || !skip) return;
      while (pos - this.offset < maxBytes) {
        const length = known(pos);
        if (length === undefined || pos + length >= end) return;
        if (!skip(pos, length)) {
          refused = pos;
          return;
        }
        this.lineCount++;
        pos += length + 1;
      }
    };
    passKnown();
    at = pos;
    while (at < end) {
      // Known lines passed over as far as `maxBytes` (a chunk's lines are read whole, below).
      if (pos - this.offset >= maxBytes) {
        result.more = true;
        break;
      }
      const buf = Buffer.allocUnsafe(Math.min(READ_CHUNK, end - at));
      const read = readFully(this.fd, buf, at);
      if (read === 0) break;
      let start = 0;
      let passed = false;
      for (;;) {
        const nl = buf.indexOf(NEWLINE, start);
        if (nl === -1 || nl >= read) break;
        const length = partial + (nl - start);
        const taken = refused !== pos && skip !== undefined && length <= MAX_LINE_BYTES;
        if (length > 0 && !(taken && skip(pos, length))) {
          const text = lineText(buf.subarray(start, nl), length);
          let value: unknown;
          let ok = length <= MAX_LINE_BYTES;
          try {
            if (ok) value = JSON.parse(text);
          } catch {
            ok = false;
          }
          if (ok) {
            if (visit) visit(value, pos, length);
            else result.values.push(value);
          } else if (text.trim() !== '') {
            result.corrupt.push({ offset: pos, text });
          }
        }
        this.lineCount++;
        pos += length + 1;
        pieces = [];
        partial = 0;
        start = nl + 1;
        if (known) {
          const from = pos;
          passKnown();
          if (pos !== from) {
            // Past what this chunk holds: the next read starts where the known lines end.
            if (pos - at >= read) {
              passed = true;
              break;
            }
            start = pos - at;
          }
        }
      }
      if (passed) {
        at = pos;
        continue;
      }
      if (start < read) {
        const rest = buf.subarray(start, read);
        if (partial + rest.length <= MAX_LINE_BYTES) pieces.push(rest);
        else if (partial <= MAX_LINE_BYTES) {
          // Past the cap only the head is kept (what a quarantine shows), the rest only counted.
          pieces = [Buffer.from(Buffer.concat([...pieces, rest]).subarray(0, OVERLONG_HEAD))];
        }
        partial += rest.length;
      }
      at += read;
      if (read < buf.length) break;
      if (pos - this.offset >= maxBytes && at < end) {
        result.more = true;
        pieces = [];
        partial = 0;
        break;
      }
    }
    if (partial > 0) result.tail = { offset: pos, text: lineText(Buffer.alloc(0), partial) };
    this.offset = pos;
    return result;
  }

  /**
   * Appends lines and waits until they are on disk (without `sync`: derived data, which a crash
   * may lose), after repairing a torn tail so the first line cannot be glued onto it. Returns the
   * offset of the first line. A synced append that fails is cut back off before the error is
   * thrown, so a failed write is not on disk (a WriteError says whether that worked). The caller
   * holds the data dir lock.
   */
  append(values: readonly unknown[], { sync = true }: { sync?: boolean } = {}): number {
    this.assertOpen();
    if (values.length === 0) return this.offset;
    return this.appendText(toLines(values), values.length, { sync });
  }

  /** `append` of lines already serialized (`toLines`), `count` of them. */
  appendText(text: string, count: number, { sync = true }: { sync?: boolean } = {}): number {
    this.assertOpen();
    const start = this.repairTail();
    const fd = this.openForWrite();
    const buf = Buffer.from(text, 'utf8');
    try {
      writeAll(fd, buf);
      if (sync) fs.fdatasyncSync(fd);
    } catch (error) {
      // Unsynced appends are written without the lock: a cut could take another process's line.
      if (!sync) throw error;
      throw this.takeBack(fd, start, error as Error);
    }
    // Only when this reader had consumed the file up to here: otherwise it reads them later.
    if (this.offset === start) {
      this.offset += buf.length;
      this.lineCount += count;
    }
    return start;
  }

  /**
   * Makes the file end with a whole line: a last record that parses but lacks its newline (a
   * hand edit) is ended; any other fragment (a write cut short by a crash, a full disk,
   * `ulimit -f`) is handed to `keepTorn` and cut off, or ended when there is no `keepTorn`.
   * Returns the size, where the next line starts. The caller holds the lock.
   */
  repairTail(): number {
    const fd = this.openForWrite();
    const size = fs.fstatSync(fd).size;
    // Read or written up to here, where a whole line ends: nothing to look at.
    if (size === this.offset) return size;
    const tail = lastFragment(fd, size);
    if (!tail) return size;
    if (isJson(tail.text) || !this.keepTorn) {
      fs.writeSync(fd, '\n');
      fs.fdatasyncSync(fd);
      return size + 1;
    }
    // A copy is kept before the bytes go.
    this.keepTorn(tail);
    fs.ftruncateSync(fd, tail.offset);
    fs.fdatasyncSync(fd);
    if (this.offset > tail.offset) this.offset = tail.offset;
    return tail.offset;
  }

  /**
   * Takes back lines this process appended at `start` (a transaction that could not be
   * completed): the file is cut there, and the lines no longer count as read.
   */
  cutBack(start: number, lines: number): void {
    const fd = this.openForWrite();
    fs.ftruncateSync(fd, start);
    fs.fdatasyncSync(fd);
    this.rewind(start, lines);
  }

  /** Lines this process appended at `start` are to be read again (their fate is unknown). */
  rewind(start: number, lines: number): void {
    if (this.offset > start) {
      this.offset = start;
      this.lineCount = Math.max(0, this.lineCount - lines);
    }
  }

  /**
   * Finishes an append a crash interrupted, `text` meant to start at `start` of the file whose
   * inode was `ino`: writes what is missing of it. False when the file does not hold a start of
   * `text` there (it was replaced since), and nothing is written.
   */
  finishAppend(ino: number, start: number, text: string): boolean {
    // By name, not through a descriptor that may still point at a file since replaced.
    let fd: number;
    try {
      fd = fs.openSync(this.path, UPDATE_FILE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
    try {
      const stat = fs.fstatSync(fd);
      const want = Buffer.from(text, 'utf8');
      if (stat.ino !== ino || stat.size < start) return false;
      const have = Math.min(stat.size - start, want.length);
      const there = Buffer.alloc(have);
      readFully(fd, there, start);
      if (!there.equals(want.subarray(0, have))) return false;
      writeAll(fd, want.subarray(have), start + have);
      fs.fdatasyncSync(fd);
      return true;
    } finally {
      fs.closeSync(fd);
    }
  }

  /** The inode being appended to. */
  inode(): number {
    return fs.fstatSync(this.openForWrite()).ino;
  }

  /** Cuts bytes after the last complete line (a torn write). The caller holds the lock. */
  truncateTail(): void {
    const fd = this.openForWrite();
    fs.ftruncateSync(fd, this.offset);
    fs.fdatasyncSync(fd);
  }

  /**
   * Replaces the file with `values` atomically (`replaceFile`: `<file>.<pid>.tmp`, renamed); a
   * `RawLine` is written as it is. `onLine` is told where each line went, in order.
   */
  rewrite(values: Iterable<unknown>, onLine?: (offset: number, length: number) => void): void {
    this.assertOpen();
    let lines = 0;
    let offset = 0;
    function* chunks(): Iterable<string> {
      let chunk = '';
      for (const v of values) {
        const text = v instanceof RawLine ? v.text : JSON.stringify(v);
        chunk += `${text}\n`;
        lines++;
        if (onLine) {
          const length = Buffer.byteLength(text);
          onLine(offset, length);
          offset += length + 1;
        }
        if (chunk.length > 1 << 20) {
          yield chunk;
          chunk = '';
        }
      }
      if (chunk) yield chunk;
    }
    replaceFile(this.path, chunks());
    this.closeFd();
    this.fd = fs.openSync(this.path, APPEND_FILE, FILE_MODE);
    const stat = fs.fstatSync(this.fd);
    this.ino = stat.ino;
    this.offset = stat.size;
    this.lineCount = lines;
  }

  size(): number {
    return this.offset;
  }

  /** The inode last read or written (-1 before). */
  get inodeRead(): number {
    return this.ino;
  }

  /**
   * Starts reading at `size` (a line boundary, `lines` lines in) of the file as it is now, when
   * `matches` says its descriptor holds what was read there before; false (nothing changed)
   * otherwise. Only before the first read.
   */
  resumeAt(size: number, lines: number, matches: (fd: number) => boolean): boolean {
    this.assertOpen();
    if (this.fd !== null) return false;
    const stat = fs.statSync(this.path, { throwIfNoEntry: false });
    if (!stat || stat.size < size) return false;
    const fd = fs.openSync(this.path, APPEND_FILE, FILE_MODE);
    let ok = false;
    try {
      ok = matches(fd);
    } finally {
      if (!ok) fs.closeSync(fd);
    }
    if (!ok) return false;
    this.fd = fd;
    this.ino = fs.fstatSync(fd).ino;
    this.offset = size;
    this.lineCount = lines;
    return true;
  }

  /** Forgets what was read: the next `readNew` reads the file from its start. */
  restart(): void {
    this.assertOpen();
    this.closeFd();
    this.ino = -1;
    this.offset = 0;
    this.lineCount = 0;
  }

  /** `fn` with the descriptor of the file last read. */
  withFd<T>(fn: (fd: number) => T): T {
    this.assertOpen();
    if (this.fd === null) throw new Error(`${this.name} has not been read`);
    return fn(this.fd);
  }

  /**
   * The `length` bytes at `offset` of the file last read (a replacement is read only by the next
   * `readNew`, so a line found there can be read again here until then).
   */
  readAt(offset: number, length: number): Buffer {
    this.assertOpen();
    if (this.fd === null) throw new Error(`${this.name} has not been read`);
    const buf = Buffer.allocUnsafe(length);
    let read = 0;
    while (read < length) {
      const n = fs.readSync(this.fd, buf, read, length - read, offset + read);
      if (n === 0) throw new Error(`${this.name} ends before byte ${offset + length}`);
      read += n;
    }
    return buf;
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
      this.fd = fs.openSync(this.path, APPEND_FILE, FILE_MODE);
      this.ino = fs.fstatSync(this.fd).ino;
      // A new file's name is durable only once its folder is synced too.
      if (created) syncDir(path.dirname(this.path));
    }
    return this.fd;
  }

  /** The error of a synced append that failed, after cutting off what it wrote. */
  private takeBack(fd: number, start: number, error: Error): WriteError {
    const why = errorCode(error);
    try {
      fs.ftruncateSync(fd, start);
      fs.fdatasyncSync(fd);
    } catch (undo) {
      return new WriteError(
        `writing to ${this.path} failed (${why}) and what was written could not be cut off ` +
          `(${errorCode(undo)}): the change may be on disk. Fix the disk (free space, ` +
          'errors), then check before making it again',
        false,
        { cause: error },
      );
    }
    return new WriteError(
      `could not write to ${this.path} (${why}): nothing was written. Free disk space or fix ` +
        'the disk, then try again',
      true,
      { cause: error },
    );
  }

  private closeFd(): void {
    if (this.fd !== null) {
      fs.closeSync(this.fd);
      this.fd = null;
    }
  }
}

/**
 * Reads a file that is not kept open (forgotten.jsonl): its parsable lines, and the others (an
 * unfinished last line among them) for the caller to report.
 */
export function readAllLines(filePath: string): { values: unknown[]; bad: BadLine[] } {
  const file = new JsonlFile(filePath);
  try {
    const read = file.readNew();
    return { values: read.values, bad: read.tail ? [...read.corrupt, read.tail] : read.corrupt };
  } finally {
    file.close();
  }
}
