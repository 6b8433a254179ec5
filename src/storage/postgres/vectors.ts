// The memories' vectors in mnemo_vectors, shared by every replica on the database: one row a
// memory (the last write wins), the int8 values as bytea. A replica reads them all at start and,
// before computing a vector, looks for one another replica stored meanwhile.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { StoredVector, VectorStore } from '../vector-store.js';
import { isConnectionError } from './database.js';

/** Rows a query at start: the load never holds one huge result. */
const PAGE = 5000;
/** Rows an upsert. */
const WRITE_BATCH = 500;
/** Vectors kept for a later write while the database is away; the oldest go beyond that. */
const MAX_UNWRITTEN = 50_000;
/** Wait before writing again what the database refused while away. */
const RETRY_MS = 5000;

const COLUMNS = 'v.memory_id, v.model, v.content_hash, v.scale, v.vector';
/** A row of a memory no longer there (deleted, gc'd) is read but not used: it counts as stale. */
const LIVE = 'EXISTS (SELECT 1 FROM mnemo_memories m WHERE m.id = v.memory_id) AS live';
const FIRST_PAGE = `SELECT ${COLUMNS}, ${LIVE} FROM mnemo_vectors v ORDER BY v.memory_id LIMIT $1`;
const NEXT_PAGE = `SELECT ${COLUMNS}, ${LIVE} FROM mnemo_vectors v WHERE v.memory_id > $2
ORDER BY v.memory_id LIMIT $1`;
const LOOKUP = `SELECT ${COLUMNS} FROM mnemo_vectors v WHERE v.memory_id = ANY($1::text[])`;
// A row already of this model and text is left alone (a reindex of the same model, two replicas
// computing the same vector): no dead tuple for nothing.
const UPSERT = `
INSERT INTO mnemo_vectors AS v (memory_id, model, content_hash, scale, vector)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::real[], $5::bytea[])
ON CONFLICT (memory_id) DO UPDATE
SET model = excluded.model, content_hash = excluded.content_hash, scale = excluded.scale,
    vector = excluded.vector
WHERE (v.model, v.content_hash) IS DISTINCT FROM (excluded.model, excluded.content_hash)`;
// Only the rows of memories gone from the database: the vectors of memories this replica does
// not know (a namespace it has not opened, one another replica just saved) stay.
const PRUNE = `DELETE FROM mnemo_vectors v
WHERE NOT EXISTS (SELECT 1 FROM mnemo_memories m WHERE m.id = v.memory_id)`;

interface VectorRow {
  memory_id: string;
  model: string;
  content_hash: string;
  scale: number;
  vector: Buffer;
  live?: boolean;
}

function fromRow(row: VectorRow): StoredVector {
  const bytes = row.vector;
  return {
    id: row.memory_id,
    model: row.model,
    hash: row.content_hash,
    values: new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length),
    scale: row.scale,
  };
}

export interface PgVectorStoreOptions {
  /** The engine's pool: the store neither connects nor ends it. */
  pool: pg.Pool;
  logger: Logger;
  /** Rows a query at start (5000 unless told). */
  pageSize?: number;
  /** Wait before writing again after the database was away (5 s unless told). */
  retryMs?: number;
}

/**
 * mnemo_vectors as a VectorStore. Writes go in the background, in batches; while the database is
 * away the vectors wait (up to MAX_UNWRITTEN, the newest kept) and are written again later; a
 * statement the server refuses for another reason is logged and its vectors dropped. Nothing
 * here throws to the index: a vector not stored is computed again by whoever needs it.
 */
export class PgVectorStore implements VectorStore {
  private readonly pool: pg.Pool;
  private readonly logger: Logger;
  private readonly pageSize: number;
  private readonly retryMs: number;
  /** Vectors to write, by id (the last one of an id wins), oldest first. */
  private readonly unwritten = new Map<string, StoredVector>();
  private writing: Promise<void> | undefined;
  private pruning: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  /** A write failed and none succeeded since: one warning until one does. */
  private failing = false;
  private closed = false;

  constructor(options: PgVectorStoreOptions) {
    this.pool = options.pool;
    this.logger = options.logger;
    this.pageSize = options.pageSize ?? PAGE;
    this.retryMs = options.retryMs ?? RETRY_MS;
  }

  /** Vectors waiting to be written (the database away). */
  get backlog(): number {
    return this.unwritten.size;
  }

  /**
   * Every row, a page at a time in memory_id order (keyset). A failure part way is logged and
   * what was read is kept: the rest is looked up, or computed, memory by memory.
   */
  async load(visit: (vector: StoredVector) => void): Promise<number> {
    let entries = 0;
    let after: string | undefined;
    try {
      for (;;) {
        const { rows } =
          after === undefined
            ? await this.pool.query<VectorRow>(FIRST_PAGE, [this.pageSize])
            : await this.pool.query<VectorRow>(NEXT_PAGE, [this.pageSize, after]);
        for (const row of rows) {
          entries++;
          if (row.live) visit(fromRow(row));
        }
        const last = rows.at(-1);
        if (!last || rows.length < this.pageSize) return entries;
        after = last.memory_id;
      }
    } catch (error) {
      this.logger.warn(
        { err: (error as Error).message, read: entries },
        'stored vectors could not be read: the others are looked up or computed again',
      );
      return entries;
    }
  }

  async lookup(ids: readonly string[]): Promise<StoredVector[]> {
    if (ids.length === 0 || this.closed) return [];
    try {
      const { rows } = await this.pool.query<VectorRow>(LOOKUP, [ids]);
      return rows.map(fromRow);
    } catch (error) {
      this.logger.debug({ err: (error as Error).message }, 'stored vectors could not be looked up');
      return [];
    }
  }

  append(vectors: readonly StoredVector[]): void {
    if (this.closed) return;
    for (const vector of vectors) {
      this.unwritten.delete(vector.id);
      this.unwritten.set(vector.id, vector);
    }
    this.bound();
    if (!this.retry) this.flush();
  }

  /** Deletes the rows of memories gone from the database; `live` is not needed for that. */
  compact(_live: Iterable<StoredVector>): void {
    if (this.closed || this.pruning) return;
    this.pruning = this.pool
      .query(PRUNE)
      .then((result) => {
        if (result.rowCount) this.logger.debug({ rows: result.rowCount }, 'stale vectors deleted');
      })
      .catch((error: Error) => {
        this.logger.warn({ err: error.message }, 'stale vectors could not be deleted');
      })
      .finally(() => {
        this.pruning = undefined;
      });
  }

  /** Writes what is waiting once more (no retry after), then resolves; the pool stays open. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.retry);
    this.retry = undefined;
    await this.writing;
    if (this.unwritten.size > 0) {
      this.flush();
      await this.writing;
    }
    await this.pruning;
    if (this.unwritten.size > 0) {
      this.logger.warn(
        { vectors: this.unwritten.size },
        'vectors not stored at close: they are computed again when needed',
      );
      this.unwritten.clear();
    }
  }

  private flush(): void {
    if (this.writing) return;
    this.writing = this.writeAll().finally(() => {
      this.writing = undefined;
    });
  }

  /** Writes the waiting vectors a batch at a time, until none wait or the database is away. */
  private async writeAll(): Promise<void> {
    while (this.unwritten.size > 0) {
      const batch: StoredVector[] = [];
      for (const vector of this.unwritten.values()) {
        batch.push(vector);
        if (batch.length === WRITE_BATCH) break;
      }
      for (const vector of batch) this.unwritten.delete(vector.id);
      try {
        await this.pool.query(UPSERT, [
          batch.map((v) => v.id),
          batch.map((v) => v.model),
          batch.map((v) => v.hash),
          batch.map((v) => v.scale),
          batch.map((v) => v.values),
        ]);
        if (this.failing) this.logger.info('vectors are stored again');
        this.failing = false;
      } catch (error) {
        const away = isConnectionError(error);
        if (!this.failing) {
          this.logger.warn(
            { err: (error as Error).message },
            away
              ? 'vectors could not be stored (the database is away): written again later'
              : 'vectors could not be stored: they are computed again when needed',
          );
        }
        this.failing = true;
        if (!away) continue;
        // Back in front of what came meanwhile, unless a newer vector of the same id did.
        const newer = [...this.unwritten];
        this.unwritten.clear();
        for (const vector of batch) this.unwritten.set(vector.id, vector);
        for (const [id, vector] of newer) {
          this.unwritten.delete(id);
          this.unwritten.set(id, vector);
        }
        this.bound();
        if (!this.closed) {
          this.retry = setTimeout(() => {
            this.retry = undefined;
            this.flush();
          }, this.retryMs);
          this.retry.unref();
        }
        return;
      }
    }
  }

  /** Drops the oldest waiting vectors beyond MAX_UNWRITTEN. */
  private bound(): void {
    for (const id of this.unwritten.keys()) {
      if (this.unwritten.size <= MAX_UNWRITTEN) return;
      this.unwritten.delete(id);
    }
  }
}
