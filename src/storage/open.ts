// openEngine(): the storage engine a config names, and what it offers besides StorageEngine: the
// one place outside the engine folders that names an engine.
import path from 'node:path';
import type { Logger } from 'pino';
import { JsonlStore } from './jsonl/store.js';
import { JsonlVectorStore, VECTORS_FILE } from './jsonl/vectors.js';
import type { NamespacedEngine } from './namespace-view.js';
import { PostgresStore } from './postgres/engine.js';
import type { VectorStore } from './vector-store.js';

export interface OpenedEngine {
  /** The engine, itself the view of the default namespace: it loads from the next turn on. */
  engine: NamespacedEngine;
  /** Where the memories' vectors persist: vectors.jsonl in the data dir, or mnemo_vectors. */
  vectors: VectorStore;
  /**
   * Resolves once the storage can be used at all: at once for a data dir (checked when opened);
   * for PostgreSQL once it answered and its schema is up to date, else it rejects with one line
   * naming MNEMO_DATABASE_URL and the fix.
   */
  connected: Promise<void>;
}

/** What of the settings the engine is chosen and started by. */
export interface EngineConfig {
  /** MNEMO_DATABASE_URL: PostgreSQL when set, else the JSONL logs of `dataDir`. */
  databaseUrl?: string | undefined;
  dataDir: string;
  /** MNEMO_CACHE_MB (PostgreSQL): the namespaces held beyond it are let go. */
  cacheMb?: number | undefined;
  /** How long a write, or a call the load holds up, waits for another process's lock (JSONL). */
  lockWaitMs?: number | undefined;
  /** Lines the log may have past the sidecar before it is written again (JSONL). */
  sidecarMinLines?: number | undefined;
  /** Load every namespace at the start (PostgreSQL), not each at its first need. */
  preload: boolean;
}

export interface EngineDeps {
  logger: Logger;
  clock: () => number;
}

/** Starts the engine of `config`: returns at once. A data dir that cannot be used throws here. */
export function openEngine(config: EngineConfig, deps: EngineDeps): OpenedEngine {
  const { logger, clock } = deps;
  if (config.databaseUrl) {
    const engine = PostgresStore.start({
      url: config.databaseUrl,
      logger,
      clock,
      preload: config.preload,
      ...(config.cacheMb !== undefined ? { cacheMb: config.cacheMb } : {}),
    });
    // Replicas share what they computed: a memory saved elsewhere is embedded once.
    return { engine, vectors: engine.vectorStore(), connected: engine.connected };
  }
  const engine = JsonlStore.start({
    dataDir: config.dataDir,
    logger,
    clock,
    lockWaitMs: config.lockWaitMs,
    sidecarMinLines: config.sidecarMinLines,
  });
  const vectors = new JsonlVectorStore(path.join(config.dataDir, VECTORS_FILE), logger);
  return { engine, vectors, connected: Promise.resolve() };
}
