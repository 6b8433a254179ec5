import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { loadEmbeddings } from '../search/embeddings.js';
import { onnxMatVec } from '../search/onnx-matvec.js';
import { Retriever } from '../search/retriever.js';
import { SemanticIndex } from '../search/semantic-index.js';
import { JsonlStore } from '../storage/store.js';
import { VaultIndex } from '../vault/note-index.js';
import { VaultWriter } from '../vault/writer.js';
import { createContext, type MemorySettings } from './context.js';
import { createMemory, type Memory } from './index.js';
import { NoteSync } from './note-sync.js';
import { createReadiness, type Readiness } from './readiness.js';

export function settingsFrom(config: Config): MemorySettings {
  return {
    decay: { model: config.decayModel, halfLifeDays: config.halfLifeDays, beta: config.beta },
    dangerZone: { min: config.dangerZoneMin, max: config.dangerZoneMax },
    promotion: {
      threshold: config.promoteThreshold,
      minUses: config.promoteMinUses,
      useCount: config.promoteUseCount,
      windowDays: config.promoteWindowDays,
    },
    forgetThreshold: config.forgetThreshold,
    reviewBlendRatio: config.reviewBlendRatio,
    searchDecayWeight: config.searchDecayWeight,
    autoReinforce: config.autoReinforce,
    hybridWeight: config.hybridWeight,
    similarityThreshold: config.similarityThreshold,
    nearDuplicateThreshold: config.nearDuplicateThreshold,
  };
}

export interface OpenedMemory {
  memory: Memory;
  readiness: Readiness;
  store: JsonlStore;
  /**
   * What every service call waits for: the store's load, or a busy error after a while when
   * another process holds the data dir lock (a later call waits again).
   */
  readonly ready: Promise<void>;
  /** Settles when the store has loaded, however long the lock is busy. */
  loaded: Promise<void>;
  /** Settles when the vault's notes are indexed (at once when the vault is not watched). */
  vaultReady: Promise<void>;
  /** The index of the vault's notes, and what keeps memories in step with them. */
  notes: VaultIndex;
  noteSync: NoteSync;
  /** The memories' embeddings; `semantic.ready` settles when the model is loaded (or is not). */
  semantic: SemanticIndex;
  close(): Promise<void>;
}

export interface OpenOptions {
  logger: Logger;
  clock: () => number;
  /**
   * Index the vault and watch it, keeping promoted memories in step with their notes: for the
   * long-running servers (stdio, serve), not for one-shot commands.
   */
  watchVault?: boolean;
  /** How long a deleted note may stay away before its memory is active again (a rename). */
  noteSettleMs?: number;
  /** How long a write, or a call the load holds up, waits for another process's lock (ms). */
  lockWaitMs?: number;
}

/**
 * Wires the store, the indexes, the vault and the service over the data dir of `config`.
 * Returns at once; the store loads and the vault is indexed in the background (a folder that
 * cannot be used throws here).
 */
export function openMemory(config: Config, options: OpenOptions): OpenedMemory {
  const { logger, clock } = options;
  // The model loads once the store has, in the background: the handshake and the first answers
  // never wait for it, and search is by words until it is there.
  let storeReady: () => void = () => {};
  const afterStore = new Promise<void>((resolve) => {
    storeReady = resolve;
  });
  const provider = afterStore.then(() =>
    config.embeddings === 'off'
      ? null
      : loadEmbeddings(config.embeddings, {
          cacheDir: path.join(config.dataDir, 'models'),
          logger,
        }),
  );
  let textsSettled: () => void = () => {};
  const semantic = new SemanticIndex({
    dataDir: config.dataDir,
    logger,
    enabled: config.embeddings !== 'off',
    textsSettled: new Promise<void>((resolve) => {
      textsSettled = resolve;
    }),
    provider,
    matVec: provider.then((p) => (p ? onnxMatVec() : undefined)),
  });
  const store = JsonlStore.start({
    dataDir: config.dataDir,
    logger,
    clock,
    lockWaitMs: options.lockWaitMs,
  });
  const settings = settingsFrom(config);
  // One document per memory for words and meaning alike: its note's, once promoted and edited.
  const retriever = new Retriever({ engine: store, semantic, settings, logger });
  // Before the load, which starts on the next turn: every record reaches the indexes.
  store.subscribe(retriever);
  void store.loaded.then(storeReady, storeReady);
  let sync: NoteSync | undefined;
  const notes = new VaultIndex({
    vault: config.vaultDir,
    logger,
    onEvent: (event) => sync?.handle(event),
  });
  sync = new NoteSync({
    store,
    documents: retriever,
    notes,
    logger,
    clock,
    ...(options.noteSettleMs !== undefined ? { settleMs: options.noteSettleMs } : {}),
  });
  const writer = new VaultWriter({
    vault: config.vaultDir,
    folder: config.vaultFolder,
    locate: (id) => notes.notesOf(id)[0]?.path,
  });
  const noteSync = sync;
  const vaultReady = options.watchVault
    ? notes
        .start({ watch: true })
        // After the load, however long another process holds the lock: not at its first busy error.
        .then(() => store.loaded)
        .then(() => noteSync.reconcileAll())
        .catch((error: Error) => logger.warn({ err: error.message }, 'vault index'))
    : Promise.resolve();
  void vaultReady.then(textsSettled);
  const readiness = createReadiness({
    engine: store,
    vault: options.watchVault ? vaultReady : undefined,
    notes,
    semantic,
  });
  const ctx = createContext({
    engine: store,
    retriever,
    clock,
    settings,
    logger,
    readiness,
    vault: { writer, notes, sync: noteSync },
    semantic,
  });
  return {
    memory: createMemory(ctx),
    readiness,
    store,
    get ready() {
      return store.ready;
    },
    loaded: store.loaded,
    vaultReady,
    notes,
    noteSync,
    semantic,
    close: async () => {
      semantic.close();
      noteSync.close();
      await notes.close();
      store.close();
    },
  };
}
