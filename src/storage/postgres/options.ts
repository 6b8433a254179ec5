// How a PostgresStore is opened: the database, its pool, the feed's horizons and the cache.
import type { Logger } from 'pino';

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
  /**
   * Load every namespace at the start (one-shot commands that walk them all); else a namespace
   * loads when a read or write of it first comes.
   */
  preload?: boolean;
  /** MNEMO_CACHE_MB: the namespaces held beyond it are let go, least recently used first. */
  cacheMb?: number;
  /** A namespace read within this many ms is not let go (5 s unless told). */
  evictGraceMs?: number;
}
