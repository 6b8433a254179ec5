// The composition root of the memory: the store, the indexes, the vault and the use cases over
// the data dir of a Config. The apps (stdio.ts, http.ts) and the CLI's commands open it here.
import path from 'node:path';
import type { Logger } from 'pino';
import { memorySettings } from '../config/derived.js';
import type { Config } from '../config/index.js';
import { createContext, type MemorySettings } from '../memory/context.js';
import type { FactJudge } from '../memory/facts/judge.js';
import { attachFactKeys } from '../memory/facts/links.js';
import { createMemory, type Memory } from '../memory/index.js';
import { NoteSync } from '../memory/note-sync.js';
import { createReadiness, type Readiness } from '../memory/readiness.js';
import { deferred } from '../platform/deferred.js';
import { loadEmbeddings, MINILM_MODEL } from '../search/embeddings.js';
import { onnxMatVec } from '../search/onnx-matvec.js';
import { Retriever } from '../search/retriever.js';
import { SemanticIndex } from '../search/semantic-index.js';
import { DEFAULT_NAMESPACE, type StorageEngine } from '../storage/engine.js';
import type { LagSummary } from '../storage/namespace-view.js';
import { openEngine } from '../storage/open.js';
import { VaultIndex } from '../vault/note-index.js';
import { VaultWriter } from '../vault/writer.js';

export interface OpenedMemory {
  /** The use cases in the namespace of the config: what stdio and the commands call. */
  memory: Memory;
  /**
   * The use cases in namespace `name`, made on first use and kept: what a request of `mnemo
   * serve` calls. A name that is not one throws.
   */
  memoryFor(name: string): Memory;
  /** When the store, the vault and the embeddings can be used. */
  readiness: Readiness;
  /**
   * Resolves once the storage can be used at all: at once for a data dir (checked when opened);
   * for PostgreSQL once it answered and its schema is up to date, else it rejects with one line
   * naming MNEMO_DATABASE_URL and the fix. The apps await it before they answer anyone.
   */
  connected: Promise<void>;
  /** The storage engine's view of the namespace of the config, for counts (the start log). */
  store: StorageEngine;
  /** The storage engine's view of namespace `name`, for counts (`mnemo serve`'s /health). */
  storeOf(name: string): StorageEngine;
  /**
   * This process holds namespace `name`, so storeOf's counts are the store's (PostgreSQL loads a
   * namespace when a request first needs it; a data dir holds them all).
   */
  holds(name: string): boolean;
  /** How far behind the other replicas' writes this one is (PostgreSQL; else null): /health. */
  replicationLag(): LagSummary | null;
  /** The names of the namespaces that hold a live memory or relation (`mnemo reindex`). */
  namespaces(): string[];
  /** Every namespace of the store, held by this process or not (the consent page's list). */
  storedNamespaces(): Promise<string[]>;
  /** The memories' embeddings (`mnemo reindex` computes them all). */
  semantic: SemanticIndex;
  /** The index of the vault's notes, and what keeps memories in step with them. */
  notes: VaultIndex;
  noteSync: NoteSync;
  /** Stops the watchers and closes the store; a load in progress stops. */
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
  /** Lines the log may have past the sidecar before it is written again (StoreOptions). */
  sidecarMinLines?: number;
  /**
   * On PostgreSQL, load each namespace at its first need rather than all at the start: for the
   * long-running servers (stdio, serve), not for one-shot commands that walk every namespace.
   */
  namespacesOnDemand?: boolean;
  /**
   * The embedding model loads once the store has and this has settled too: stdio's first answer.
   * Importing transformers.js and the ONNX runtime holds the event loop for a few hundred ms.
   */
  modelAfter?: Promise<void>;
  /** The fact judge of the save path (tests give a deterministic one); the offline one unset. */
  judgeFacts?: FactJudge;
}

/**
 * Wires the memory over the data dir of `config` and starts it: returns at once, while the store
 * loads (from the next turn of the event loop), the vault is indexed and the model is loaded in
 * the background. A folder that cannot be used throws here.
 */
export function openMemory(config: Config, options: OpenOptions): OpenedMemory {
  const { logger, clock } = options;
  const {
    engine: store,
    vectors,
    connected,
  } = openEngine(
    {
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      cacheMb: config.cacheMb,
      lockWaitMs: options.lockWaitMs,
      sidecarMinLines: options.sidecarMinLines,
      preload: options.namespacesOnDemand !== true,
    },
    { logger, clock },
  );
  // Without a vault (a replica on PostgreSQL not told one) promotion answers how to get one.
  const vaultDir = config.vaultDir;
  // The model loads once the store has, in the background: the handshake and the first answers
  // never wait for it, and search is by words until it is there.
  // Not at all when the store cannot be loaded: the command or the app is about to stop.
  const provider = store.loaded.then(
    async () => {
      if (config.embeddings === 'off') return null;
      await options.modelAfter;
      return loadEmbeddings(config.embeddings, {
        cacheDir: path.join(config.dataDir, 'models'),
        logger,
      });
    },
    () => null,
  );
  const textsSettled = deferred();
  const semantic = new SemanticIndex({
    dataDir: config.dataDir,
    logger,
    enabled: config.embeddings !== 'off',
    textsSettled: textsSettled.promise,
    provider,
    // MiniLM's ONNX runtime, when that is the model, multiplies faster than the plain loop; the
    // static model loads no runtime, so its searches take the loop.
    matVec: provider.then((p) => (p?.id.startsWith(`${MINILM_MODEL}:`) ? onnxMatVec() : undefined)),
    // The engine's: vectors.jsonl, or on PostgreSQL the replicas' shared table.
    store: vectors,
  });
  const settings: MemorySettings = memorySettings(config);
  // One document per memory for words and meaning alike: its note's, once promoted and edited.
  // One retriever a namespace: a search never walks another namespace's words.
  const retriever = new Retriever({ engine: store, semantic, settings, logger });
  // A memory's text for its vector, read when it is needed (a start from the sidecar keeps none).
  const retrievers = [retriever];
  semantic.textSource = (id) => {
    for (const r of retrievers) {
      const text = r.textOf(id);
      if (text !== undefined) return text;
    }
    return undefined;
  };
  // Before the load begins: every record reaches the indexes, and the sidecar its parts.
  attachFactKeys(retriever, store);
  store.subscribe(retriever);

  // One NoteSync a namespace, each told of every note: it acts on its own namespace's memories.
  const syncs: NoteSync[] = [];
  /** The vault was indexed: a namespace opened from now on reconciles its memories at once. */
  let indexed = false;
  const notes = new VaultIndex({
    vault: vaultDir ?? config.dataDir,
    logger,
    onEvent: (event) => {
      for (const sync of syncs) sync.handle(event);
    },
  });
  const syncFor = (
    engine: StorageEngine,
    documents: Retriever,
    visible: (notePath: string) => boolean,
  ): NoteSync => {
    const sync = new NoteSync({
      store: engine,
      documents,
      notes,
      visible,
      logger,
      clock,
      ...(options.noteSettleMs !== undefined ? { settleMs: options.noteSettleMs } : {}),
    });
    syncs.push(sync);
    if (indexed) {
      sync
        .reconcileAll()
        .catch((error: Error) => logger.warn({ err: error.message }, 'vault index'));
    }
    return sync;
  };
  // A namespace's memories are spoken for by its own folder's notes only: the same rule as what
  // search_unified shows it.
  const defaultVisible = notesOf(config.vaultFolder, undefined);
  const noteSync = syncFor(store, retriever, defaultVisible);
  const writer = new VaultWriter({
    vault: vaultDir ?? config.dataDir,
    folder: config.vaultFolder,
    locate: (id) => notes.notesOf(id).find((note) => defaultVisible(note.path))?.path,
    visible: defaultVisible,
  });
  const vaultReady =
    options.watchVault && vaultDir !== undefined
      ? notes
          .start({ watch: true })
          // After the load, however long another process holds the lock: not at its first busy error.
          .then(() => store.loaded)
          .then(async () => {
            indexed = true;
            await Promise.all(syncs.map((sync) => sync.reconcileAll()));
          })
          .catch((error: Error) => logger.warn({ err: error.message }, 'vault index'))
      : undefined;
  // Without a watched vault the notes' texts are known at once: none.
  void Promise.resolve(vaultReady).then(() => textsSettled.resolve());

  const readiness = createReadiness({ engine: store, vault: vaultReady, notes, semantic });
  const memories = new Map<string, Memory>();
  const memoryFor = (name: string): Memory => {
    let memory = memories.get(name);
    if (memory) return memory;
    const engine = store.namespace(name);
    const isDefault = name === DEFAULT_NAMESPACE;
    const visible = isDefault ? defaultVisible : notesOf(config.vaultFolder, name);
    let ownRetriever = retriever;
    let ownSync = noteSync;
    if (!isDefault) {
      ownRetriever = new Retriever({ engine, semantic, settings, logger });
      attachFactKeys(ownRetriever, engine);
      retrievers.push(ownRetriever);
      engine.subscribe(ownRetriever);
      ownSync = syncFor(engine, ownRetriever, visible);
    }
    // Each namespace's notes in a folder of their own, beside (under) the default one's.
    const folder = isDefault ? config.vaultFolder : path.posix.join(config.vaultFolder, name);
    const ownWriter = isDefault
      ? writer
      : new VaultWriter({
          vault: vaultDir ?? config.dataDir,
          folder,
          locate: (id) => notes.notesOf(id).find((note) => visible(note.path))?.path,
          visible,
        });
    const ctx = createContext({
      engine,
      retriever: ownRetriever,
      clock,
      settings,
      logger,
      readiness,
      vault:
        vaultDir === undefined
          ? undefined
          : {
              writer: ownWriter,
              notes,
              sync: ownSync,
              visible,
            },
      semantic,
      judgeFacts: options.judgeFacts,
    });
    memory = createMemory(ctx);
    memories.set(name, memory);
    return memory;
  };
  memoryFor(DEFAULT_NAMESPACE);
  return {
    memory: memoryFor(config.namespace),
    memoryFor,
    readiness,
    connected,
    store: store.namespace(config.namespace),
    storeOf: (name) => store.namespace(name),
    holds: (name) => store.holds(name),
    replicationLag: () => store.replicationLag(),
    namespaces: () => store.live.namespaces(),
    storedNamespaces: () => store.storedNamespaces(),
    semantic,
    notes,
    noteSync,
    close: async () => {
      // The vectors written before the database connections close.
      await semantic.close();
      for (const sync of syncs) sync.close();
      await notes.close();
      await store.close();
    },
  };
}

/**
 * Which of the vault's notes a namespace sees in search_unified: the default namespace every
 * note but those of the other namespaces' folders (`<folder>/<name>/`), another one its own
 * folder's only.
 */
function notesOf(folder: string, name: string | undefined): (notePath: string) => boolean {
  const root = `${folder}/`;
  if (name === undefined) {
    return (notePath) => !notePath.startsWith(root) || !notePath.slice(root.length).includes('/');
  }
  const own = `${root}${name}/`;
  return (notePath) => notePath.startsWith(own);
}
