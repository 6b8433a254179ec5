// One namespace of the JSONL store: a view with the StorageEngine interface, and how a stored line
// says which namespace it belongs to.
import { StoreError } from './data-dir.js';
import {
  DEFAULT_NAMESPACE,
  isNamespace,
  type Mutation,
  NAMESPACE_PATTERN,
  type StorageEngine,
  type StoreListener,
} from './engine.js';
import { type MemoryRecord, RecordError, type RelationRecord } from './records.js';
import type { JsonlStore } from './store.js';

/** Namespace `name` of a JsonlStore: the store's reads and writes, kept to it. */
export class NamespaceView implements StorageEngine {
  constructor(
    private readonly store: JsonlStore,
    readonly namespaceName: string,
  ) {}

  get ready(): Promise<void> {
    return this.store.ready;
  }

  get loaded(): Promise<void> {
    return this.store.loaded;
  }

  get memories(): ReadonlyMap<string, MemoryRecord> {
    return this.store.space(this.namespaceName).memories;
  }

  get relations(): ReadonlyMap<string, RelationRecord> {
    return this.store.space(this.namespaceName).relations;
  }

  namespace(name: string): StorageEngine {
    return this.store.namespace(name);
  }

  relationsOf(memoryId: string): RelationRecord[] {
    return this.store.relationsIn(this.namespaceName, memoryId);
  }

  findForgotten(id: string): MemoryRecord | undefined {
    return this.store.findForgottenIn(this.namespaceName, id);
  }

  sizes(): Record<string, number> {
    return this.store.sizesIn(this.namespaceName);
  }

  refresh(): void {
    this.store.refresh();
  }

  transact<T>(plan: () => Mutation<T>): Promise<T> {
    return this.store.transactIn(this.namespaceName, plan);
  }

  subscribe(listener: StoreListener): void {
    this.store.subscribeIn(this.namespaceName, listener);
  }

  /** The store closes for every namespace at once: its owner closes it. */
  close(): void {}
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

export function crossing(ns: string): StoreError {
  return new StoreError(
    `a record of this write is not in namespace "${ns}": nothing was written. Records never move between namespaces`,
  );
}
