// The vector store of a data dir: vectors.jsonl and its snapshot vectors.idx (the interface is
// ../vector-store.ts). Derived data: a vector lost is computed again, so no write throws.
import path from 'node:path';
import { setImmediate } from 'node:timers/promises';
import type { Logger } from 'pino';
import { errorCode } from '../../platform/errors.js';
import {
  logTail,
  packStrings,
  readSidecar,
  SidecarMismatch,
  unpackStrings,
  writeSidecar,
} from '../sidecar.js';
import type { StoredVector, VectorStore } from '../vector-store.js';
import { JsonlFile } from './jsonl-file.js';

/** The sidecar beside memories.jsonl: one line a vector, the last line for an id wins. */
export const VECTORS_FILE = 'vectors.jsonl';
/**
 * Its binary snapshot: every live vector in one int8 column, with the point of vectors.jsonl it
 * covers. A start reads it in one go and only the lines after that point.
 */
export const VECTORS_SIDECAR_FILE = 'vectors.idx';
/** Snapshot entries visited between two turns of the event loop at load. */
const VISITS_A_TURN = 20_000;
/** Lines of vectors.jsonl past the snapshot before it is written again (at close). */
const SNAPSHOT_MIN_LINES = 1000;

/**
 * One line of vectors.jsonl. `v` is the vector as int8 in base64, `s` the scale that turns it back
 * into floats: the cosine moves by well under 1% and a vector of 384 takes 512 bytes.
 */
interface VectorLine {
  id: string;
  model: string;
  hash: string;
  v: string;
  s: number;
}

function toLine(vector: StoredVector): VectorLine {
  const { id, model, hash, values, scale } = vector;
  const v = Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString('base64');
  return { id, model, hash, v, s: scale };
}

/**
 * A scale quantise gives a vector of unit length (a model's): its largest value over 127, or 1
 * for the zero vector. Any other (1e999 is read as Infinity, a NaN from damaged bytes, a negative)
 * turns the values into no unit vector, or into infinities.
 */
const isScale = (s: unknown): s is number => typeof s === 'number' && s > 0 && s <= 1;

function fromLine(value: unknown): StoredVector | undefined {
  const line = value as Partial<VectorLine> | null;
  if (
    !line ||
    typeof line.id !== 'string' ||
    typeof line.model !== 'string' ||
    typeof line.hash !== 'string' ||
    typeof line.v !== 'string' ||
    !isScale(line.s)
  ) {
    return undefined;
  }
  const bytes = Buffer.from(line.v, 'base64');
  const values = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  return { id: line.id, model: line.model, hash: line.hash, values, scale: line.s };
}

const COLUMNS = {
  ids: Uint8Array,
  idEnds: Int32Array,
  hashes: Uint8Array,
  hashEnds: Int32Array,
  models: Uint8Array,
  valueEnds: Int32Array,
  scales: Float64Array,
  values: Uint8Array,
} as const;

/**
 * Throws a SidecarMismatch unless the snapshot's columns are the ones written, of one count, with
 * ends that only grow inside what they index and models it names: a whole file is not one mnemo
 * wrote (a synced data dir), and a missing column stopped the load of every vector.
 */
function checkSnapshot(c: Record<string, unknown>, meta: Record<string, unknown>): void {
  for (const [name, type] of Object.entries(COLUMNS)) {
    if (!(c[name] instanceof type)) throw new SidecarMismatch(`its column ${name} is missing`);
  }
  const models = (meta as { models?: unknown } | null)?.models;
  if (!Array.isArray(models) || !models.every((m) => typeof m === 'string')) {
    throw new SidecarMismatch('its models are not a list of names');
  }
  const count = (c.idEnds as Int32Array).length;
  const { hashEnds, models: modelOf, valueEnds, scales } = c as Record<string, ArrayLike<number>>;
  if (![hashEnds, modelOf, valueEnds, scales].every((column) => column?.length === count)) {
    throw new SidecarMismatch('its columns are of different lengths');
  }
  const growing = (ends: ArrayLike<number>, within: number) => {
    let at = 0;
    for (let i = 0; i < ends.length; i++) {
      const end = ends[i] as number;
      if (end < at || end > within) return false;
      at = end;
    }
    return true;
  };
  if (
    !growing(c.idEnds as Int32Array, (c.ids as Uint8Array).length) ||
    !growing(hashEnds as Int32Array, (c.hashes as Uint8Array).length) ||
    !growing(valueEnds as Int32Array, (c.values as Uint8Array).length)
  ) {
    throw new SidecarMismatch('its ends are out of order or past their column');
  }
  for (let i = 0; i < count; i++) {
    if ((modelOf?.[i] as number) >= models.length) {
      throw new SidecarMismatch('a vector is of a model it does not name');
    }
    if (!isScale(scales?.[i])) throw new SidecarMismatch('a vector has no scale of one');
  }
}

/**
 * vectors.jsonl in the data dir: appended without the store's lock (a vector lost to a crash or to
 * another process is computed again), rewritten whole to compact. The process that has the data
 * dir open is the only one that adds to it, so `lookup` answers nothing the load did not.
 */
export class JsonlVectorStore implements VectorStore {
  private readonly file: JsonlFile;
  private readonly sidecarFile: string;
  /** The lines of vectors.jsonl (and its inode) the snapshot on disk covers, once known. */
  private snapshotAt: { ino: number; lines: number } | undefined;
  /** A write failed and nothing has been written since: one warning until one succeeds. */
  private failing = false;

  constructor(
    filePath: string,
    private readonly logger: Logger,
  ) {
    this.file = new JsonlFile(filePath);
    this.sidecarFile = path.join(path.dirname(filePath), VECTORS_SIDECAR_FILE);
  }

  async load(visit: (vector: StoredVector) => void): Promise<number> {
    let lines = await this.loadSnapshot(visit);
    // JSON lines that are no vector (a field missing or of another type): skipped as the others.
    let unusable = 0;
    const result = this.file.readNew({
      visit: (value) => {
        lines++;
        const vector = fromLine(value);
        if (vector) visit(vector);
        else unusable++;
      },
    });
    const skipped = result.corrupt.length + (result.tail ? 1 : 0) + unusable;
    if (skipped > 0) {
      this.logger.warn(
        { file: this.file.name, lines: skipped },
        'unreadable vector lines skipped: they are computed again',
      );
    }
    if (result.tail) this.file.truncateTail();
    return lines;
  }

  /**
   * Visits the snapshot's vectors when it matches vectors.jsonl (then the file is read from its
   * point on) and answers how many; any mismatch is one log line, and the file is read whole.
   */
  private async loadSnapshot(visit: (vector: StoredVector) => void): Promise<number> {
    try {
      const content = await readSidecar(this.sidecarFile, { vectors: 1 });
      if (!content) return 0;
      const { size, lines, tail } = content.log;
      if (!this.file.resumeAt(size, lines, (fd) => logTail(fd, size) === tail)) {
        throw new SidecarMismatch(`${VECTORS_FILE} is not the file it was made from`);
      }
      const c = content.columns;
      checkSnapshot(c, content.meta);
      const ids = unpackStrings(c.ids as Uint8Array, c.idEnds as Int32Array);
      const hashes = unpackStrings(c.hashes as Uint8Array, c.hashEnds as Int32Array);
      const models = content.meta.models as string[];
      const modelOf = c.models as Uint8Array;
      const ends = c.valueEnds as Int32Array;
      const scales = c.scales as Float64Array;
      const all = c.values as Uint8Array;
      const values = new Int8Array(all.buffer, all.byteOffset, all.byteLength);
      let start = 0;
      for (let i = 0; i < ids.length; i++) {
        // Calls are answered between slices: a million vectors are seconds of visits.
        if (i > 0 && i % VISITS_A_TURN === 0) await setImmediate();
        const end = ends[i] as number;
        visit({
          id: ids[i] as string,
          model: models[modelOf[i] as number] as string,
          hash: hashes[i] as string,
          values: values.subarray(start, end),
          scale: scales[i] as number,
        });
        start = end;
      }
      this.snapshotAt = { ino: this.file.inodeRead, lines };
      return ids.length;
    } catch (error) {
      if (!(error instanceof SidecarMismatch)) throw error;
      this.logger.warn(
        { file: VECTORS_SIDECAR_FILE, reason: error.message },
        `${VECTORS_SIDECAR_FILE} is not used (${error.message}): reading ${VECTORS_FILE} whole`,
      );
      this.file.restart();
      return 0;
    }
  }

  snapshot(live: () => Iterable<StoredVector>): void {
    try {
      if (this.file.inodeRead === -1) return;
      const at = this.snapshotAt;
      const behind =
        at === undefined || at.ino !== this.file.inodeRead
          ? this.file.lineCount
          : this.file.lineCount - at.lines;
      if (behind < SNAPSHOT_MIN_LINES) return;
      const ids: string[] = [];
      const hashes: string[] = [];
      const models: string[] = [];
      const modelOf: number[] = [];
      const scales: number[] = [];
      const parts: Int8Array[] = [];
      for (const vector of live()) {
        let m = models.indexOf(vector.model);
        if (m === -1) m = models.push(vector.model) - 1;
        ids.push(vector.id);
        hashes.push(vector.hash);
        modelOf.push(m);
        scales.push(vector.scale);
        parts.push(vector.values);
      }
      if (models.length > 255) return;
      const ends = new Int32Array(parts.length);
      let total = 0;
      parts.forEach((p, i) => {
        total += p.length;
        ends[i] = total;
      });
      const values = new Uint8Array(total);
      let at2 = 0;
      for (const p of parts) {
        values.set(new Uint8Array(p.buffer, p.byteOffset, p.byteLength), at2);
        at2 += p.length;
      }
      const packedIds = packStrings(ids);
      const packedHashes = packStrings(hashes);
      const size = this.file.size();
      writeSidecar(this.sidecarFile, {
        log: {
          size,
          lines: this.file.lineCount,
          tail: this.file.withFd((fd) => logTail(fd, size)),
        },
        shape: { vectors: 1 },
        meta: { models },
        columns: {
          ids: packedIds.bytes,
          idEnds: packedIds.ends,
          hashes: packedHashes.bytes,
          hashEnds: packedHashes.ends,
          models: Uint8Array.from(modelOf),
          scales: Float64Array.from(scales),
          valueEnds: ends,
          values,
        },
      });
      this.snapshotAt = { ino: this.file.inodeRead, lines: this.file.lineCount };
    } catch (error) {
      this.logger.warn(
        { file: VECTORS_SIDECAR_FILE, err: (error as Error).message },
        `could not write ${VECTORS_SIDECAR_FILE}: the next start reads ${VECTORS_FILE} whole`,
      );
    }
  }

  async lookup(_ids: readonly string[]): Promise<StoredVector[]> {
    return [];
  }

  append(vectors: readonly StoredVector[]): void {
    if (vectors.length === 0) return;
    this.write(() => this.file.append(vectors.map(toLine), { sync: false }));
  }

  compact(live: Iterable<StoredVector>): void {
    const file = this.file;
    function* lines(): Iterable<VectorLine> {
      for (const vector of live) yield toLine(vector);
    }
    this.write(() => file.rewrite(lines()));
  }

  async close(): Promise<void> {
    this.file.close();
  }

  private write(action: () => void): void {
    try {
      action();
      this.failing = false;
    } catch (error) {
      if (this.failing) return;
      this.failing = true;
      this.logger.warn(
        { file: this.file.name, err: errorCode(error as Error) },
        'vectors could not be written: they are computed again at the next start',
      );
    }
  }
}
