// One namespace of an engine: a view with the StorageEngine interface, and how a stored JSONL line
// says which namespace it belongs to.

import {
  type ChangeWatcher,
  DEFAULT_NAMESPACE,
  isNamespace,
  type Mutation,
  NAMESPACE_PATTERN,
  type StorageEngine,
  type StoreListener,
  type TransactOptions,
} from './engine.js';
import { crossing, StoreError } from './errors.js';
import { LiveRecords } from './live-records.js';
import { type MemoryRecord, RecordError, type RelationRecord } from './records.js';

/**
 * What an engine that keeps every namespace's live records offers its views: the methods of the
 * interface, for a namespace it is told.
 */
export interface NamespaceHost {
  readonly ready: Promise<void>;
  readonly loaded: Promise<void>;
  readonly live: LiveRecords;
  namespace(name: string): StorageEngine;
  findForgottenIn(ns: string, id: string): Promise<MemoryRecord | undefined>;
  forgottenIn(ns: string): Promise<MemoryRecord[]>;
  forgottenOwners(): Promise<ReadonlyMap<string, string>>;
  sizesIn(ns: string): Promise<Record<string, number>>;
  refresh(): Promise<void>;
  /** Refresh for namespace `ns` (an engine that loads namespaces on demand loads it first). */
  refreshIn(ns: string): Promise<void>;
  /** `StorageEngine.held` for namespace `ns`. */
  heldIn(ns: string): Promise<void>;
  /** Namespace `ns` is read now (an engine that lets go of namespaces keeps it meanwhile). */
  touch?(ns: string): void;
  transactIn<T>(ns: string, plan: () => Mutation<T>, how?: TransactOptions): Promise<T>;
}

/** Namespace `name` of an engine: its reads and writes, kept to it. */
export class NamespaceView implements StorageEngine {
  constructor(
    private readonly host: NamespaceHost,
    readonly namespaceName: string,
  ) {}

  get ready(): Promise<void> {
    return this.host.ready;
  }

  get loaded(): Promise<void> {
    return this.host.loaded;
  }

  get memories(): ReadonlyMap<string, MemoryRecord> {
    this.host.touch?.(this.namespaceName);
    return this.host.live.space(this.namespaceName).memories;
  }

  get relations(): ReadonlyMap<string, RelationRecord> {
    this.host.touch?.(this.namespaceName);
    return this.host.live.space(this.namespaceName).relations;
  }

  namespace(name: string): StorageEngine {
    return this.host.namespace(name);
  }

  relationsOf(memoryId: string): RelationRecord[] {
    this.host.touch?.(this.namespaceName);
    return this.host.live.relationsIn(this.namespaceName, memoryId);
  }

  findForgotten(id: string): Promise<MemoryRecord | undefined> {
    return this.host.findForgottenIn(this.namespaceName, id);
  }

  forgottenRecords(): Promise<MemoryRecord[]> {
    return this.host.forgottenIn(this.namespaceName);
  }

  namespaceOfMemory(id: string): string | undefined {
    return this.host.live.namespaceOfMemory(id);
  }

  namespaceOfRelation(id: string): string | undefined {
    return this.host.live.namespaceOfRelation(id);
  }

  forgottenOwners(): Promise<ReadonlyMap<string, string>> {
    return this.host.forgottenOwners();
  }

  sizes(): Promise<Record<string, number>> {
    return this.host.sizesIn(this.namespaceName);
  }

  refresh(): Promise<void> {
    return this.host.refreshIn(this.namespaceName);
  }

  held(): Promise<void> {
    return this.host.heldIn(this.namespaceName);
  }

  transact<T>(plan: () => Mutation<T>, how?: TransactOptions): Promise<T> {
    return this.host.transactIn(this.namespaceName, plan, how);
  }

  subscribe(listener: StoreListener): void {
    this.host.live.subscribe(this.namespaceName, listener);
  }

  watch(watcher: ChangeWatcher): () => void {
    return this.host.live.watch(this.namespaceName, watcher);
  }

  /** The engine closes for every namespace at once: its owner closes it. */
  close(): void {}
}

/** What `replicationLag` answers: over the last changes applied, nearest-rank, whole ms. */
export interface LagSummary {
  p50_ms: number;
  p99_ms: number;
}

/**
 * What both engines share: every namespace's live records in memory, the engine itself the view
 * of the default namespace, and the views of the others. An engine says how to load, write and
 * follow; the reads are these.
 */
export abstract class NamespacedEngine implements StorageEngine, NamespaceHost {
  readonly namespaceName = DEFAULT_NAMESPACE;
  readonly live: LiveRecords;

  constructor() {
    const reader = this.readMemoryLine;
    this.live = new LiveRecords(reader && ((offset, length) => reader.call(this, offset, length)));
  }

  /**
   * How an engine that can read a memory's line again reads it: then it keeps only where each
   * line is (see MemoryTable), not the records.
   */
  protected readMemoryLine?(offset: number, length: number): MemoryRecord;
  private readonly views = new Map<string, StorageEngine>();
  abstract readonly ready: Promise<void>;
  abstract readonly loaded: Promise<void>;
  abstract findForgottenIn(ns: string, id: string): Promise<MemoryRecord | undefined>;
  abstract forgottenIn(ns: string): Promise<MemoryRecord[]>;
  abstract forgottenOwners(): Promise<ReadonlyMap<string, string>>;
  abstract sizesIn(ns: string): Promise<Record<string, number>>;
  abstract refresh(): Promise<void>;
  /** Every namespace is held: refreshing one refreshes them all. */
  refreshIn(_ns: string): Promise<void> {
    return this.refresh();
  }

  /** Every namespace is held once the store is read. */
  heldIn(_ns: string): Promise<void> {
    return this.ready;
  }

  held(): Promise<void> {
    return this.heldIn(DEFAULT_NAMESPACE);
  }

  /**
   * The namespaces of the store, loaded here or not (an engine that holds every namespace:
   * those that hold a live memory or relation).
   */
  storedNamespaces(): Promise<string[]> {
    return Promise.resolve(this.live.namespaces());
  }
  abstract transactIn<T>(ns: string, plan: () => Mutation<T>, how?: TransactOptions): Promise<T>;
  abstract close(): void | Promise<void>;

  /** Namespace `ns` is loaded here, so its counts are what the store holds (every one is, here). */
  holds(_ns: string): boolean {
    return true;
  }

  /**
   * How far behind the other replicas' writes this one applies them (PostgreSQL); null where
   * there are no replicas, or before one of their writes was applied here.
   */
  replicationLag(): LagSummary | null {
    return null;
  }

  namespace(name: string): StorageEngine {
    return namespaceView(this, this.views, name);
  }

  touch?(ns: string): void;

  get memories(): ReadonlyMap<string, MemoryRecord> {
    this.touch?.(DEFAULT_NAMESPACE);
    return this.live.space(DEFAULT_NAMESPACE).memories;
  }

  get relations(): ReadonlyMap<string, RelationRecord> {
    this.touch?.(DEFAULT_NAMESPACE);
    return this.live.space(DEFAULT_NAMESPACE).relations;
  }

  relationsOf(memoryId: string): RelationRecord[] {
    this.touch?.(DEFAULT_NAMESPACE);
    return this.live.relationsIn(DEFAULT_NAMESPACE, memoryId);
  }

  subscribe(listener: StoreListener): void {
    this.live.subscribe(DEFAULT_NAMESPACE, listener);
  }

  watch(watcher: ChangeWatcher): () => void {
    return this.live.watch(DEFAULT_NAMESPACE, watcher);
  }

  findForgotten(id: string): Promise<MemoryRecord | undefined> {
    return this.findForgottenIn(DEFAULT_NAMESPACE, id);
  }

  forgottenRecords(): Promise<MemoryRecord[]> {
    return this.forgottenIn(DEFAULT_NAMESPACE);
  }

  namespaceOfMemory(id: string): string | undefined {
    return this.live.namespaceOfMemory(id);
  }

  namespaceOfRelation(id: string): string | undefined {
    return this.live.namespaceOfRelation(id);
  }

  sizes(): Promise<Record<string, number>> {
    return this.sizesIn(DEFAULT_NAMESPACE);
  }

  transact<T>(plan: () => Mutation<T>, how?: TransactOptions): Promise<T> {
    return this.transactIn(DEFAULT_NAMESPACE, plan, how);
  }

  /**
   * Throws crossing(ns) when mutation `m` names a record another namespace holds: records never
   * move between namespaces. Each engine calls it on the plan before it writes anything.
   */
  protected owned(ns: string, m: Mutation<unknown>): void {
    const owns = (owner: string | undefined) => owner === undefined || owner === ns;
    for (const r of m.memories ?? []) {
      if (!owns(this.live.namespaceOfMemory(r.id))) throw crossing(ns);
    }
    for (const r of m.relations ?? []) {
      if (!owns(this.live.namespaceOfRelation(r.id))) throw crossing(ns);
    }
  }
}

/**
 * The view of namespace `name` of `host`, the same one each time (kept in `views`); the host
 * itself for the default namespace. A name that is not one throws.
 */
export function namespaceView(
  host: NamespaceHost & StorageEngine,
  views: Map<string, StorageEngine>,
  name: string,
): StorageEngine {
  if (name === DEFAULT_NAMESPACE) return host;
  if (!isNamespace(name)) {
    throw new StoreError(
      `"${name}" is not a namespace name: use 1 to 64 of a-z, 0-9, _ and - (${NAMESPACE_PATTERN.source})`,
    );
  }
  let view = views.get(name);
  if (!view) {
    view = new NamespaceView(host, name);
    views.set(name, view);
  }
  return view;
}

/** The namespace a stored line belongs to: the default one when it names none. */
export function lineNamespace(line: unknown): string {
  const ns = (line as { namespace?: unknown }).namespace;
  if (ns === undefined) return DEFAULT_NAMESPACE;
  if (!isNamespace(ns)) {
    throw new RecordError(`"namespace" must match ${NAMESPACE_PATTERN.source}`);
  }
  return ns;
}

/** A stored line of namespace `ns`: as it was for the default one, with `"namespace"` else. */
export function withNamespace(line: unknown, ns: string): unknown {
  if (ns === DEFAULT_NAMESPACE || typeof line !== 'object' || line === null) return line;
  return { ...line, namespace: ns };
}
