// The sidecar: a derived file beside memories.jsonl that holds what a start would otherwise work
// out again from every line of the log (where each memory's line is, the words index), so that a
// start reads it and then only the lines appended since. The log stays the source of truth: a
// sidecar that does not match it byte for byte is not used.
import crypto from 'node:crypto';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { replaceFile, replaceFileAsync } from '../platform/durable-file.js';
import { type Range, readInOrder, ShortFileError } from '../platform/read-in-order.js';

export const SIDECAR_FILE = 'memories.idx';
/** The layout of the file; another one is not read. */
export const SIDECAR_FORMAT = 1;
const MAGIC = Buffer.from('MNEMOIDX');
/** How many bytes of the log before the point the sidecar was made at are hashed to check it. */
const TAIL_BYTES = 4096;

export type Column = Uint8Array | Uint16Array | Int32Array | Float64Array;
type ColumnType = 'u8' | 'u16' | 'i32' | 'f64';

const TYPES: Record<
  ColumnType,
  { bytes: number; make: (b: ArrayBuffer, o: number, n: number) => Column }
> = {
  u8: { bytes: 1, make: (b, o, n) => new Uint8Array(b, o, n) },
  u16: { bytes: 2, make: (b, o, n) => new Uint16Array(b, o, n) },
  i32: { bytes: 4, make: (b, o, n) => new Int32Array(b, o, n) },
  f64: { bytes: 8, make: (b, o, n) => new Float64Array(b, o, n) },
};

const typeOf = (column: Column): ColumnType =>
  column instanceof Float64Array
    ? 'f64'
    : column instanceof Int32Array
      ? 'i32'
      : column instanceof Uint16Array
        ? 'u16'
        : 'u8';

/** The point of the log a sidecar was made at. */
export interface LogPoint {
  /** Bytes of memories.jsonl read. */
  size: number;
  /** Lines in them (stale ones too): what compaction is decided by. */
  lines: number;
  /** A hash of the last bytes before `size`: a log that was replaced or edited does not match. */
  tail: string;
}

/** What a sidecar holds: a JSON header of its own, and named columns. */
export interface SidecarContent {
  log: LogPoint;
  /** The shape of what is in it (a tokenizer version, parameters): unequal means not used. */
  shape: Record<string, unknown>;
  /** Anything small a part wants kept, as JSON. */
  meta: Record<string, unknown>;
  columns: Record<string, Column>;
}

interface Header {
  format: number;
  log: LogPoint;
  shape: Record<string, unknown>;
  meta: Record<string, unknown>;
  columns: { name: string; type: ColumnType; offset: number; count: number }[];
  /** The size of the whole file and a CRC-32 of everything after the header. */
  size: number;
  crc: number;
}

/** Why a sidecar was not used: said in one log line. */
export class SidecarMismatch extends Error {
  override name = 'SidecarMismatch';
}

/** The hash of the `TAIL_BYTES` bytes of the log before `size`. */
export function logTail(fd: number, size: number): string {
  const start = Math.max(0, size - TAIL_BYTES);
  const buf = Buffer.alloc(size - start);
  let read = 0;
  while (read < buf.length) {
    const n = fs.readSync(fd, buf, read, buf.length - read, start + read);
    if (n === 0) break;
    read += n;
  }
  return crypto.createHash('sha256').update(buf.subarray(0, read)).digest('hex').slice(0, 32);
}

const pad8 = (n: number) => (n + 7) & ~7;

/**
 * The CRC-32 of `bytes` after `crc`. Node 20's zlib.crc32 answers 0 for an empty view over an
 * empty buffer (an empty column's), whatever `crc`: an empty piece leaves the CRC as it is.
 */
const crcAfter = (bytes: Uint8Array, crc: number) =>
  bytes.length === 0 ? crc : zlib.crc32(bytes, crc);

/** The bytes of the body the CRC is worked out over between two turns of the event loop. */
const CRC_SLICE = 8 * 1024 * 1024;

/** A sidecar laid out: its columns' places, and its body as the pieces it is written from. */
interface Layout {
  columns: Header['columns'];
  bodyLength: number;
  /** The body piece by piece (views of the columns and their padding, never copied whole). */
  pieces: Uint8Array[];
}

function layoutOf(content: SidecarContent): Layout {
  const columns: Header['columns'] = [];
  const pieces: Uint8Array[] = [];
  let offset = 0;
  for (const [name, column] of Object.entries(content.columns)) {
    columns.push({ name, type: typeOf(column), offset, count: column.length });
    pieces.push(new Uint8Array(column.buffer, column.byteOffset, column.byteLength));
    const end = offset + column.byteLength;
    offset = pad8(end);
    if (offset > end) pieces.push(new Uint8Array(offset - end));
  }
  return { columns, bodyLength: offset, pieces };
}

/** The header of a laid-out sidecar whose body has checksum `crc`. */
function headerOf(content: SidecarContent, layout: Layout, crc: number): Buffer {
  const header = (size: number): Buffer => {
    const h: Header = {
      format: SIDECAR_FORMAT,
      log: content.log,
      shape: content.shape,
      meta: content.meta,
      columns: layout.columns,
      size,
      crc,
    };
    const json = Buffer.from(JSON.stringify(h));
    const out = Buffer.alloc(pad8(MAGIC.length + 4 + json.length), 0x20);
    MAGIC.copy(out, 0);
    out.writeUInt32LE(json.length, MAGIC.length);
    json.copy(out, MAGIC.length + 4);
    return out;
  };
  // The header holds the file's size, which depends on the header's own length: settle it.
  let head = header(0);
  for (let size = head.length + layout.bodyLength; ; ) {
    head = header(size);
    if (head.length + layout.bodyLength === size) return head;
    size = head.length + layout.bodyLength;
  }
}

/**
 * Writes `content` to `file` atomically (a temp file, fsync, rename): a crash at any instant
 * leaves the old sidecar or the new one. Returns the bytes written.
 */
export function writeSidecar(file: string, content: SidecarContent): number {
  const layout = layoutOf(content);
  let crc = 0;
  if (typeof zlib.crc32 === 'function') {
    for (const piece of layout.pieces) crc = crcAfter(piece, crc);
  }
  const head = headerOf(content, layout, crc);
  replaceFile(file, [head, ...layout.pieces]);
  return head.length + layout.bodyLength;
}

/**
 * `writeSidecar` without holding the event loop: the checksum is worked out a few megabytes a
 * turn (`pause` between slices), the bytes written, synced and renamed in the thread pool. The
 * columns must not change until it settles. As atomic: a kill at any instant leaves the old
 * sidecar or the new one, and at worst a temp file the next start removes.
 */
export async function writeSidecarAsync(
  file: string,
  content: SidecarContent,
  pause: () => Promise<void>,
): Promise<number> {
  const layout = layoutOf(content);
  let crc = 0;
  if (typeof zlib.crc32 === 'function') {
    for (const piece of layout.pieces) {
      for (let at = 0; at < piece.length; at += CRC_SLICE) {
        crc = crcAfter(piece.subarray(at, at + CRC_SLICE), crc);
        await pause();
      }
    }
  }
  const head = headerOf(content, layout, crc);
  await replaceFileAsync(file, [head, ...layout.pieces]);
  return head.length + layout.bodyLength;
}

/**
 * Reads the sidecar at `file` if it is whole, of this format and of this `shape`; throws a
 * SidecarMismatch saying why it is not. Undefined when there is none. Each column is read into a
 * buffer of its own (in pieces, several at a time in the thread pool, the checksum worked out
 * over them in file order as they come: `readInOrder`): whoever restores from a column may keep
 * it rather than copy it, and a column let go is freed alone.
 * One buffer for the whole file kept every byte of it alive (31 MB at 100,000 memories) beside
 * the copies taken of it, until a full collection, long after the start. `room` says how many
 * rows the buffer of a column its owner adds to after the start has (the owner then keeps it as
 * it is, without a copy into a larger one).
 */
export async function readSidecar(
  file: string,
  shape: Record<string, unknown>,
  room: (column: string, count: number) => number = (_, count) => count,
): Promise<SidecarContent | undefined> {
  let fd: number;
  try {
    // Never through a link, never waiting on a FIFO: a derived file, rebuilt when it is not one.
    fd = fs.openSync(
      file,
      fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0),
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadable(error);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new SidecarMismatch('it cannot be read (ENOTREG)');
    return await readOpenSidecar(fd, stat.size, shape, room);
  } catch (error) {
    if (error instanceof SidecarMismatch) throw error;
    throw unreadable(error);
  } finally {
    fs.closeSync(fd);
  }
}

const unreadable = (error: unknown) =>
  new SidecarMismatch(`it cannot be read (${(error as NodeJS.ErrnoException).code})`);

/** Fills `into` with the bytes at `position`; returns how many there were (fewer at the end). */
function readAt(fd: number, into: Uint8Array, position: number): number {
  let read = 0;
  while (read < into.length) {
    const n = fs.readSync(fd, into, read, into.length - read, position + read);
    if (n === 0) break;
    read += n;
  }
  return read;
}

/**
 * The most bytes a sidecar mnemo wrote has between two columns, or before the first or after
 * the last: each column starts at a multiple of 8.
 */
const MAX_GAP = 7;

async function readOpenSidecar(
  fd: number,
  size: number,
  shape: Record<string, unknown>,
  room: (column: string, count: number) => number,
): Promise<SidecarContent> {
  const intro = Buffer.alloc(MAGIC.length + 4);
  if (readAt(fd, intro, 0) < intro.length || !intro.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new SidecarMismatch('it is not a mnemo sidecar');
  }
  const length = intro.readUInt32LE(MAGIC.length);
  if (MAGIC.length + 4 + length > size) throw new SidecarMismatch('its header is torn');
  const json = Buffer.alloc(length);
  let parsed: unknown;
  try {
    if (readAt(fd, json, MAGIC.length + 4) < length) throw new Error('short');
    parsed = JSON.parse(json.toString('utf8'));
  } catch {
    throw new SidecarMismatch('its header is torn');
  }
  // A data dir synced from elsewhere may hold any header (the CRC covers the body only): one
  // that is not of the shape written is a mismatch like the others, never an error of the start.
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SidecarMismatch('its header is not an object');
  }
  const header = parsed as Header;
  const log = header.log as Partial<LogPoint> | null;
  const count = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  if (typeof log !== 'object' || log === null || !count(log.size) || !count(log.lines)) {
    throw new SidecarMismatch('its point in the log is not a size and a count of lines');
  }
  if (typeof log.tail !== 'string') throw new SidecarMismatch('its hash of the log is missing');
  if (header.format !== SIDECAR_FORMAT) {
    throw new SidecarMismatch(
      `it is of format ${header.format}, this mnemo reads ${SIDECAR_FORMAT}`,
    );
  }
  if (header.size !== size) {
    throw new SidecarMismatch(`it is ${size} bytes where its header says ${header.size}`);
  }
  if (JSON.stringify(header.shape) !== JSON.stringify(shape)) {
    throw new SidecarMismatch('it was made by another version of mnemo, or with other settings');
  }
  const start = pad8(MAGIC.length + 4 + length);
  const places = columnPlaces(header, start, size);
  // The body in file order: each column into its own buffer, the padding between them only
  // checksummed.
  const ranges: Range[] = [];
  const gap = (from: number, to: number) => {
    if (to - from > MAX_GAP) throw new SidecarMismatch('its columns are not laid out as written');
    if (to > from) ranges.push({ from, into: new Uint8Array(to - from) });
  };
  const columns: Record<string, Column> = {};
  let at = start;
  for (const place of places) {
    gap(at, place.from);
    // Room past the column for what its owner adds later (never read, never resident until then).
    const own = new ArrayBuffer(
      Math.max(place.count, room(place.name, place.count)) * place.type.bytes,
    );
    const bytes = new Uint8Array(own, 0, place.count * place.type.bytes);
    ranges.push({ from: place.from, into: bytes });
    columns[place.name] = place.type.make(own, 0, place.count);
    at = place.from + bytes.length;
  }
  gap(at, size);
  let crc = 0;
  try {
    await readInOrder(fd, ranges, (piece) => {
      if (typeof zlib.crc32 === 'function') crc = crcAfter(piece, crc);
    });
  } catch (error) {
    if (error instanceof ShortFileError) throw new SidecarMismatch('it was cut short');
    throw error;
  }
  if (typeof zlib.crc32 === 'function' && crc !== header.crc) {
    throw new SidecarMismatch('its checksum does not match (the file was damaged)');
  }
  return { log: header.log, shape: header.shape, meta: header.meta, columns };
}

/**
 * Where each column of `header` is in the file, in file order. The writer lays them out one after
 * the other: columns that overlap, or lie outside the body, are of no sidecar it wrote.
 */
function columnPlaces(
  header: Header,
  start: number,
  size: number,
): { name: string; type: (typeof TYPES)[ColumnType]; from: number; count: number }[] {
  if (!Array.isArray(header.columns)) throw new SidecarMismatch('its columns are not a list');
  const count = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  const places = (header.columns as unknown[]).map((column) => {
    const { name, type, offset, count: n } = (column ?? {}) as Partial<Header['columns'][number]>;
    const t = typeof type === 'string' && Object.hasOwn(TYPES, type) ? TYPES[type] : undefined;
    if (
      !t ||
      typeof name !== 'string' ||
      !count(offset) ||
      !count(n) ||
      (offset as number) % 8 !== 0 ||
      start + (offset as number) + (n as number) * t.bytes > size
    ) {
      throw new SidecarMismatch(`its column ${String(name)} is out of bounds`);
    }
    return { name, type: t, from: start + (offset as number), count: n as number };
  });
  places.sort((a, b) => a.from - b.from);
  let end = start;
  for (const place of places) {
    if (place.from < end) throw new SidecarMismatch(`its column ${place.name} overlaps another`);
    end = place.from + place.count * place.type.bytes;
  }
  return places;
}

/** Strings as one UTF-8 column and their ends: what a sidecar keeps ids and words in. */
export function packStrings(strings: readonly string[]): { bytes: Uint8Array; ends: Int32Array } {
  const packer = new StringPacker(strings.length);
  const ends = new Int32Array(strings.length);
  strings.forEach((s, i) => {
    ends[i] = packer.add(s);
  });
  return { bytes: packer.bytes(), ends };
}

/**
 * Strings packed as packStrings packs them, one at a time, each written straight into one buffer
 * that doubles when full: a million ids pushed into an array and then packed took a second of a
 * sidecar's take. Sized for `count` ids as mnemo makes them (36 ASCII bytes); any string fits.
 */
export class StringPacker {
  private buffer: Buffer;
  private at = 0;

  constructor(count: number, bytesEach = 37) {
    this.buffer = Buffer.allocUnsafe(Math.max(16, count * bytesEach));
  }

  /** Appends `s`; answers where its bytes end. */
  add(s: string): number {
    // A UTF-16 unit is at most 3 bytes of UTF-8.
    if (this.at + 3 * s.length > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(2 * this.buffer.length, this.at + 3 * s.length));
      this.buffer.copy(grown, 0, 0, this.at);
      this.buffer = grown;
    }
    this.at += this.buffer.write(s, this.at, 'utf8');
    return this.at;
  }

  /** The bytes written so far, a view of the buffer (nothing after them is ever exposed). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.at);
  }
}

export function unpackStrings(bytes: Uint8Array, ends: Int32Array): string[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Array<string>(ends.length);
  let start = 0;
  for (let i = 0; i < ends.length; i++) {
    const end = ends[i] as number;
    out[i] = buf.toString('utf8', start, end);
    start = end;
  }
  return out;
}
