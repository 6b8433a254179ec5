// The JSONL engine: a data dir's memories.jsonl, relations.jsonl and forgotten.jsonl.
import fs from 'node:fs';
import path from 'node:path';
import { setImmediate } from 'node:timers/promises';
import type { Logger } from 'pino';
import { deferred } from '../../platform/deferred.js';
import { DirLock, LockLostError, LockTimeoutError } from '../../platform/dir-lock.js';
import { jsonSyntaxPosition } from '../../platform/errors.js';
import { DEFAULT_NAMESPACE, type Mutation, type StoreListener } from '../engine.js';
import { StoreError } from '../errors.js';
import { NamespacedEngine, withNamespace } from '../namespace-view.js';
import { type MemoryRecord, RecordError, storedShape, toMemoryRecord } from '../records.js';
import { SIDECAR_FILE } from '../sidecar.js';
import { prepareDataDir, removeLeftoverTemps } from './data-dir.js';
import { ForgottenIndex } from './forgotten.js';
import { TransactionJournal } from './journal.js';
import { JsonlFile } from './jsonl-file.js';
import { LogCompaction, type LogKind } from './log-compaction.js';
import { LogReader } from './log-reader.js';
import { LogSidecar } from './log-sidecar.js';
import { startReadAhead } from './read-ahead.js';

export interface StoreOptions {
  dataDir: string;
  logger: Logger;
  clock: () => number;
  lockStaleMs?: number;
  /** How long a write waits for another process's lock, and a call for a load it holds up. */
  lockWaitMs?: number;
  /**
   * How long the writer lock is kept after a write for the next one (ms), unless another process
   * asks for it first (DirLock): saves in a row take it once. 0 lets it go after each write.
   */
  lockKeepMs?: number;
  /** Compaction waits until a file has at least this many lines. */
  compactMinLines?: number;
  /**
   * The sidecar (memories.idx) is written once the log has this many lines it does not cover:
   * below, reading the log is as fast. 0 writes it at every load and close.
   */
  sidecarMinLines?: number;
  /**
   * A load from the log alone writes a sidecar of what it has read so far after this long, and
   * then every so often (LogSidecar.checkpoint): a process killed mid-way leaves most of the work.
   */
  sidecarCheckpointMs?: number;
  /**
   * A load with at least this many bytes of the log to read lets the listeners work ahead on
   * another thread (`StoreListener.readAhead`): below, a second thread costs more than it saves.
   */
  readAheadMinBytes?: number;
}

const LOAD_SLICE_BYTES = 1 << 20;
const READ_AHEAD_MIN_BYTES = 16 << 20;
/** Past the gap between an agent's saves: one that asks gets it at once (DirLock watches). */
const LOCK_KEEP_MS = 10_000;

export const FILES = {
  memories: 'memories.jsonl',
  relations: 'relations.jsonl',
  forgotten: 'forgotten.jsonl',
  quarantine: 'quarantine.jsonl',
  lock: '.lock',
} as const;

type Kind = LogKind;

const TORN = 'torn last line (a write cut short by a crash)';

/**
 * The JSONL engine: memories.jsonl and relations.jsonl as append-only logs (last line for an id
 * wins, `{"id","_deleted":true}` deletes), the live records in memory, one writer lock for the
 * folder. Every answer starts with `refresh()` so appends by another process are seen.
 *
 * Every namespace shares the logs: a record of the default namespace is written as mnemex and
 * cortexgraph write it, one of another carries `"namespace"`. Ids are unique across them all (a
 * tombstone names an id only). The store is the view of the default namespace; `namespace()`
 * answers the others'.
 */
export class JsonlStore extends NamespacedEngine {
  readonly dataDir: string;
  private readonly files: Record<Kind, JsonlFile>;
  private readonly quarantineFile: JsonlFile;
  private readonly forgotten: ForgottenIndex;
  private readonly journal: TransactionJournal;
  private readonly lock: DirLock;
  private readonly logger: Logger;
  private readonly clock: () => number;
  private readonly compaction: LogCompaction;
  private readonly sidecar: LogSidecar;
  private readonly reader: LogReader;
  private readonly readAheadMinBytes: number;
  private closed = false;
  /** Aborted by close(): a load waiting for the lock stops at once. */
  private readonly closing = new AbortController();
  /** What the calls waiting for the load now are told: loaded, busy, or broken. */
  private round = deferred();

  private constructor(options: StoreOptions) {
    super();
    this.dataDir = options.dataDir;
    this.logger = options.logger;
    this.clock = options.clock;
    this.readAheadMinBytes = options.readAheadMinBytes ?? READ_AHEAD_MIN_BYTES;
    // A torn tail is kept in quarantine before it is cut off, in every log but the quarantine.
    this.files = {
      memories: this.logFile(FILES.memories),
      relations: this.logFile(FILES.relations),
    };
    this.sidecar = new LogSidecar(
      path.join(this.dataDir, SIDECAR_FILE),
      this.files.memories,
      this.live,
      this.logger,
      options.sidecarMinLines ?? 1000,
      options.sidecarCheckpointMs ?? 3000,
    );
    this.quarantineFile = new JsonlFile(path.join(this.dataDir, FILES.quarantine));
    this.forgotten = new ForgottenIndex(path.join(this.dataDir, FILES.forgotten), this.logger);
    this.journal = new TransactionJournal(this.dataDir);
    this.lock = new DirLock(this.dataDir, path.join(this.dataDir, FILES.lock), {
      staleMs: options.lockStaleMs,
      waitMs: options.lockWaitMs,
      keepMs: options.lockKeepMs ?? LOCK_KEEP_MS,
    });
    this.compaction = new LogCompaction(
      this.files,
      this.live,
      () => this.lock.assertHeld(),
      this.logger,
      options.compactMinLines ?? 200,
    );
    this.reader = new LogReader({
      files: this.files,
      live: this.live,
      journal: this.journal,
      lock: this.lock,
      compaction: this.compaction,
      quarantineFile: this.quarantineFile,
      logger: this.logger,
      clock: this.clock,
      assertOpen: () => this.assertOpen(),
    });
  }

  /**
   * Opens (creating if needed) a data dir and resolves once it is loaded: a torn tail repaired,
   * bad lines quarantined.
   */
  static async open(options: StoreOptions, listeners: StoreListener[] = []): Promise<JsonlStore> {
    const store = JsonlStore.start(options, listeners);
    try {
      await store.ready;
    } catch (error) {
      store.close();
      throw error;
    }
    return store;
  }

  /**
   * Returns at once and loads in the background, a few megabytes per turn of the event loop,
   * so a server can answer its handshake while a large store loads. Await `ready` before use;
   * a folder that cannot be used throws here, at once.
   */
  static start(options: StoreOptions, listeners: StoreListener[] = []): JsonlStore {
    prepareDataDir(options.dataDir);
    const store = new JsonlStore(options);
    store.live.space(DEFAULT_NAMESPACE).listeners.push(...listeners);
    store.loaded = store.load();
    // Whoever awaits sees a failure; an early one must not crash the process first.
    store.loaded.catch(() => {});
    store.loaded.then(
      () => store.round.resolve(),
      (error: Error) => store.round.reject(error),
    );
    return store;
  }

  /**
   * What every call awaits before using the store: resolves once the initial load is done.
   * While another process holds the lock the load waits for it, and the calls waiting then are
   * rejected after `lockWaitMs` with a LockTimeoutError saying the folder is busy: a later call
   * waits again, and works once the lock is free. A folder that cannot be read rejects for good.
   */
  get ready(): Promise<void> {
    return this.round.promise;
  }

  /**
   * Settles when the initial load is done, however long another process holds the lock;
   * rejects only when the folder cannot be read or the store was closed first.
   */
  loaded: Promise<void> = Promise.resolve();

  private async load(): Promise<void> {
    // Not a byte before the caller has wired its server and the loop has polled once for what
    // its client sent (a second turn: a start whose last step ran in the poll phase went on to
    // the first immediate before reading stdin, and the handshake waited for the whole restore).
    await setImmediate();
    await setImmediate();
    try {
      await this.sidecar.restore();
      const ahead = startReadAhead(this.files.memories, this.live, this.readAheadMinBytes);
      // How far the load goes (the log as it is now), which the checkpoints are weighed against.
      const target = fs.statSync(this.files.memories.path, { throwIfNoEntry: false })?.size ?? 0;
      this.reader.takeLine = ahead?.take;
      this.reader.knownLine = ahead?.lineAt;
      try {
        for (;;) {
          // The next slice is read once the work ahead is past it (a worker a little behind
          // would leave the slice's lines to this thread).
          if (ahead) await ahead.reached(this.files.memories.size() + 2 * LOAD_SLICE_BYTES);
          if (!this.reader.catchUp(false, LOAD_SLICE_BYTES)) break;
          await setImmediate();
          // Never over lines not taken in yet (quarantined under the lock after the load): the
          // next start, resuming past them, would not see them.
          if (!this.reader.hasPendingCorrupt) {
            await this.sidecar.checkpoint(Math.max(0, target - this.files.memories.size()));
          }
        }
      } finally {
        this.reader.takeLine = undefined;
        this.reader.knownLine = undefined;
        ahead?.stop();
      }
      for (;;) {
        try {
          await this.lock.run(() => {
            removeLeftoverTemps(this.dataDir, this.logger);
            this.reader.catchUp(true);
          }, this.closing.signal);
          // After the calls that waited for the load have their answer, and written in the
          // background: a client that stops the process soon after (a few seconds, the MCP
          // SDK's) still finds calls answered meanwhile, and the next start does not pay again.
          this.loadSaved = new Promise((resolve) => {
            this.loadSave = setTimeout(() => {
              if (!this.closed) this.sidecar.saveIfBehind(0.1);
              resolve();
              // Then what the listeners do with the log behind the calls (rank-facts-fill.ts).
              void this.sidecar.idle().then(() => this.afterLoad());
            }, 0).unref();
          });
          return;
        } catch (error) {
          if (error instanceof LockLostError) {
            // Taken over in the middle (nothing was written): read again under the next lock.
            await setImmediate();
            continue;
          }
          if (!(error instanceof LockTimeoutError)) throw error;
          // Busy, not broken: the calls waiting now are told so, and the load waits on.
          this.logger.warn(
            { dataDir: this.dataDir, holder: error.holder?.pid },
            'the data dir is locked by another process: the load waits for it',
          );
          const ended = this.round;
          this.round = deferred();
          ended.reject(
            new LockTimeoutError(
              `${error.message}. The memories load as soon as the lock is free`,
              error.holder,
            ),
          );
        }
      }
    } catch (error) {
      if (error instanceof LockTimeoutError || error instanceof StoreError) throw error;
      throw new StoreError(
        `cannot load the data dir ${this.dataDir}: ${(error as Error).message}. ` +
          'Fix the permissions of its files, or choose another folder with --data-dir or MNEMO_DATA_DIR',
      );
    }
  }

  /** Picks up what other processes appended. Cheap when nothing changed (one stat a file). */
  async refresh(): Promise<void> {
    this.assertOpen();
    this.reader.catchUp(false);
  }

  /**
   * Runs `plan` under the writer lock, after catching up with every other process (nothing to
   * catch up with when the lock was kept since this process's last write), and makes
   * what it returns durable (fdatasync) before applying it here and resolving. All of it or none
   * of it, across a crash too; a write that fails is not on disk (or the error says it may be).
   * Compaction afterwards is not part of it: a failure there is logged. Every record of it
   * belongs to namespace `ns`.
   */
  async transactIn<T>(ns: string, plan: () => Mutation<T>): Promise<T> {
    this.assertOpen();
    await this.ready;
    return this.lock.run((kept) => {
      // Closed while this call waited: its view may be partial; write nothing.
      this.assertOpen();
      // Kept since the last run (which caught up, or failed and let the lock go): nobody else
      // wrote since, and every write of this process was applied as it was made.
      if (!kept) this.reader.catchUp(true);
      const m = plan();
      // Planned from what this process read under the lock: written only if it still holds it.
      this.lock.assertHeld();
      const stamp = (line: unknown) => withNamespace(storedShape(line), ns);
      this.owned(ns, m);
      const forgotten = m.forgotten ?? [];
      if (forgotten.length > 0) {
        const at = this.clock();
        const file = this.logFile(FILES.forgotten);
        try {
          file.append(forgotten.map((r) => stamp({ ...r, forgotten_at: at })));
        } finally {
          file.close();
        }
      }
      // A tombstone names an id only: one of another namespace is never deleted from here.
      const memoryLines: unknown[] = (m.memories ?? []).map(stamp);
      for (const id of m.deletes ?? []) {
        if (this.live.namespaceOfMemory(id) === ns) memoryLines.push({ id, _deleted: true });
      }
      const relationLines: unknown[] = (m.relations ?? []).map(stamp);
      for (const id of m.relationDeletes ?? []) {
        if (this.live.namespaceOfRelation(id) === ns) relationLines.push({ id, _deleted: true });
      }
      const starts = this.journal.appendAll([
        { file: this.files.memories, lines: memoryLines },
        { file: this.files.relations, lines: relationLines },
      ]);
      let offset = starts.get(this.files.memories) ?? 0;
      for (const line of memoryLines) {
        const length = Buffer.byteLength(JSON.stringify(line));
        this.reader.applyMemory(line, { offset, length });
        offset += length + 1;
      }
      for (const line of relationLines) this.reader.applyRelation(line);
      this.compaction.ifStale();
      return m.result;
    });
  }

  /**
   * The last copy of memory `id` of namespace `ns` that gc or delete moved to forgotten.jsonl.
   * Lines it cannot read are reported; one that holds the record after a fragment (an append
   * glued onto a torn line by an older mnemo) still gives it.
   */
  async findForgottenIn(ns: string, id: string): Promise<MemoryRecord | undefined> {
    return this.forgotten.find(ns, id);
  }

  async forgottenIn(ns: string): Promise<MemoryRecord[]> {
    return this.forgotten.recordsOf(ns, (id) => this.live.namespaceOfMemory(id) === ns);
  }

  async forgottenOwners(): Promise<ReadonlyMap<string, string>> {
    return this.forgotten.owners();
  }

  /**
   * For the views: the bytes namespace `ns`'s live records take in the logs. Never the files'
   * sizes, even while `ns` is the only namespace live: they hold other namespaces' dead lines and
   * forgotten copies, so they would show one namespace another's deletions.
   */
  async sizesIn(ns: string): Promise<Record<string, number>> {
    const space = this.live.space(ns);
    const measure = (record: object) =>
      Buffer.byteLength(JSON.stringify(withNamespace(storedShape(record), ns))) + 1;
    let relations = 0;
    for (const r of space.relations.values()) relations += measure(r);
    return {
      [FILES.memories]: space.memories.lineBytes(measure),
      [FILES.relations]: relations,
    };
  }

  /** Rewrites both logs from their live records, if no other process holds the lock. */
  compactNow(): boolean {
    this.assertOpen();
    return (
      this.lock.tryRun((kept) => {
        if (!kept) this.reader.catchUp(true);
        this.compaction.rewrite('memories');
        this.compaction.rewrite('relations');
        return true;
      }) ?? false
    );
  }

  /**
   * Settles once the sidecar written after the load (when it was behind the log) is on disk, or
   * its write failed (logged): what a test awaits instead of close().
   */
  async sidecarWritten(): Promise<void> {
    await this.loaded.catch(() => {});
    // Whoever waits for it keeps the process alive until then (a short command does not).
    this.loadSave?.ref();
    await this.loadSaved;
    await this.sidecar.idle();
  }

  private loadSaved: Promise<void> = Promise.resolve();
  private loadSave: NodeJS.Timeout | undefined;
  /** How to stop the work the listeners began after the load (`StoreListener.loaded`). */
  private afterLoadStops: (() => void)[] = [];

  /** Tells the listeners the log was read, with what they may read again of it. */
  private afterLoad(): void {
    const log = this.files.memories;
    if (this.closed || log.inodeRead === -1) return;
    const span = { path: log.path, ino: log.inodeRead, from: 0, to: log.size() };
    const saveLearnt = () => {
      if (!this.closed) this.sidecar.saveLearnt();
    };
    for (const listener of this.live.space(DEFAULT_NAMESPACE).listeners) {
      const stop = listener.loaded?.(span, saveLearnt);
      if (stop) this.afterLoadStops.push(stop);
    }
  }

  /**
   * Closes the logs at once; settles when the sidecar is on disk (a write under way, or the one
   * this starts when the log is past it). A stop bounds how long it waits (src/cli/signals.ts):
   * a process ended before leaves the sidecar before, and a temp file the next start removes.
   */
  close(): Promise<void> {
    if (this.closed) return this.sidecar.idle();
    this.sidecar.stop();
    this.closed = true;
    for (const stop of this.afterLoadStops.splice(0)) stop();
    this.closing.abort(new StoreError('the memory store is closed'));
    try {
      this.lock.release();
    } catch (error) {
      // Left behind, it names this process: taken over at once once it has ended.
      this.logger.warn(
        { lock: this.lock.lockPath, err: (error as Error).message },
        'could not remove the lock of the data dir',
      );
    }
    this.files.memories.close();
    this.files.relations.close();
    this.quarantineFile.close();
    this.forgotten.close();
    return this.sidecar.idle();
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('the memory store is closed');
  }

  private logFile(name: string): JsonlFile {
    return new JsonlFile(path.join(this.dataDir, name), {
      keepTorn: (line) => this.reader.quarantine(name, line, TORN),
    });
  }

  /**
   * A memory's line, read again from memories.jsonl where it was found. A line changed on disk
   * since (a hand edit, a sync tool, a damaged disk) fails with where it is, never with what
   * it says: V8's message quotes the text around a bad token, a memory's words.
   */
  protected override readMemoryLine(offset: number, length: number): MemoryRecord {
    const text = this.files.memories.readAt(offset, length).toString('utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      const position = jsonSyntaxPosition(error);
      const at =
        position === undefined
          ? ''
          : ` (it breaks at byte ${offset + Buffer.byteLength(text.slice(0, position))})`;
      throw this.changedLine(offset, length, `is not valid JSON${at}`);
    }
    try {
      return toMemoryRecord(value);
    } catch (error) {
      if (!(error instanceof RecordError)) throw error;
      throw this.changedLine(offset, length, `is not a memory record (${error.message})`);
    }
  }

  private changedLine(offset: number, length: number, what: string): StoreError {
    return new StoreError(
      `a memory's line in ${this.files.memories.path} (at byte ${offset}, ${length} bytes) ${what}: ` +
        'the file was changed since mnemo read it. Fix that line (one JSON object), or delete ' +
        `${SIDECAR_FILE} beside it and start mnemo again: the start reads the log whole and ` +
        `moves the bad line to ${FILES.quarantine}`,
    );
  }
}
