// The live memories and relations an engine keeps in memory, by namespace, and who listens to
// them: what every engine reads back its rows into, whatever it reads them from.
import type { ChangeWatcher, PreparedRecord, StoreListener } from './engine.js';
import { type LineReader, type LineRef, MemoryTable } from './memory-table.js';
import type { MemoryRecord, RelationRecord } from './records.js';

/** Spaces holding memories that a lookup of a memory's space looks in, one by one, at most. */
const SCAN_MAX = 4;

/** The live records of one namespace, and who listens to them. */
export class Space {
  readonly memories: MemoryTable;
  readonly relations = new Map<string, RelationRecord>();
  readonly relationsByMemory = new Map<string, Set<string>>();
  readonly listeners: StoreListener[] = [];
  /** Told of changes by id only; apart from the listeners, whose shapes the sidecar records. */
  readonly watchers = new Set<ChangeWatcher>();
  constructor(
    readonly name: string,
    reader?: LineReader,
  ) {
    this.memories = new MemoryTable(reader);
  }
}

/**
 * Every namespace's live records. Ids are unique across namespaces: a record put under another
 * namespace than it was (a hand edit moved it) leaves the one it was in.
 */
export class LiveRecords {
  /**
   * With a reader, a memory put with where its line is (`putMemory`'s ref) is read again from
   * there when asked for, rather than kept parsed.
   */
  constructor(private readonly reader?: LineReader) {}

  private readonly byName = new Map<string, Space>();
  /** The namespace of each live relation, by id (a memory's is found in the few spaces). */
  private readonly relationSpace = new Map<string, Space>();

  /** The live records of namespace `ns` (empty until it has some). */
  space(ns: string): Space {
    let space = this.byName.get(ns);
    if (!space) {
      space = new Space(ns, this.reader);
      this.byName.set(ns, space);
    }
    return space;
  }

  spaces(): IterableIterator<Space> {
    return this.byName.values();
  }

  /** The names of the namespaces that hold a live memory or relation. */
  namespaces(): string[] {
    return [...this.byName.values()]
      .filter((s) => s.memories.size > 0 || s.relations.size > 0)
      .map((s) => s.name);
  }

  get memoryCount(): number {
    let n = 0;
    for (const space of this.byName.values()) n += space.memories.size;
    return n;
  }

  /**
   * The space of each live memory, by id, once more than SCAN_MAX spaces hold memories (a
   * replica holding a hundred namespaces looked in each for every memory it put); before, the
   * few spaces are looked in.
   */
  private owners: Map<string, Space> | undefined;

  private memorySpace(id: string): Space | undefined {
    if (this.owners) return this.owners.get(id);
    for (const space of this.byName.values()) if (space.memories.has(id)) return space;
    return undefined;
  }

  /** Before `space` holds its first memory: the owners kept from now on if it makes too many. */
  private firstIn(space: Space): void {
    if (this.owners || space.memories.size > 0) return;
    let holding = 0;
    for (const other of this.byName.values()) if (other.memories.size > 0) holding++;
    if (holding < SCAN_MAX) return;
    this.owners = new Map();
    for (const other of this.byName.values()) {
      for (const id of other.memories.keys()) this.owners.set(id, other);
    }
  }

  get relationCount(): number {
    return this.relationSpace.size;
  }

  /** The namespace memory `id` lives in, if it is live. */
  namespaceOfMemory(id: string): string | undefined {
    return this.memorySpace(id)?.name;
  }

  namespaceOfRelation(id: string): string | undefined {
    return this.relationSpace.get(id)?.name;
  }

  /** Tells `listener` of every live memory of `ns` now, then of every change to them. */
  subscribe(ns: string, listener: StoreListener): void {
    const space = this.space(ns);
    space.listeners.push(listener);
    for (const record of space.memories.values()) listener.upsert(record, undefined);
  }

  watch(ns: string, watcher: ChangeWatcher): () => void {
    const { watchers } = this.space(ns);
    // A watcher added twice is told once and stopped once.
    const own = { changed: (id: string) => watcher.changed(id), reset: () => watcher.reset() };
    watchers.add(own);
    return () => watchers.delete(own);
  }

  relationsIn(ns: string, memoryId: string): RelationRecord[] {
    const space = this.space(ns);
    const ids = space.relationsByMemory.get(memoryId);
    if (!ids) return [];
    const out: RelationRecord[] = [];
    for (const id of ids) {
      const r = space.relations.get(id);
      if (r) out.push(r);
    }
    return out;
  }

  /**
   * Puts `record`, whose line is at `ref` in the log when the engine reads them back. Its
   * listeners are told with the record it replaces, read again if need be.
   */
  putMemory(ns: string, record: MemoryRecord, ref?: LineRef): void {
    const space = this.space(ns);
    if (!space.memories.has(record.id)) {
      const before = this.memorySpace(record.id);
      if (before) this.dropMemory(record.id);
    }
    const previous = space.listeners.length > 0 ? space.memories.get(record.id) : undefined;
    this.firstIn(space);
    space.memories.set(record, ref);
    this.owners?.set(record.id, space);
    for (const l of space.listeners) l.upsert(record, previous, ref);
    for (const w of space.watchers) w.changed(record.id);
  }

  /**
   * Puts a memory no namespace holds, from what was parsed of its line elsewhere (a load's
   * read-ahead): its listeners take it from that too (`StoreListener.upsertPrepared`).
   */
  putPrepared(ns: string, record: PreparedRecord, ref: LineRef): void {
    const space = this.space(ns);
    this.firstIn(space);
    space.memories.addRef(record.id, ref.offset, ref.length, record.status);
    this.owners?.set(record.id, space);
    for (const l of space.listeners) l.upsertPrepared?.(record, ref);
    for (const w of space.watchers) w.changed(record.id);
  }

  dropMemory(id: string): void {
    const space = this.memorySpace(id);
    if (!space) return;
    const previous = space.listeners.length > 0 ? space.memories.get(id) : undefined;
    space.memories.delete(id);
    this.owners?.delete(id);
    if (previous) for (const l of space.listeners) l.remove(previous);
    for (const w of space.watchers) w.changed(id);
  }

  putRelation(ns: string, relation: RelationRecord): void {
    const space = this.space(ns);
    const before = this.relationSpace.get(relation.id);
    if (before) this.dropRelation(relation.id);
    space.relations.set(relation.id, relation);
    this.relationSpace.set(relation.id, space);
    for (const end of [relation.from_memory_id, relation.to_memory_id]) {
      let set = space.relationsByMemory.get(end);
      if (!set) {
        set = new Set();
        space.relationsByMemory.set(end, set);
      }
      set.add(relation.id);
    }
  }

  dropRelation(id: string): void {
    const space = this.relationSpace.get(id);
    const previous = space?.relations.get(id);
    if (!space || !previous) return;
    space.relations.delete(id);
    this.relationSpace.delete(id);
    space.relationsByMemory.get(previous.from_memory_id)?.delete(previous.id);
    space.relationsByMemory.get(previous.to_memory_id)?.delete(previous.id);
  }

  /**
   * Lets go of namespace `ns`'s records (an engine that loads namespaces on demand no longer holds
   * it): each listener is told of each memory gone, the watchers of nothing (nothing changed).
   */
  releaseSpace(ns: string): void {
    const space = this.byName.get(ns);
    if (!space) return;
    if (space.listeners.length > 0) {
      for (const record of space.memories.values()) {
        for (const l of space.listeners) l.remove(record);
      }
    }
    if (this.owners) for (const id of space.memories.keys()) this.owners.delete(id);
    space.memories.clear();
    for (const id of space.relations.keys()) this.relationSpace.delete(id);
    space.relations.clear();
    space.relationsByMemory.clear();
  }

  /** Forgets every memory, telling each listener to expect them all again. */
  clearMemories(): void {
    this.owners?.clear();
    for (const space of this.byName.values()) {
      space.memories.clear();
      for (const l of space.listeners) l.reset();
      for (const w of space.watchers) w.reset();
    }
  }

  clearRelations(): void {
    this.relationSpace.clear();
    for (const space of this.byName.values()) {
      space.relations.clear();
      space.relationsByMemory.clear();
    }
  }
}
