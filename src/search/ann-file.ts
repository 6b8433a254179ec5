// vectors.ann: the approximate nearest-neighbour index (usearch's HNSW graph) of the memories'
// vectors, beside the log. usearch reads its own layout from a path, so mnemo's check of the file
// is a trailer after usearch's bytes (which usearch ignores): the model and dimensions it was
// built for, and a SHA-256 of usearch's part. A file whose trailer is missing, of another model,
// or whose bytes do not hash to it (truncated, corrupt, half-written by a killed process) is never
// handed to usearch, whose reader trusts the offsets it finds (arbitrary bytes can crash the
// process there): it is ignored and built again. The hash catches damage, not intent: a file made
// to pass it takes write access to the data dir, which can change the log itself.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { NOFOLLOW, syncDir, tempPathFor, writeAll } from '../platform/durable-file.js';

export const ANN_FILE = 'vectors.ann';
/** The layout of the trailer; another one is not read. */
export const ANN_FORMAT = 1;
const MAGIC = Buffer.from('MNEMOANN');
/** The trailer's JSON is small: a longer one is not one mnemo wrote. */
const MAX_META_BYTES = 4096;
const READ_CHUNK = 4 * 1024 * 1024;

export interface AnnTrailer {
  format: number;
  /** The id of the model whose vectors it holds (embeddings.ts). */
  model: string;
  dimensions: number;
  /** Vectors added to it (those of memories since changed or gone included). */
  count: number;
  /** Bytes of usearch's part, from the start of the file. */
  bytes: number;
  /** SHA-256 of usearch's part, hex. */
  sha256: string;
}

/** Why a file is not used, for the one log line that says so. */
export class AnnMismatch extends Error {}

/**
 * The trailer of `file` when it is one mnemo wrote whole for this model and these dimensions;
 * throws an AnnMismatch naming the reason otherwise (ENOENT passes through: no file yet). Reads
 * the whole file to hash it: run it off the event loop (the builder's worker does).
 */
export function verifyAnnFile(file: string, model: string, dimensions: number): AnnTrailer {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | NOFOLLOW);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new AnnMismatch('it is not a regular file');
    const size = stat.size;
    const end = Buffer.alloc(MAGIC.length + 4);
    if (size < end.length || fs.readSync(fd, end, 0, end.length, size - end.length) < end.length) {
      throw new AnnMismatch('it is too short to have a trailer');
    }
    if (!end.subarray(4).equals(MAGIC)) throw new AnnMismatch('it has no mnemo trailer');
    const metaBytes = end.readUInt32LE(0);
    const bytes = size - end.length - metaBytes;
    if (metaBytes > MAX_META_BYTES || bytes < 0) throw new AnnMismatch('its trailer is too long');
    const metaBuf = Buffer.alloc(metaBytes);
    fs.readSync(fd, metaBuf, 0, metaBytes, bytes);
    const trailer = parseTrailer(metaBuf.toString('utf8'));
    if (trailer.format !== ANN_FORMAT) throw new AnnMismatch(`its format is ${trailer.format}`);
    if (trailer.model !== model) throw new AnnMismatch(`it is of the model ${trailer.model}`);
    if (trailer.dimensions !== dimensions) {
      throw new AnnMismatch(`it is of ${trailer.dimensions} dimensions, not ${dimensions}`);
    }
    if (trailer.bytes !== bytes) throw new AnnMismatch('its length is not the one it was written');
    if (hashRange(fd, bytes, sealed(trailer)) !== trailer.sha256) {
      throw new AnnMismatch('its bytes are not the ones it was written with');
    }
    return trailer;
  } finally {
    fs.closeSync(fd);
  }
}

function parseTrailer(text: string): AnnTrailer {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AnnMismatch('its trailer is not JSON');
  }
  const t = value as Partial<AnnTrailer> | null;
  if (
    !t ||
    typeof t !== 'object' ||
    !Number.isSafeInteger(t.format) ||
    typeof t.model !== 'string' ||
    !Number.isSafeInteger(t.dimensions) ||
    !Number.isSafeInteger(t.count) ||
    (t.count as number) < 0 ||
    !Number.isSafeInteger(t.bytes) ||
    typeof t.sha256 !== 'string'
  ) {
    throw new AnnMismatch('its trailer lacks a field');
  }
  return t as AnnTrailer;
}

/**
 * What the hash seals besides usearch's bytes: every other field of the trailer (the count too,
 * which no other check reads), so that no byte of the file can change unnoticed.
 */
function sealed(t: Omit<AnnTrailer, 'sha256'>): string {
  return JSON.stringify([t.format, t.model, t.dimensions, t.count, t.bytes]);
}

function hashRange(fd: number, bytes: number, seal: string): string {
  const hash = crypto.createHash('sha256');
  const buf = Buffer.allocUnsafe(Math.min(READ_CHUNK, Math.max(bytes, 1)));
  for (let at = 0; at < bytes; ) {
    const n = fs.readSync(fd, buf, 0, Math.min(buf.length, bytes - at), at);
    if (n === 0) throw new AnnMismatch('it ended early');
    hash.update(buf.subarray(0, n));
    at += n;
  }
  hash.update(seal);
  return hash.digest('hex');
}

/**
 * Writes `file` atomically: `save` writes usearch's part at a temp path beside it, the trailer is
 * appended, then fsync, rename over `file`, fsync of the folder. A kill at any instant leaves the
 * old file or the new one (and at worst the temp file, named with the pid, which the data dir's
 * next start sweeps once this process is gone).
 */
export function writeAnnFile(
  file: string,
  save: (temp: string) => void,
  meta: { model: string; dimensions: number; count: number },
): AnnTrailer {
  const temp = tempPathFor(file);
  try {
    save(temp);
    const fd = fs.openSync(temp, fs.constants.O_RDWR | NOFOLLOW);
    try {
      const bytes = fs.fstatSync(fd).size;
      const fields = { format: ANN_FORMAT, ...meta, bytes };
      const trailer: AnnTrailer = { ...fields, sha256: hashRange(fd, bytes, sealed(fields)) };
      const json = Buffer.from(JSON.stringify(trailer), 'utf8');
      const end = Buffer.alloc(MAGIC.length + 4);
      end.writeUInt32LE(json.length, 0);
      MAGIC.copy(end, 4);
      writeAll(fd, Buffer.concat([json, end]), bytes);
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      fs.renameSync(temp, file);
      syncDir(path.dirname(file));
      return trailer;
    } catch (error) {
      try {
        fs.closeSync(fd);
      } catch {
        // closed already
      }
      throw error;
    }
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}
