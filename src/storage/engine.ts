// What the memory needs from storage, whatever keeps it: the JSONL logs of a data dir (jsonl/)
// or PostgreSQL (postgres/). The use cases and the indexes depend on this, never on an
// engine.
import type { MemoryRecord, RelationRecord } from './records.js';

/** The namespace of everything written without one: records as mnemex and cortexgraph write them. */
export const DEFAULT_NAMESPACE = 'default';
/** What a namespace's name may be. */
export const NAMESPACE_PATTERN = /^[a-z0-9_-]{1,64}$/;

export function isNamespace(value: unknown): value is string {
  return typeof value === 'string' && NAMESPACE_PATTERN.test(value);
}

/** Where a memory's line is in a log: its first byte and its length in bytes (no newline). */
export interface LogLine {
  offset: number;
  length: number;
}

/** A stretch of a log about to be read: from a line start to a size, of one inode. */
export interface LogSpan {
  path: string;
  ino: number;
  from: number;
  to: number;
}

/** What the store keeps of a memory line another thread parsed: enough not to parse it again. */
export interface PreparedRecord {
  id: string;
  /** `statusCode` of its status. */
  status: number;
}

/** Work a listener does ahead of a long read of the log, on another thread. */
export interface ReadAhead {
  /** Resolves once the work has gone past byte `offset` (or stopped): the read waits for it. */
  reached(offset: number): Promise<void>;
  stop(): void;
  /**
   * The memory of the default namespace at `line` as the work ahead parsed it, when it did and
   * its listener can take it from that alone (`StoreListener.upsertPrepared`).
   */
  record?(line: LogLine): PreparedRecord | undefined;
  /**
   * The length of the memory line that starts at byte `offset`, when the work ahead read it (the
   * load then passes over it by that length, without reading its bytes again).
   */
  lengthAt?(offset: number): number | undefined;
}

/** Told of every change to the live memories, whichever process made it. */
export interface StoreListener {
  /** `line`: where the record was read in the log, when it was (a JSONL engine's read). */
  upsert(record: MemoryRecord, previous: MemoryRecord | undefined, line?: LogLine): void;
  remove(previous: MemoryRecord): void;
  /** Everything was reloaded (another process compacted): forget all and expect upserts. */
  reset(): void;
  /**
   * A listener whose state can be kept in the sidecar beside the log (see sidecar.ts), and taken
   * back at the next start instead of being told of every memory again.
   */
  persistence?: ListenerPersistence;
  /**
   * Before a long read of the log (a first start without a sidecar): the listener may start
   * work on `span` on another thread, which the read waits for slice by slice and stops after.
   */
  readAhead?(span: LogSpan): ReadAhead | undefined;
  /**
   * A memory new to the store, which the store did not parse: what this listener's read-ahead
   * answered for `line` (`ReadAhead.record`). As `upsert` with no previous.
   */
  upsertPrepared?(record: PreparedRecord, line: LogLine): void;
  /**
   * The store has read the log (and written its sidecar if it was behind): `span` is what it
   * read. The listener may work on it in the background; `saveLearnt` asks the store to write
   * the sidecar again for what it learnt meanwhile (`ListenerPersistence.learnt`). Answers how to
   * stop that work, which the store does when it closes. JSONL engine only.
   */
  loaded?(span: LogSpan, saveLearnt: () => void): (() => void) | undefined;
}

/** What derives from a namespace's memories beside its indexes (Retriever.watch). */
export interface MemoryWatcher {
  /** Memory `id` was added, changed or removed. */
  changed(id: string): void;
  /** Everything was reloaded: forget all. */
  reset(): void;
  /** Its part of the retriever's sidecar, under the name given, when it keeps one. */
  persisted?: WatcherPersistence;
}

/**
 * A memory's key in the sidecar being taken (-1: not kept). `hint`, where the caller has one, is
 * the slot the memory likely has in its namespace's table (an index's own number for it, which is
 * the slot after a load): checked first, it spares a lookup of the id.
 */
export type KeyOf = (id: string, hint?: number) => number;

/** A watcher's part of its retriever's sidecar (columns prefixed with its name). */
export interface WatcherPersistence {
  readonly name: string;
  /** Its state, each memory named by `keyOf(id)`, at once; undefined when it keeps none now. */
  save(keyOf: KeyOf): PersistedPart | undefined;
  /** Takes back what `save` kept; false when it cannot (it then works its state out again). */
  restore(part: PersistedPart, idOf: (key: number) => string): boolean;
  /** Memories whose derived values it learnt since the process began (`ListenerPersistence`). */
  learnt(): number;
  /**
   * The store has read the log: `saveLearnt` asks it to write the sidecar again. Answers how to
   * stop the work it then does behind the calls, which the store does when it closes.
   */
  loaded?(saveLearnt: () => void): (() => void) | undefined;
}

/** What a listener keeps in the sidecar: typed columns and a little JSON. */
export interface PersistedPart {
  columns: Record<string, Uint8Array | Uint16Array | Int32Array | Float64Array>;
  meta: Record<string, unknown>;
}

export interface ListenerPersistence {
  /** What the part depends on beyond the memories (versions, settings): unequal, not read. */
  readonly shape: Record<string, unknown>;
  /**
   * Its state, each memory named by `keyOf(id)`; undefined when it has nothing to keep. Taken a
   * slice a step: the caller lets the event loop run between steps, and goes on only while
   * `revision()` stays what it was at the first (else it drops the generator).
   */
  save(keyOf: KeyOf): Generator<void, PersistedPart | undefined>;
  /**
   * Whether it adds rows to its column `name` after a start (one a memory): read with room for
   * them (withRoom), so that it keeps the column as read rather than copy it into a larger one.
   */
  grows?(name: string): boolean;
  /** Moves on with every change to what `save` answers. */
  revision(): number;
  /**
   * Memories whose derived values (worked out from their records, not changes) the part learnt
   * since the process began: what a sidecar written now holds more than one taken before.
   */
  learnt?(): number;
  /**
   * Takes back what `save` kept, naming memories by `idOf(key)`; false when it cannot (it is
   * then told of every memory, as without a sidecar).
   */
  restore(part: PersistedPart, idOf: (key: number) => string): boolean;
}

/**
 * Told which memory changed, never of the records themselves (reading one may mean parsing it from
 * disk): what a client's subscriptions need. Not kept in the sidecar, not replayed.
 */
export interface ChangeWatcher {
  /** The memory `id` was written or removed. */
  changed(id: string): void;
  /** Everything was reloaded: any memory may have changed. */
  reset(): void;
}

export interface TransactOptions {
  /**
   * The plan only reads the records and answers what to write, with no effect of its own: an
   * engine may make it before it knows the records it reads are the latest, and then writes what
   * it answers only if they were (else makes it again). PostgreSQL writes one memory so in one
   * statement. A plan that writes a file, or anything but its answer, is not pure.
   */
  pure?: boolean;
}

/** What one transaction writes. Forgotten records are kept for restore before anything else. */
export interface Mutation<T> {
  result: T;
  memories?: MemoryRecord[];
  deletes?: string[];
  forgotten?: MemoryRecord[];
  relations?: RelationRecord[];
  relationDeletes?: string[];
}

/**
 * One namespace of the memory: every read, write and listener below sees its memories and
 * relations only. `namespace(name)` answers the view of another one (created on its first
 * write); an engine is itself the view of the default namespace. Transactions of every namespace
 * still run one at a time.
 */
export interface StorageEngine {
  /** The namespace this view reads and writes. */
  readonly namespaceName: string;
  /** The view of namespace `name` (a name matching NAMESPACE_PATTERN), the same one each time. */
  namespace(name: string): StorageEngine;
  /**
   * What every call awaits before reading or writing: resolves once the memories are loaded.
   * While another process keeps the store busy, the calls waiting then are rejected with a
   * TransientError after a while; a later call waits again, and works once it is free.
   */
  readonly ready: Promise<void>;
  /** Settles when the memories are loaded, however long the store is busy. */
  readonly loaded: Promise<void>;
  /** The live memories and relations as of the last refresh or transaction. */
  readonly memories: ReadonlyMap<string, MemoryRecord>;
  readonly relations: ReadonlyMap<string, RelationRecord>;
  relationsOf(memoryId: string): RelationRecord[];
  /** The last copy of a memory that gc or delete forgot, for restore. */
  findForgotten(id: string): Promise<MemoryRecord | undefined>;
  /**
   * The last forgotten copy of each memory of this namespace that is not live again, oldest
   * first: what an export carries beside the live memories.
   */
  forgottenRecords(): Promise<MemoryRecord[]>;
  /**
   * The namespace that holds live memory `id`, whichever it is; undefined when none does. For
   * the person's tools (import), never for an agent's call: a record id names one memory across
   * every namespace, so a write of an id another namespace holds is refused.
   */
  namespaceOfMemory(id: string): string | undefined;
  /** The namespace that holds live relation `id`, whichever it is (for import, as above). */
  namespaceOfRelation(id: string): string | undefined;
  /**
   * The namespace of each forgotten memory's id, across every namespace: a forgotten id is still
   * its namespace's (restore brings it back there). For the person's tools (import) only.
   */
  forgottenOwners(): Promise<ReadonlyMap<string, string>>;
  /**
   * Bytes each part of the store takes, by name: the files' sizes while the store holds one
   * namespace, else what this namespace's live records take in them.
   */
  sizes(): Promise<Record<string, number>>;
  /**
   * Catches up with what other processes wrote, as far as this engine has heard of it: the JSONL
   * engine reads the logs' new lines; a database engine applies the changes it was told of.
   * Cheap when nothing changed.
   */
  refresh(): Promise<void>;
  /**
   * Resolves once this namespace's memories are here to read (the log read; on PostgreSQL the
   * namespace loaded), without catching up with what other processes wrote since.
   */
  held(): Promise<void>;
  /**
   * Runs `plan` alone against the latest memories (no other writer in between, in this process
   * or another) and makes what it returns durable, all of it or none, before resolving with its
   * result. `plan` is synchronous and may throw to write nothing.
   */
  transact<T>(plan: () => Mutation<T>, how?: TransactOptions): Promise<T>;
  /** Tells `listener` of every live memory of this namespace now, then of every change to them. */
  subscribe(listener: StoreListener): void;
  /** Tells `watcher` of every change from now on (nothing of what is there); the answer stops it. */
  watch(watcher: ChangeWatcher): () => void;
  /** Ends it; a database engine resolves once its connections are closed. */
  close(): void | Promise<void>;
}

/** The ids of the live memories of a status, without reading each record where that is possible. */
export { idsWithStatus } from './memory-table.js';
