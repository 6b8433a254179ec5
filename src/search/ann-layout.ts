// The structure of usearch's part of vectors.ann, checked before usearch reads it. usearch 2.21's
// reader (index_dense.hpp `view`, index.hpp `view`) trusts what it finds: a row count that puts
// the header past the end, a level or a neighbour's slot out of range, and a search reads outside
// the file and can crash the process. The SHA-256 trailer catches damage, not a file forged with
// its hash recomputed (a data dir synced from another device), so every offset and every slot a
// search can follow is checked here against usearch's layout:
//
//   u32 rows, u32 bytes a vector            the matrix (int8: a byte a dimension)
//   rows x bytes a vector                   the vectors
//   64 bytes: "usearch", u16 major, minor, patch, u8 metric, scalar, key and slot kinds,
//             u64 present, u64 deleted, u64 dimensions, u8 multi
//   u64 size, connectivity, connectivity_base, max_level, entry_slot
//   size x i16                              each node's level
//   size nodes: u64 key, i16 level, then for each level 0..level a u32 count and
//             (level 0: connectivity_base, else connectivity) u32 slots
//
// A search walks from the entry node down the levels, following at level l the first `count`
// slots of a node's list at l: so each such slot must be a node, of a level of at least l.
import fs from 'node:fs';
import { NOFOLLOW } from '../platform/durable-file.js';
import { AnnMismatch, type AnnTrailer, verifyAnnFile } from './ann-file.js';

/** What mnemo builds: the settings a file must have been built with. */
export interface AnnLayoutShape {
  model: string;
  dimensions: number;
  connectivity: number;
}

/** Which file on disk was checked: usearch opens it again by its path. */
export interface AnnFileIdentity {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

/** The identity of `file` now, or undefined when there is none. */
export function annFileIdentity(file: string): AnnFileIdentity | undefined {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  return stat && identityOf(stat);
}

function identityOf(stat: fs.Stats): AnnFileIdentity {
  return { dev: stat.dev, ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
}

/**
 * Whether `file` is still the file checked as `identity`: usearch reads it by its path, so a file
 * renamed over it since (by another process, or a sync) is not the one that was checked.
 */
export function isSameAnnFile(file: string, identity: AnnFileIdentity): boolean {
  const now = fs.statSync(file, { throwIfNoEntry: false });
  return now !== undefined && isSame(identityOf(now), identity);
}

/**
 * The trailer of `file` when it is whole (its hash: ann-file.ts) and a graph usearch can read
 * without trusting anything in it (checkAnnLayout), and the identity of the file checked; throws
 * an AnnMismatch otherwise (ENOENT passes through).
 */
export function verifyAnnGraph(
  file: string,
  shape: AnnLayoutShape,
): { trailer: AnnTrailer; identity: AnnFileIdentity } {
  const before = identityOf(fs.lstatSync(file));
  const trailer = verifyAnnFile(file, shape.model, shape.dimensions);
  const fd = fs.openSync(file, fs.constants.O_RDONLY | NOFOLLOW);
  try {
    const identity = identityOf(fs.fstatSync(fd));
    if (!isSame(before, identity)) throw new AnnMismatch('it was replaced while it was checked');
    checkAnnLayout(fd, trailer.bytes, shape);
    return { trailer, identity };
  } finally {
    fs.closeSync(fd);
  }
}

const isSame = (a: AnnFileIdentity, b: AnnFileIdentity) =>
  a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;

const MAGIC = 'usearch';
const MAJOR = 2;
const METRIC_IP = 'i'.charCodeAt(0);
const SCALAR_I8 = 23;
const KEY_U64 = 14;
const SLOT_U32 = 15;
const HEAD_BYTES = 64;
/** Levels are drawn with a probability of 1/connectivity each: past this, not a graph we built. */
const MAX_LEVEL = 32;
const CHUNK = 4 * 1024 * 1024;

/** Reads `fd` from `start` to `end` in order, a chunk at a time. */
class SequentialReader {
  private buf: Buffer;
  private at = 0;
  private filled = 0;
  /** File offset of buf[0]. */
  private base: number;

  constructor(
    private readonly fd: number,
    start: number,
    private readonly end: number,
  ) {
    this.buf = Buffer.allocUnsafe(CHUNK);
    this.base = start;
  }

  get offset(): number {
    return this.base + this.at;
  }

  /** Makes `n` bytes readable at `this.at`; throws when the file ends first. */
  need(n: number): void {
    if (this.filled - this.at >= n) return;
    if (this.offset + n > this.end) throw new AnnMismatch('its graph runs past its end');
    if (n > this.buf.length) this.buf = Buffer.allocUnsafe(n);
    const kept = this.filled - this.at;
    this.buf.copy(this.buf, 0, this.at, this.filled);
    this.base += this.at;
    this.at = 0;
    this.filled = kept;
    const want = Math.min(this.buf.length - kept, this.end - this.base - kept);
    let read = 0;
    while (read < want) {
      const n = fs.readSync(this.fd, this.buf, kept + read, want - read, this.base + kept + read);
      if (n === 0) throw new AnnMismatch('it ended early');
      read += n;
    }
    this.filled += read;
  }

  u8(): number {
    this.need(1);
    return this.buf.readUInt8(this.at++);
  }

  u16(): number {
    this.need(2);
    const v = this.buf.readUInt16LE(this.at);
    this.at += 2;
    return v;
  }

  i16(): number {
    this.need(2);
    const v = this.buf.readInt16LE(this.at);
    this.at += 2;
    return v;
  }

  u32(): number {
    this.need(4);
    const v = this.buf.readUInt32LE(this.at);
    this.at += 4;
    return v;
  }

  /** A u64 that must fit in a double exactly (every count and offset here does). */
  u64(field: string): number {
    this.need(8);
    const v = this.buf.readBigUInt64LE(this.at);
    this.at += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new AnnMismatch(`its ${field} is out of range`);
    return Number(v);
  }

  skip(n: number): void {
    if (this.offset + n > this.end) throw new AnnMismatch('its graph runs past its end');
    const buffered = this.filled - this.at;
    if (n <= buffered) {
      this.at += n;
      return;
    }
    this.base = this.offset + n;
    this.at = 0;
    this.filled = 0;
  }
}

/**
 * Throws an AnnMismatch unless bytes [0, `bytes`) of the open file `fd` are a usearch index that
 * mnemo could have built for `shape` and whose every offset and followed slot is in range.
 * Reads the whole part once: run it off the event loop, as the hash is.
 */
export function checkAnnLayout(fd: number, bytes: number, shape: AnnLayoutShape): void {
  const r = new SequentialReader(fd, 0, bytes);
  const rows = r.u32();
  const rowBytes = r.u32();
  if (rowBytes !== shape.dimensions) throw new AnnMismatch('its vectors are of another size');
  r.skip(rows * rowBytes);
  checkHead(r, rows, shape);
  const size = r.u64('size');
  const connectivity = r.u64('connectivity');
  const base = r.u64('base connectivity');
  const maxLevel = r.u64('top level');
  const entry = r.u64('entry node');
  if (size !== rows) throw new AnnMismatch('its graph and its vectors differ in number');
  if (connectivity !== shape.connectivity || base !== connectivity * 2) {
    throw new AnnMismatch('its graph was built with other settings');
  }
  if (size === 0) {
    if (r.offset !== bytes) throw new AnnMismatch('it has bytes after its graph');
    return;
  }
  if (maxLevel > MAX_LEVEL || entry >= size) throw new AnnMismatch('its graph has no valid entry');
  // The levels are read again with each node; held here to check each neighbour's.
  const levels = new Int16Array(size);
  for (let i = 0; i < size; i++) {
    const level = r.i16();
    if (level < 0 || level > maxLevel) throw new AnnMismatch('a node of its graph has a bad level');
    levels[i] = level;
  }
  if (levels[entry] !== maxLevel) throw new AnnMismatch('its entry node is not on its top level');
  for (let i = 0; i < size; i++) {
    r.skip(8); // the key: any value is a key, checked against the memory's own at search
    const level = r.i16();
    if (level !== levels[i]) throw new AnnMismatch('a node of its graph has a bad level');
    for (let l = 0; l <= level; l++) {
      const capacity = l === 0 ? base : connectivity;
      const count = r.u32();
      if (count > capacity) throw new AnnMismatch('a node of its graph has too many neighbours');
      r.need(capacity * 4);
      for (let j = 0; j < count; j++) {
        const slot = r.u32();
        if (slot >= size || (levels[slot] as number) < l) {
          throw new AnnMismatch('a node of its graph has a neighbour out of range');
        }
      }
      r.skip((capacity - count) * 4);
    }
  }
  if (r.offset !== bytes) throw new AnnMismatch('it has bytes after its graph');
}

function checkHead(r: SequentialReader, rows: number, shape: AnnLayoutShape): void {
  r.need(HEAD_BYTES);
  let magic = '';
  for (let i = 0; i < MAGIC.length; i++) magic += String.fromCharCode(r.u8());
  if (magic !== MAGIC) throw new AnnMismatch('it is not a usearch index');
  const major = r.u16();
  const minor = r.u16();
  r.u16(); // patch
  // Before 2.10 the header was laid out otherwise (usearch rewrites it as it reads).
  if (major !== MAJOR || minor < 10) throw new AnnMismatch(`it is of usearch ${major}.${minor}`);
  if (r.u8() !== METRIC_IP || r.u8() !== SCALAR_I8 || r.u8() !== KEY_U64 || r.u8() !== SLOT_U32) {
    throw new AnnMismatch('it is of another metric or type');
  }
  const present = r.u64('count');
  const deleted = r.u64('count of deleted');
  if (present + deleted !== rows) throw new AnnMismatch('its counts do not add up');
  if (r.u64('dimensions') !== shape.dimensions) throw new AnnMismatch('it is of other dimensions');
  if (r.u8() !== 0) throw new AnnMismatch('it holds several vectors a key');
  r.skip(HEAD_BYTES - 42);
}
