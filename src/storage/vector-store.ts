// Where the memories' vectors are kept between runs: what the semantic index asks of a store, and
// the store of a data dir (vectors.jsonl). Vectors are derived data: a store may lose some (a
// crash, a full disk, a database away) and they are computed again, so no write of a store throws.
import type { Logger } from 'pino';
import { errorCode } from '../platform/errors.js';
import { JsonlFile } from './jsonl-file.js';

/** The sidecar beside memories.jsonl: one line a vector, the last line for an id wins. */
export const VECTORS_FILE = 'vectors.jsonl';

/** One memory's vector as stored: int8 values, and the scale that turns them back into floats. */
export interface StoredVector {
  /** The memory's id. */
  id: string;
  /** The id of the model that computed it. */
  model: string;
  /** The hash of the text it is of (textHash in semantic-index.ts). */
  hash: string;
  values: Int8Array;
  scale: number;
}

export interface VectorStore {
  /**
   * Hands every stored vector to `visit`, a later one of an id after an earlier (the last wins),
   * and answers how many entries were read, those it could not use included: what no longer counts
   * is what makes a compaction worth it. Throws when nothing can be read at all.
   */
  load(visit: (vector: StoredVector) => void): Promise<number>;
  /**
   * The stored vectors of these memories, those there are now: another process may have written
   * them since the load. Never throws (none, when they cannot be read).
   */
  lookup(ids: readonly string[]): Promise<StoredVector[]>;
  /** Keeps these, the last of an id winning; in the background, and a failure is only logged. */
  append(vectors: readonly StoredVector[]): void;
  /**
   * Drops what no longer counts. `live` is every vector this process holds (read only by a store
   * that rewrites itself with them); a store shared with other processes keeps what they may need.
   */
  compact(live: Iterable<StoredVector>): void;
  /** Resolves once what was appended is written, or given up. */
  close(): Promise<void>;
}

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

function fromLine(value: unknown): StoredVector | undefined {
  const line = value as Partial<VectorLine> | null;
  if (
    !line ||
    typeof line.id !== 'string' ||
    typeof line.model !== 'string' ||
    typeof line.hash !== 'string' ||
    typeof line.v !== 'string' ||
    typeof line.s !== 'number'
  ) {
    return undefined;
  }
  const bytes = Buffer.from(line.v, 'base64');
  const values = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  return { id: line.id, model: line.model, hash: line.hash, values, scale: line.s };
}

/**
 * vectors.jsonl in the data dir: appended without the store's lock (a vector lost to a crash or to
 * another process is computed again), rewritten whole to compact. The process that has the data
 * dir open is the only one that adds to it, so `lookup` answers nothing the load did not.
 */
export class JsonlVectorStore implements VectorStore {
  private readonly file: JsonlFile;
  /** A write failed and nothing has been written since: one warning until one succeeds. */
  private failing = false;

  constructor(
    filePath: string,
    private readonly logger: Logger,
  ) {
    this.file = new JsonlFile(filePath);
  }

  async load(visit: (vector: StoredVector) => void): Promise<number> {
    let lines = 0;
    const result = this.file.readNew({
      visit: (value) => {
        lines++;
        const vector = fromLine(value);
        if (vector) visit(vector);
      },
    });
    if (result.corrupt.length > 0 || result.tail) {
      this.logger.warn(
        { file: this.file.name, lines: result.corrupt.length + (result.tail ? 1 : 0) },
        'unreadable vector lines skipped: they are computed again',
      );
    }
    if (result.tail) this.file.truncateTail();
    return lines;
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
