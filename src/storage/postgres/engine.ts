import type pg from 'pg';
import type { Logger } from 'pino';
import { StoreError } from '../data-dir.js';
import { DEFAULT_NAMESPACE, type Mutation, type StoreListener } from '../engine.js';
import { NamespacedEngine } from '../namespace-view.js';
import { type MemoryRecord, toMemoryRecord } from '../records.js';
import {
  clientConfig,
  createPool,
  databaseError,
  isConnectionError,
  redactUrl,
  storeFailure,
} from './database.js';
import { Follower } from './follower.js';
import { changesAfter, readSnapshot } from './record-reads.js';
import { LOCKS, migrate, notifySql } from './schema.js';
import { PgVectorStore } from './vectors.js';
import { type WriteStatements, writeStatements } from './write-statements.js';

export interface PostgresStoreOptions {
  /** MNEMO_DATABASE_URL. */
  url: string;
  logger: Logger;
  clock: () => number;
  /** Connections of the pool (10 unless told). */
  poolSize?: number;
  /** First wait before the listener connects again (doubles up to 5 s). */
  reconnectMs?: number;
  /** The changes kept for replicas that were away, in seconds (a day unless told). */
  keepChangesSeconds?: number;
  /** How long a write waits for another replica's write to end (15 s unless told), in ms. */
  lockWaitMs?: number;
  /** Every this many writes of this replica, older changes are pruned (1000 unless told). */
  pruneEvery?: number;
}

type Row = Record<string, unknown>;

/**
 * Every write is one transaction under one advisory lock (LOCKS.write), so writes of all replicas
 * run one at a time and commit in the order of their change sequence numbers: a transaction first
 * reads the changes it has not seen, plans against the latest records, writes its rows and one
 * change row a record, and NOTIFYs. A touch on two replicas is therefore exact, and gc, promotion
 * and consolidation never act twice on one memory. Replicas LISTEN and read the changes after the
 * last they saw; after a lost connection they read what they missed, and a replica away longer
 * than the changes are kept reloads everything.
 *
 * The engine is the view of the default namespace; `namespace()` answers the others'.
 */
export class PostgresStore extends NamespacedEngine {
  readonly ready: Promise<void>;
  readonly loaded: Promise<void>;
  /**
   * Resolves once the database answered and its schema is up to date, before the records load;
   * rejects with a DatabaseError naming MNEMO_DATABASE_URL and the fix.
   */
  readonly connected: Promise<void>;
  private readonly pool: pg.Pool;
  private readonly options: PostgresStoreOptions;
  private readonly logger: Logger;
  /** The last change this replica applied. */
  private seq = 0;
  /** Reads and writes of the live records, one at a time, in the order they were asked. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly follower: Follower;
  private writes = 0;
  private closed = false;
  private ended: Promise<void> | undefined;

  private constructor(options: PostgresStoreOptions) {
    super();
    this.options = options;
    this.logger = options.logger;
    // Throws at once on a URL that is not one.
    clientConfig(options.url);
    this.pool = createPool(options.url, {
      max: options.poolSize ?? 10,
      applicationName: 'mnemo',
    });
    this.follower = new Follower({
      url: options.url,
      logger: options.logger,
      reconnectMs: options.reconnectMs,
      applied: () => this.seq,
      catchUp: () =>
        this.serial(async () => {
          if (this.closed) return;
          const client = await this.pool.connect();
          try {
            await this.catchUp(client);
            client.release();
          } catch (error) {
            client.release(error as Error);
            throw error;
          }
        }),
    });
    this.connected = this.prepare();
    this.connected.catch(() => {});
    this.loaded = this.load();
    this.ready = this.loaded;
    this.loaded.catch(() => {});
  }

  /**
   * Returns at once, and in the background applies the migrations the database lacks, loads every
   * namespace's records and starts following the other replicas. Await `ready` before use: it
   * rejects with a DatabaseError (naming MNEMO_DATABASE_URL and the fix) when the database cannot
   * be used.
   */
  static start(options: PostgresStoreOptions, listeners: StoreListener[] = []): PostgresStore {
    const store = new PostgresStore(options);
    store.live.space(DEFAULT_NAMESPACE).listeners.push(...listeners);
    return store;
  }

  /** Starts, and resolves once loaded (closing the store if it cannot be). */
  static async open(
    options: PostgresStoreOptions,
    listeners: StoreListener[] = [],
  ): Promise<PostgresStore> {
    const store = PostgresStore.start(options, listeners);
    try {
      await store.ready;
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  private async prepare(): Promise<void> {
    // Not before the caller has subscribed its indexes and wired its server.
    await Promise.resolve();
    await migrate(this.pool, this.options.url);
  }

  private async load(): Promise<void> {
    try {
      await this.connected;
      await this.serial(() => this.reload());
    } catch (error) {
      if (this.closed) throw new StoreError('the memory store is closed');
      throw databaseError(error, this.options.url);
    }
    // Ready once it follows the others: no write of theirs after this is missed.
    await this.follower.start();
    this.logger.debug(
      { database: redactUrl(this.options.url), memories: this.live.memoryCount, seq: this.seq },
      'loaded from PostgreSQL',
    );
  }

  /** The vectors of the memories, in mnemo_vectors, shared by the replicas. */
  vectorStore(): PgVectorStore {
    return new PgVectorStore({ pool: this.pool, logger: this.logger });
  }

  /** The server process of the connection that follows the others (for tests that cut it). */
  get followerPid(): number | undefined {
    return this.follower.pid;
  }

  /** The change sequence number of the last change this replica applied. */
  get lastSeq(): number {
    return this.seq;
  }

  /**
   * Applies the changes other replicas were heard to make before this call and are not applied
   * yet; resolves at once when there are none. (Reads never wait for the database: a change not
   * yet heard of is seen within the replication lag.)
   */
  refresh(): Promise<void> {
    this.assertOpen();
    return this.follower.caughtUp();
  }

  /** The last change applied is now `seq`: the reads waiting for it go on. */
  private advanceTo(seq: number): void {
    if (seq > this.seq) this.seq = seq;
    this.follower.advanced();
  }

  async findForgottenIn(ns: string, id: string): Promise<MemoryRecord | undefined> {
    const rows = await this.query<{ record: Row }>(
      'SELECT record FROM mnemo_forgotten WHERE namespace = $1 AND id = $2 ORDER BY seq DESC LIMIT 1',
      [ns, id],
    );
    const found = rows[0]?.record;
    return found ? toMemoryRecord(found) : undefined;
  }

  async forgottenIn(ns: string): Promise<MemoryRecord[]> {
    // Each id's last copy, oldest first.
    const rows = await this.query<{ id: string; record: Row }>(
      `SELECT id, record FROM (SELECT DISTINCT ON (id) id, record, seq FROM mnemo_forgotten
       WHERE namespace = $1 ORDER BY id, seq DESC) last ORDER BY seq`,
      [ns],
    );
    const live = this.live.space(ns).memories;
    return rows.filter((row) => !live.has(row.id)).map((row) => toMemoryRecord(row.record));
  }

  async forgottenOwners(): Promise<ReadonlyMap<string, string>> {
    const rows = await this.query<{ id: string; namespace: string }>(
      'SELECT DISTINCT ON (id) id, namespace FROM mnemo_forgotten ORDER BY id, seq DESC',
      [],
    );
    return new Map(rows.map((row) => [row.id, row.namespace]));
  }

  /** The bytes this namespace's rows take in each table (another namespace's never counted). */
  async sizesIn(ns: string): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const table of ['mnemo_memories', 'mnemo_relations', 'mnemo_forgotten']) {
      const rows = await this.query<{ bytes: number | null }>(
        `SELECT sum(pg_column_size(t.*))::bigint AS bytes FROM ${table} t WHERE namespace = $1`,
        [ns],
      );
      out[table] = rows[0]?.bytes ?? 0;
    }
    return out;
  }

  /** For the views: a transaction whose records all belong to namespace `ns`. */
  async transactIn<T>(ns: string, plan: () => Mutation<T>): Promise<T> {
    this.assertOpen();
    await this.ready;
    return this.serial(async () => {
      this.assertOpen();
      const client = await this.connect();
      let committing = false;
      let m: Mutation<T>;
      let changes: WriteStatements;
      let seq = 0;
      try {
        // A replica holding the lock for long (a large gc) holds the others' writes up to a point.
        await client.query(
          `BEGIN; SET LOCAL lock_timeout = ${this.options.lockWaitMs ?? 15_000}; SELECT pg_advisory_xact_lock(${LOCKS.write})`,
        );
        // Under the lock: nobody writes until this commits, and these are the latest records.
        await this.catchUp(client);
        m = plan();
        changes = writeStatements(this.live, ns, m, this.options.clock());
        for (const [sql, values] of changes.statements) await client.query(sql, values);
        if (changes.memories.length > 0 || changes.relations.length > 0) {
          const result = await client.query<{ seq: number }>(
            `WITH c AS (
               INSERT INTO mnemo_changes (namespace, kind, id)
               SELECT $1, 'memory', unnest($2::text[])
               UNION ALL SELECT $1, 'relation', unnest($3::text[])
               RETURNING seq)
             SELECT ${notifySql('max(seq)')}, max(seq) AS seq FROM c`,
            [ns, changes.memories, changes.relations],
          );
          seq = result.rows[0]?.seq ?? 0;
        }
        if (++this.writes % (this.options.pruneEvery ?? 1000) === 0) await this.prune(client);
        committing = true;
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        client.release(isConnectionError(error) ? (error as Error) : undefined);
        throw this.failure(error, committing);
      }
      client.release();
      changes.apply();
      this.advanceTo(seq);
      return m.result;
    });
  }

  /** Waits for a pending catch-up and the listener, then ends every connection. */
  close(): Promise<void> {
    if (!this.ended) {
      this.closed = true;
      this.ended = (async () => {
        await this.follower.close();
        await this.queue.catch(() => {});
        await this.pool.end().catch(() => {});
      })();
    }
    return this.ended;
  }

  /** What a failed read or write answers (see storeFailure). */
  private failure(error: unknown, committing: boolean): Error {
    return storeFailure(error, committing, this.options.url);
  }

  /** A connection of the pool, or a TransientError when the database cannot be reached. */
  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (error) {
      throw this.failure(error, false);
    }
  }

  private async query<R extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<R[]> {
    this.assertOpen();
    await this.ready;
    try {
      return (await this.pool.query<R>(sql, values)).rows;
    } catch (error) {
      throw this.failure(error, false);
    }
  }

  /** Runs `fn` after every read or write of the live records asked before it. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }
  /**
   * Every record anew, as of one snapshot, with the change it was at: the first load, and the
   * load of a replica that was away longer than the changes are kept.
   */
  private async reload(): Promise<void> {
    const client = await this.pool.connect();
    try {
      const snapshot = await readSnapshot(client);
      const first = this.seq === 0 && this.live.memoryCount === 0;
      if (!first) {
        this.live.clearMemories();
        this.live.clearRelations();
      }
      for (const [ns, record] of snapshot.memories) this.live.putMemory(ns, record);
      for (const [ns, relation] of snapshot.relations) this.live.putRelation(ns, relation);
      this.seq = 0;
      this.advanceTo(snapshot.seq);
    } finally {
      client.release();
    }
  }

  /**
   * Applies the changes after the last one seen, reading each changed record as it is now; the
   * writes' lock orders the sequence, so none is committed behind one already seen.
   */
  private async catchUp(client: pg.ClientBase): Promise<void> {
    for (;;) {
      const changes = await changesAfter(client, this.seq);
      if (changes.kind === 'none') return;
      if (changes.kind === 'expired') {
        this.logger.warn(
          { seq: this.seq, floor: changes.floor },
          'this replica was away longer than the changes are kept: reloading every memory',
        );
        await this.reload();
        return;
      }
      for (const [ns, record] of changes.memories) this.live.putMemory(ns, record);
      for (const id of changes.goneMemories) this.live.dropMemory(id);
      for (const [ns, relation] of changes.relations) this.live.putRelation(ns, relation);
      for (const id of changes.goneRelations) this.live.dropRelation(id);
      this.advanceTo(changes.last);
      if (!changes.more) return;
    }
  }

  /** Drops the changes older than they are kept, and says up to where. */
  private async prune(client: pg.ClientBase): Promise<void> {
    const keep = this.options.keepChangesSeconds ?? 86_400;
    await client.query(
      `WITH gone AS (
         DELETE FROM mnemo_changes WHERE at < now() - make_interval(secs => $1) RETURNING seq)
       UPDATE mnemo_state SET value = greatest(value, (SELECT coalesce(max(seq), 0) FROM gone))
       WHERE key = 'change_floor'`,
      [keep],
    );
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('the memory store is closed');
  }
}
