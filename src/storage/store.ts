import fs from 'node:fs';
import path from 'node:path';
import { setImmediate } from 'node:timers/promises';
import type { Logger } from 'pino';
import { type BadLine, DIR_MODE, JsonlFile, readAllLines, syncDir } from './jsonl-file.js';
import { DirLock, LockTimeoutError } from './lock.js';
import {
  isTombstone,
  type MemoryRecord,
  RecordError,
  type RelationRecord,
  storedShape,
  toMemoryRecord,
  toRelationRecord,
} from './records.js';

export class StoreError extends Error {
  override name = 'StoreError';
}

/** Told of every change to the live memories, whichever process made it. */
export interface StoreListener {
  upsert(record: MemoryRecord, previous: MemoryRecord | undefined): void;
  remove(previous: MemoryRecord): void;
  /** Everything was reloaded (another process compacted): forget all and expect upserts. */
  reset(): void;
}

/** What one transaction writes. Forgotten records reach forgotten.jsonl before anything else. */
export interface Mutation<T> {
  result: T;
  memories?: MemoryRecord[];
  deletes?: string[];
  forgotten?: MemoryRecord[];
  relations?: RelationRecord[];
  relationDeletes?: string[];
}

export interface StoreOptions {
  dataDir: string;
  logger: Logger;
  clock: () => number;
  lockStaleMs?: number;
  lockWaitMs?: number;
  /** Compaction waits until a file has at least this many lines. */
  compactMinLines?: number;
}

const LOAD_SLICE_BYTES = 1 << 20;

export const FILES = {
  memories: 'memories.jsonl',
  relations: 'relations.jsonl',
  forgotten: 'forgotten.jsonl',
  quarantine: 'quarantine.jsonl',
  lock: '.lock',
} as const;

type Kind = 'memories' | 'relations';

/**
 * The JSONL store: memories.jsonl and relations.jsonl as append-only logs (last line for an id
 * wins, `{"id","_deleted":true}` deletes), the live records in memory, one writer lock for the
 * folder. Every answer starts with `refresh()` so appends by another process are seen.
 */
export class MemoryStore {
  readonly dataDir: string;
  private readonly memoryMap = new Map<string, MemoryRecord>();
  private readonly relationMap = new Map<string, RelationRecord>();
  private readonly relationsByMemory = new Map<string, Set<string>>();
  private readonly files: Record<Kind, JsonlFile>;
  private readonly quarantineFile: JsonlFile;
  private readonly lock: DirLock;
  private readonly listeners: StoreListener[] = [];
  private readonly pendingCorrupt: { kind: Kind; line: BadLine; reason: string }[] = [];
  private readonly logger: Logger;
  private readonly clock: () => number;
  private readonly compactMinLines: number;
  private closed = false;

  private constructor(options: StoreOptions) {
    this.dataDir = options.dataDir;
    this.logger = options.logger;
    this.clock = options.clock;
    this.compactMinLines = options.compactMinLines ?? 200;
    this.files = {
      memories: new JsonlFile(path.join(this.dataDir, FILES.memories)),
      relations: new JsonlFile(path.join(this.dataDir, FILES.relations)),
    };
    this.quarantineFile = new JsonlFile(path.join(this.dataDir, FILES.quarantine));
    this.lock = new DirLock(this.dataDir, path.join(this.dataDir, FILES.lock), {
      staleMs: options.lockStaleMs,
      waitMs: options.lockWaitMs,
    });
  }

  /**
   * Opens (creating if needed) a data dir and resolves once it is loaded: a torn tail repaired,
   * bad lines quarantined.
   */
  static async open(options: StoreOptions, listeners: StoreListener[] = []): Promise<MemoryStore> {
    const store = MemoryStore.start(options, listeners);
    await store.ready;
    return store;
  }

  /**
   * Returns at once and loads in the background, a few megabytes per turn of the event loop,
   * so a server can answer its handshake while a large store loads. Await `ready` before use;
   * a folder that cannot be used throws here, at once.
   */
  static start(options: StoreOptions, listeners: StoreListener[] = []): MemoryStore {
    prepareDataDir(options.dataDir);
    const store = new MemoryStore(options);
    store.listeners.push(...listeners);
    store.ready = store.load();
    // Whoever awaits `ready` sees a failure; an early one must not crash the process first.
    store.ready.catch(() => {});
    return store;
  }

  /** Settles when the initial load is done. */
  ready: Promise<void> = Promise.resolve();

  private async load(): Promise<void> {
    // Not a byte before the caller has wired its server: the handshake must not wait.
    await setImmediate();
    try {
      while (this.catchUp(false, LOAD_SLICE_BYTES)) await setImmediate();
      await this.lock.run(() => this.catchUp(true));
    } catch (error) {
      if (error instanceof LockTimeoutError || error instanceof StoreError) throw error;
      throw new StoreError(
        `cannot load the data dir ${this.dataDir}: ${(error as Error).message}. ` +
          'Fix the permissions of its files, or choose another folder with --data-dir or MNEMO_DATA_DIR',
      );
    }
  }

  subscribe(listener: StoreListener): void {
    this.listeners.push(listener);
    for (const record of this.memoryMap.values()) listener.upsert(record, undefined);
  }

  get memories(): ReadonlyMap<string, MemoryRecord> {
    return this.memoryMap;
  }

  get relations(): ReadonlyMap<string, RelationRecord> {
    return this.relationMap;
  }

  relationsOf(memoryId: string): RelationRecord[] {
    const ids = this.relationsByMemory.get(memoryId);
    if (!ids) return [];
    const out: RelationRecord[] = [];
    for (const id of ids) {
      const r = this.relationMap.get(id);
      if (r) out.push(r);
    }
    return out;
  }

  /** Picks up what other processes appended. Cheap when nothing changed (one stat a file). */
  refresh(): void {
    this.assertOpen();
    this.catchUp(false);
  }

  /**
   * Runs `plan` under the writer lock, after catching up with every other process, and makes
   * what it returns durable (fdatasync) before applying it here and resolving.
   */
  async transact<T>(plan: () => Mutation<T>): Promise<T> {
    this.assertOpen();
    await this.ready;
    return this.lock.run(() => {
      // Closed while this call waited: its view may be partial; write nothing.
      this.assertOpen();
      this.catchUp(true);
      const m = plan();
      const forgotten = m.forgotten ?? [];
      if (forgotten.length > 0) {
        const at = this.clock();
        const file = new JsonlFile(path.join(this.dataDir, FILES.forgotten));
        try {
          file.append(forgotten.map((r) => storedShape({ ...r, forgotten_at: at })));
        } finally {
          file.close();
        }
      }
      const memoryLines: unknown[] = (m.memories ?? []).map(storedShape);
      for (const id of m.deletes ?? []) memoryLines.push({ id, _deleted: true });
      const relationLines: unknown[] = (m.relations ?? []).map(storedShape);
      for (const id of m.relationDeletes ?? []) relationLines.push({ id, _deleted: true });
      this.files.memories.append(memoryLines);
      this.files.relations.append(relationLines);
      for (const line of memoryLines) this.applyMemory(line);
      for (const line of relationLines) this.applyRelation(line);
      this.compactIfStale();
      return m.result;
    });
  }

  /** The last copy of a record that gc or delete moved to forgotten.jsonl. */
  findForgotten(id: string): MemoryRecord | undefined {
    const file = path.join(this.dataDir, FILES.forgotten);
    let found: unknown;
    for (const line of readAllLines(file)) {
      if ((line as { id?: unknown }).id === id) found = line;
    }
    if (found === undefined) return undefined;
    const { forgotten_at: _at, ...record } = found as Record<string, unknown>;
    return toMemoryRecord(record);
  }

  /** Bytes on disk of the store's files. */
  sizes(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const name of Object.values(FILES)) {
      if (name === FILES.lock) continue;
      const stat = fs.statSync(path.join(this.dataDir, name), { throwIfNoEntry: false });
      out[name] = stat?.size ?? 0;
    }
    return out;
  }

  /** Rewrites both logs from their live records, if no other process holds the lock. */
  compactNow(): boolean {
    this.assertOpen();
    return (
      this.lock.tryRun(() => {
        this.catchUp(true);
        this.rewrite('memories');
        this.rewrite('relations');
        return true;
      }) ?? false
    );
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.files.memories.close();
    this.files.relations.close();
    this.quarantineFile.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('the memory store is closed');
  }

  /** Reads what was appended since the last call; true when `maxBytes` left some unread. */
  private catchUp(locked: boolean, maxBytes?: number): boolean {
    this.assertOpen();
    let more = false;
    for (const kind of ['memories', 'relations'] as const) {
      const file = this.files[kind];
      const read = file.readNew({
        maxBytes,
        visit: (value) => this.applyLine(kind, value),
        onReset: () => {
          this.resetKind(kind);
          // Whoever replaced the file read it under the lock and quarantined its bad lines first.
          for (let i = this.pendingCorrupt.length - 1; i >= 0; i--) {
            if (this.pendingCorrupt[i]?.kind === kind) this.pendingCorrupt.splice(i, 1);
          }
        },
      });
      more ||= read.more;
      for (const line of read.corrupt) {
        this.pendingCorrupt.push({ kind, line, reason: 'unparsable JSON' });
      }
      if (locked && read.tail) {
        if (isJson(read.tail.text)) {
          // A whole record without its newline (an editor dropped it): keep it.
          file.terminateTail();
          for (const value of file.readNew().values) this.applyLine(kind, value);
        } else {
          // Only a writer holding the lock writes, so an unfinished line seen under the lock
          // was cut short by a crash and never acknowledged. Keep a copy, then cut it off.
          this.quarantine(kind, read.tail, 'torn last line (a write cut short by a crash)');
          file.truncateTail();
        }
      }
    }
    if (locked && this.pendingCorrupt.length > 0) {
      const kinds = new Set<Kind>();
      for (const { kind, line, reason } of this.pendingCorrupt.splice(0)) {
        this.quarantine(kind, line, reason);
        kinds.add(kind);
      }
      // Rewrite without the bad lines so the next start does not quarantine them again.
      for (const kind of kinds) this.rewrite(kind);
    }
    if (locked) this.compactIfStale();
    return more;
  }

  private applyLine(kind: Kind, value: unknown): void {
    try {
      if (kind === 'memories') this.applyMemory(value);
      else this.applyRelation(value);
    } catch (error) {
      if (!(error instanceof RecordError)) throw error;
      this.pendingCorrupt.push({
        kind,
        line: { offset: -1, text: JSON.stringify(value) },
        reason: `invalid record: ${error.message}`,
      });
    }
  }

  private quarantine(kind: Kind, line: BadLine, reason: string): void {
    this.logger.warn(
      { file: this.files[kind].name, offset: line.offset, reason },
      `kept a bad line of ${this.files[kind].name} in ${FILES.quarantine}`,
    );
    this.quarantineFile.append([
      {
        file: this.files[kind].name,
        offset: line.offset,
        reason,
        at: this.clock(),
        line: line.text,
      },
    ]);
  }

  private compactIfStale(): void {
    for (const kind of ['memories', 'relations'] as const) {
      const live = kind === 'memories' ? this.memoryMap.size : this.relationMap.size;
      const lines = this.files[kind].lineCount;
      if (lines >= this.compactMinLines && lines - live > live) this.rewrite(kind);
    }
  }

  private rewrite(kind: Kind): void {
    const values = kind === 'memories' ? this.memoryMap.values() : this.relationMap.values();
    this.files[kind].rewrite(storedLines(values));
    this.logger.debug({ file: this.files[kind].name }, 'compacted');
  }

  private resetKind(kind: Kind): void {
    if (kind === 'memories') {
      this.memoryMap.clear();
      for (const l of this.listeners) l.reset();
    } else {
      this.relationMap.clear();
      this.relationsByMemory.clear();
    }
  }

  private applyMemory(value: unknown): void {
    if (isTombstone(value)) {
      const previous = this.memoryMap.get(value.id);
      if (previous) {
        this.memoryMap.delete(value.id);
        for (const l of this.listeners) l.remove(previous);
      }
      return;
    }
    const record = toMemoryRecord(value);
    const previous = this.memoryMap.get(record.id);
    this.memoryMap.set(record.id, record);
    for (const l of this.listeners) l.upsert(record, previous);
  }

  private applyRelation(value: unknown): void {
    if (isTombstone(value)) {
      const previous = this.relationMap.get(value.id);
      if (previous) {
        this.relationMap.delete(value.id);
        this.relationsByMemory.get(previous.from_memory_id)?.delete(previous.id);
        this.relationsByMemory.get(previous.to_memory_id)?.delete(previous.id);
      }
      return;
    }
    const relation = toRelationRecord(value);
    this.relationMap.set(relation.id, relation);
    for (const end of [relation.from_memory_id, relation.to_memory_id]) {
      let set = this.relationsByMemory.get(end);
      if (!set) {
        set = new Set();
        this.relationsByMemory.set(end, set);
      }
      set.add(relation.id);
    }
  }
}

function* storedLines(records: Iterable<object>): Iterable<unknown> {
  for (const record of records) yield storedShape(record);
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function prepareDataDir(dir: string): void {
  try {
    const made = fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
    // Every folder made here is durable once its parent is synced.
    for (let d = dir; made !== undefined && d.startsWith(made); d = path.dirname(d)) {
      syncDir(path.dirname(d));
    }
    fs.accessSync(dir, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    const why =
      code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'ENOTDIR' || code === 'EEXIST'
          ? 'a file is in the way of the folder'
          : (error as Error).message;
    throw new StoreError(
      `cannot use the data dir ${dir}: ${why} (${code}). Fix its permissions, or choose another folder with --data-dir or MNEMO_DATA_DIR`,
    );
  }
}
