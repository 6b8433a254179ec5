// The PostgreSQL engine: namespaces held on demand, written under each one's row lock, followed
// through the change feed.
import type pg from 'pg';
import type { Logger } from 'pino';
import { within } from '../../platform/deferred.js';
import { TransientError } from '../../platform/errors.js';
import {
  DEFAULT_NAMESPACE,
  type Mutation,
  type StoreListener,
  type TransactOptions,
} from '../engine.js';
import { StoreError } from '../errors.js';
import { type LagSummary, NamespacedEngine } from '../namespace-view.js';
import { type MemoryRecord, toMemoryRecord } from '../records.js';
import {
  clientConfig,
  createPool,
  databaseError,
  isConnectionError,
  redactUrl,
  storeFailure,
  withClient,
} from './database.js';
import { Follower } from './follower.js';
import { defaultCacheMb, Holdings, memoryBytes, relationBytes } from './holdings.js';
import { ReplicationLag } from './lag.js';
import { beginInNamespace, pruneChanges } from './namespace-feed.js';
import type { PostgresStoreOptions } from './options.js';
import { QuickWrites } from './quick-writes.js';
import { changesAfter, namespacesIn, readNamespace, versionsOf } from './record-reads.js';
import { migrate } from './schema.js';
import { PgVectorStore } from './vectors.js';
import { type WriteStatements, writeChanges, writeStatements } from './write-statements.js';

export type { PostgresStoreOptions } from './options.js';

/** How long a read waits for its namespace's first load before it answers a transient error. */
const LOAD_WAIT_MS = 10_000;

type Row = Record<string, unknown>;

/**
 * A write is one transaction holding its namespace's lock (its row in mnemo_namespaces): writes in
 * one namespace, of every replica, run one at a time and number their changes on from the
 * namespace's version; writes in different namespaces never wait for each other. Under the lock a
 * write reads the namespace's changes it has not seen, plans against the latest records, writes
 * its rows and one change row a record, and NOTIFYs. A touch on two replicas is therefore exact,
 * and gc, promotion and consolidation (each within a namespace) never act twice on one memory.
 *
 * A replica holds the namespaces it was asked about: one loads whole at its first need, follows
 * the others' writes while held, and is let go beyond MNEMO_CACHE_MB, least recently used first;
 * after a lost connection a replica reads what it missed of each (a pruned gap: all of it again).
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
  /** The catch-ups' own connections: the others' writes are read without queueing behind ours. */
  private readonly followPool: pg.Pool;
  private readonly options: PostgresStoreOptions;
  private readonly logger: Logger;
  private readonly holdings: Holdings;
  private readonly follower: Follower;
  private readonly lag = new ReplicationLag();
  private readonly quick: QuickWrites;
  private writes = 0;
  /** Namespaces loading at once at most: half the pool, the rest for writes (catch-ups have theirs). */
  private freeLoadSlots: number;
  private readonly loadWaiters: (() => void)[] = [];
  /** Every namespace is held (`preload`), a new one as soon as it is heard of. */
  private preloads = false;
  private closed = false;
  private ended: Promise<void> | undefined;

  private constructor(options: PostgresStoreOptions) {
    super();
    this.options = options;
    this.logger = options.logger;
    // Throws at once on a URL that is not one.
    clientConfig(options.url);
    this.freeLoadSlots = Math.max(1, Math.floor((options.poolSize ?? 10) / 2));
    this.pool = createPool(options.url, {
      max: options.poolSize ?? 10,
      applicationName: 'mnemo',
    });
    this.followPool = createPool(options.url, { max: 2, applicationName: 'mnemo follower' });
    this.holdings = new Holdings({
      budgetBytes: (options.cacheMb ?? defaultCacheMb()) * 2 ** 20,
      graceMs: options.evictGraceMs ?? 5000,
      now: () => performance.now(),
      release: (ns) => {
        this.follower.forget(ns);
        this.live.releaseSpace(ns);
        this.logger.debug({ namespace: ns }, 'let go of a namespace: beyond MNEMO_CACHE_MB');
      },
    });
    this.follower = new Follower({
      url: options.url,
      logger: options.logger,
      reconnectMs: options.reconnectMs,
      applied: (ns) => this.holdings.version(ns),
      unheld: (ns) => {
        if (this.preloads && !this.closed) this.ensure(ns, false).catch(() => {});
      },
      // A replica that holds every namespace also learns of those created while it was away.
      versions: async () => {
        if (this.preloads) return versionsOf(this.pool, 'all');
        const names = this.holdings.names();
        return names.length === 0 ? new Map() : versionsOf(this.pool, names);
      },
      catchUp: (ns) =>
        this.holdings.serial(ns, async () => {
          if (this.closed || this.holdings.get(ns)?.version === undefined) return;
          // Heard of this replica's own write before its commit was applied: nothing to read.
          if (!this.follower.behind(ns)) return;
          await withClient(this.followPool, (client) => this.catchUp(client, ns));
        }),
    });
    this.quick = new QuickWrites({
      live: this.live,
      holdings: this.holdings,
      follower: this.follower,
      connect: () => this.connect(),
      failure: (error, committing) => this.failure(error, committing),
      owned: (ns, m) => this.owned(ns, m),
    });
    this.connected = this.prepare();
    this.connected.catch(() => {});
    this.loaded = this.load();
    this.ready = this.loaded;
    this.loaded.catch(() => {});
  }

  /**
   * Returns at once, and in the background applies the migrations the database lacks and starts
   * following the other replicas (and with `preload`, loads every namespace). Await `ready`
   * before use: it rejects with a DatabaseError (naming MNEMO_DATABASE_URL and the fix) when the
   * database cannot be used.
   */
  static start(options: PostgresStoreOptions, listeners: StoreListener[] = []): PostgresStore {
    const store = new PostgresStore(options);
    store.live.space(DEFAULT_NAMESPACE).listeners.push(...listeners);
    return store;
  }

  /** Starts, and resolves once ready (closing the store if it cannot be). */
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
    await Promise.resolve(); // Not before the caller has subscribed its indexes and wired its server.
    await migrate(this.pool, this.options.url);
  }

  private async load(): Promise<void> {
    try {
      await this.connected;
      // Ready once it follows the others: no write of theirs after this is missed.
      await this.follower.start();
      if (this.options.preload ?? true) {
        // Any namespace written from now on (heard of while these load) is loaded too.
        this.preloads = true;
        for (const namespace of await namespacesIn(this.pool)) await this.ensure(namespace, false);
      }
    } catch (error) {
      if (this.closed) throw new StoreError('the memory store is closed');
      throw databaseError(error, this.options.url);
    }
    this.logger.debug(
      { database: redactUrl(this.options.url), memories: this.live.memoryCount },
      'connected to PostgreSQL',
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

  /** Namespace `ns` is read now: not let go for the grace from now (a request reads it). */
  override touch(ns: string): void {
    this.holdings.touch(ns);
  }

  /** The version of namespace `ns` this replica holds; undefined when it holds none. */
  versionOf(ns: string = DEFAULT_NAMESPACE): number | undefined {
    return this.holdings.get(ns)?.version;
  }

  /** This replica holds namespace `ns` now (loaded): not before a request needed it. */
  override holds(ns: string): boolean {
    return this.versionOf(ns) !== undefined;
  }

  override replicationLag(): LagSummary | null {
    return this.lag.summary();
  }

  /** The namespaces this replica holds now (loaded). */
  heldNamespaces(): string[] {
    return this.holdings.names();
  }

  /**
   * The namespaces ever written in the database (a row each in mnemo_namespaces, one read
   * whatever the number of memories), loaded here or not; while the database is away, those
   * this replica holds.
   */
  override async storedNamespaces(): Promise<string[]> {
    try {
      return await namespacesIn(this.pool);
    } catch {
      return this.live.namespaces();
    }
  }

  /** About how many bytes the namespaces held take (what MNEMO_CACHE_MB bounds). */
  get heldBytes(): number {
    return this.holdings.totalBytes;
  }

  /**
   * Loads namespace `ns` if it is not held (the caller waits for all of it, at most
   * LOAD_WAIT_MS when `bounded`), and marks it used.
   */
  private async ensure(ns: string, bounded = true): Promise<void> {
    const held = this.holdings.entry(ns);
    if (held.version !== undefined) return;
    held.loading ??= this.holdings.serial(ns, () => this.loadNow(ns));
    const loading = held.loading;
    loading.catch(() => {
      if (this.holdings.get(ns)?.loading !== loading) return;
      this.holdings.delete(ns);
      this.follower.forget(ns);
    });
    if (!bounded) return loading;
    const late = `namespace "${ns}" is still loading from PostgreSQL: retry in a moment`;
    await within(loading, LOAD_WAIT_MS, () => new TransientError(late, 'MNEMO_DATABASE_URL'));
  }

  /** In `ns`'s queue: reads the namespace as of one snapshot unless it is held. */
  private async loadNow(ns: string): Promise<void> {
    if (this.closed) throw new StoreError('the memory store is closed');
    const held = this.holdings.entry(ns);
    if (held.version !== undefined) return;
    await this.loadSlot(async () => {
      const client = await this.connect();
      try {
        await this.readIn(client, ns);
        client.release();
      } catch (error) {
        client.release(isConnectionError(error) ? (error as Error) : undefined);
        throw this.failure(error, false);
      }
    });
    for (const released of this.holdings.trim(ns)) this.logger.debug({ released }, 'let go');
  }

  /** Runs a load when one of the few load slots is free: writes keep connections of the pool. */
  private async loadSlot(load: () => Promise<void>): Promise<void> {
    if (this.freeLoadSlots > 0) this.freeLoadSlots--;
    else await new Promise<void>((resolve) => this.loadWaiters.push(resolve));
    try {
      await load();
    } finally {
      const next = this.loadWaiters.shift();
      if (next) next();
      else this.freeLoadSlots++;
    }
  }

  /** Reads namespace `ns` anew as of one snapshot (its records replace what is held). */
  private async readIn(client: pg.ClientBase, ns: string): Promise<void> {
    const snapshot = await readNamespace(client, ns);
    const held = this.holdings.entry(ns);
    if (held.version !== undefined) this.live.releaseSpace(ns);
    let bytes = 0;
    for (const record of snapshot.memories) {
      this.live.putMemory(ns, record);
      bytes += memoryBytes(record);
    }
    for (const relation of snapshot.relations) {
      this.live.putRelation(ns, relation);
      bytes += relationBytes(relation);
    }
    held.bytes = bytes;
    held.version = snapshot.version;
    this.follower.advanced(ns);
  }

  /**
   * Applies the changes other replicas were heard to make in the default namespace before this
   * call and are not applied yet; resolves at once when there are none. (Reads never wait for
   * the database: a change not yet heard of is seen within the replication lag.)
   */
  refresh(): Promise<void> {
    return this.refreshIn(DEFAULT_NAMESPACE);
  }

  /** Loads namespace `ns` if it is not held, without waiting for the feed to catch up. */
  override async heldIn(ns: string): Promise<void> {
    this.assertOpen();
    await this.ready;
    await this.ensure(ns);
  }

  /** As refresh, for namespace `ns`: loads it first if it is not held. */
  override async refreshIn(ns: string): Promise<void> {
    this.assertOpen();
    await this.ready;
    await this.ensure(ns);
    await this.follower.caughtUp(ns);
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
    await this.ensure(ns);
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
  async transactIn<T>(ns: string, plan: () => Mutation<T>, how?: TransactOptions): Promise<T> {
    this.assertOpen();
    await this.ready;
    await this.ensure(ns);
    const result = await this.holdings.serial(ns, async () => {
      this.assertOpen();
      // Let go of between the load and now: read again first.
      await this.loadNow(ns);
      const held = this.holdings.entry(ns);
      const at = held.version;
      const early = how?.pure ? this.quick.plan(ns, plan) : undefined;
      if (early && (await this.quick.write(ns, early))) return early.result;
      const client = await this.connect();
      let committing = false;
      let m: Mutation<T>;
      let changes: WriteStatements;
      let version: number;
      try {
        // A replica holding the lock for long (a large gc) holds the others' writes up to a point.
        version = await beginInNamespace(client, ns, this.options.lockWaitMs ?? 15_000);
        // Under the lock: nobody writes here until this commits, and these are the latest records.
        if (version !== held.version) await this.catchUp(client, ns);
        // Planned early from the records of the version that is still the latest: the same plan.
        m = early && version === at ? early : plan();
        this.owned(ns, m);
        changes = writeStatements(this.live, ns, m, this.options.clock());
        version = await writeChanges(client, ns, version, changes);
        committing = true;
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        client.release(isConnectionError(error) ? (error as Error) : undefined);
        throw this.failure(error, committing);
      }
      client.release();
      this.follower.wake();
      const space = this.live.space(ns);
      for (const r of m.memories ?? []) if (!space.memories.has(r.id)) held.bytes += memoryBytes(r);
      changes.apply();
      held.version = version;
      this.follower.advanced(ns);
      return m.result;
    });
    if (++this.writes % (this.options.pruneEvery ?? 1000) === 0) {
      await pruneChanges(this.pool, this.options.keepChangesSeconds ?? 86_400, this.logger);
    }
    return result;
  }

  /** Waits for pending catch-ups and the listener, then ends every connection. */
  close(): Promise<void> {
    if (!this.ended) {
      this.closed = true;
      this.ended = (async () => {
        await this.follower.close();
        await this.holdings.settled();
        await Promise.all([this.pool.end(), this.followPool.end()]).catch(() => {});
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

  /**
   * Applies the changes of namespace `ns` after the version held, reading each changed record as
   * it is now; the namespace's lock orders its versions, so none is committed behind one seen.
   */
  private async catchUp(client: pg.ClientBase, ns: string): Promise<void> {
    for (;;) {
      const held = this.holdings.get(ns);
      if (held?.version === undefined) return;
      const changes = await changesAfter(client, ns, held.version);
      if (changes.kind === 'none') return;
      if (changes.kind === 'expired') {
        this.logger.warn(
          { namespace: ns, version: held.version },
          'this replica was away longer than the changes are kept: reading the namespace again',
        );
        // Its own snapshot, in a connection of its own (`client` may be in a write's transaction).
        return withClient(this.pool, (other) => this.readIn(other, ns));
      }
      const space = this.live.space(ns);
      for (const record of changes.memories) {
        if (!space.memories.has(record.id)) held.bytes += memoryBytes(record);
        this.live.putMemory(ns, record);
      }
      for (const id of changes.goneMemories) this.live.dropMemory(id);
      for (const relation of changes.relations) this.live.putRelation(ns, relation);
      for (const id of changes.goneRelations) this.live.dropRelation(id);
      held.version = changes.last;
      this.lag.applied(changes.writtenAt);
      this.follower.advanced(ns);
      if (!changes.more) return;
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('the memory store is closed');
  }
}
