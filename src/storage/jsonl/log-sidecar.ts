// The sidecar of memories.jsonl (memories.idx, the format in sidecar.ts): what a start reads
// instead of every line, and when it is written again. The store owns one.
import fs from 'node:fs';
import { setImmediate } from 'node:timers/promises';
import type { Logger } from 'pino';
import { withRoom } from '../../platform/room.js';
import { DEFAULT_NAMESPACE, type KeyOf, type PersistedPart } from '../engine.js';
import type { LiveRecords } from '../live-records.js';
import type { MemoryTable } from '../memory-table.js';
import {
  type LogPoint,
  logTail,
  readSidecar,
  SIDECAR_FILE,
  type SidecarContent,
  SidecarMismatch,
  StringPacker,
  unpackStrings,
  writeSidecarAsync,
} from '../sidecar.js';
import { CheckpointPace } from './checkpoint-pace.js';
import type { JsonlFile } from './jsonl-file.js';
import { bucketsByKey, bucketsBySlot, checkRefs, picksOf, SLOT_TABLE } from './sidecar-refs.js';

const LOG = 'memories.jsonl';

/**
 * The sidecar of one data dir's memories.jsonl: its own columns (each memory's id, namespace,
 * status and where its line is) and the parts of the default namespace's listeners that keep
 * one (the words index).
 */
export class LogSidecar {
  /**
   * The log (inode, lines) the sidecar on disk was made from, once known, and whether it was a
   * checkpoint of a load (then the load's end writes it again, however few lines it lacks).
   */
  private at: { ino: number; lines: number; learnt?: number; checkpoint?: boolean } | undefined;
  /** A write asked for by `saveLearnt`, not yet made. */
  private learntDue = false;

  constructor(
    private readonly file: string,
    private readonly log: JsonlFile,
    private readonly live: LiveRecords,
    private readonly logger: Logger,
    /** Lines the log may have past the sidecar before it is written again. */
    private readonly minLines: number,
    /** How long a load runs before its first checkpoint, and at least between two. */
    checkpointMs: number,
  ) {
    this.pace = new CheckpointPace(checkpointMs);
  }

  /** When a long load writes a checkpoint. */
  private readonly pace: CheckpointPace;

  /** What the sidecar depends on beyond the log: this layout and the listeners' own. */
  private shape(): Record<string, unknown> {
    const listeners = this.live.space(DEFAULT_NAMESPACE).listeners;
    return { store: 2, listeners: listeners.map((l) => l.persistence?.shape ?? null) };
  }

  /**
   * Starts from the sidecar when it matches the log (then only the lines after it are read):
   * the memories by where their lines are, and the default namespace's listeners from their
   * parts. Any mismatch is one log line, and the log is read whole as without one.
   */
  async restore(): Promise<void> {
    const started = performance.now();
    const memories = this.log;
    let content: Awaited<ReturnType<typeof readSidecar>>;
    try {
      content = await readSidecar(this.file, this.shape(), (name, count) =>
        this.grows(name) ? withRoom(count) : count,
      );
      if (!content) {
        if (fs.existsSync(this.log.path)) {
          this.logger.info(
            { file: SIDECAR_FILE },
            `no ${SIDECAR_FILE}: reading ${LOG} whole, and writing it after`,
          );
        }
        return;
      }
      const { size, lines, tail } = content.log;
      if (!memories.resumeAt(size, lines, (fd) => logTail(fd, size) === tail)) {
        throw new SidecarMismatch(`${LOG} is not the log it was made from`);
      }
    } catch (error) {
      if (!(error instanceof SidecarMismatch)) throw error;
      this.logger.warn(
        { file: SIDECAR_FILE, reason: error.message },
        `${SIDECAR_FILE} is not used (${error.message}): reading ${LOG} whole, and writing it again after`,
      );
      return;
    }
    try {
      const c = content.columns;
      const ids = unpackStrings(c['store.ids'] as Uint8Array, c['store.idEnds'] as Int32Array);
      const nsOf = c['store.ns'] as Uint8Array;
      const offsets = c['store.offsets'] as Float64Array;
      const lengths = c['store.lengths'] as Int32Array;
      const statuses = c['store.status'] as Uint8Array;
      const namespaces = content.meta.namespaces as string[];
      checkRefs(ids.length, namespaces.length, content.log.size, nsOf, offsets, lengths, statuses);
      const slotTable = c[SLOT_TABLE];
      const picks = picksOf(nsOf, namespaces.length);
      namespaces.forEach((ns, n) => {
        const pick = picks[n] as Int32Array;
        const buckets =
          ns === DEFAULT_NAMESPACE && slotTable instanceof Int32Array
            ? bucketsBySlot(slotTable, pick, ids.length)
            : undefined;
        this.live.space(ns).memories.restoreRefs(ids, pick, offsets, lengths, statuses, buckets);
      });
      const idOf = (key: number) => ids[key] as string;
      const parts = content.meta.listeners as (PersistedPart['meta'] | null)[];
      const space = this.live.space(DEFAULT_NAMESPACE);
      let indexes = 0;
      space.listeners.forEach((listener, i) => {
        const meta = parts[i];
        const prefix = `l${i}.`;
        const columns: PersistedPart['columns'] = {};
        for (const [name, column] of Object.entries(c)) {
          if (name.startsWith(prefix)) columns[name.slice(prefix.length)] = column;
        }
        const restored =
          meta !== null &&
          meta !== undefined &&
          listener.persistence?.restore({ columns, meta }, idOf);
        if (restored) indexes++;
        else for (const record of space.memories.values()) listener.upsert(record, undefined);
      });
      this.at = { ino: memories.inodeRead, lines: content.log.lines };
      this.logger.info(
        {
          memories: ids.length,
          lines: content.log.lines,
          indexes,
          ms: Math.round(performance.now() - started),
        },
        `started from ${SIDECAR_FILE}`,
      );
    } catch (error) {
      // A sidecar that passed its checks but cannot be used: start over from the log.
      this.logger.warn(
        { file: SIDECAR_FILE, err: (error as Error).message },
        `${SIDECAR_FILE} could not be used: reading ${LOG} whole`,
      );
      this.live.clearMemories();
      memories.restart();
    }
  }

  /**
   * Starts writing the sidecar when the log has at least `share` of its lines (and
   * `sidecarMinLines`) past the one on disk, or was compacted since. It is taken and written in
   * the background, never holding the event loop long (`idle()` settles after); one asked for
   * while another is under way is written after it. A failure is logged: it is only derived.
   */
  saveIfBehind(share: number): void {
    if (this.writing) {
      this.queued = Math.min(this.queued ?? share, share);
      return;
    }
    try {
      if (!this.behind(share)) return;
      this.run(this.write());
    } catch (error) {
      this.failed(error);
    }
  }

  /**
   * Writes the sidecar again, in the background, when the listeners learnt what it lacks for at
   * least `sidecarMinLines` memories since the one on disk was taken (`ListenerPersistence.learnt`:
   * the rank facts a fill worked out after a load).
   */
  saveLearnt(): void {
    if (this.learntSince() < this.minLines) return;
    this.learntDue = true;
    this.saveIfBehind(1);
  }

  /** What the listeners learnt since the sidecar on disk was taken (all they did, without one). */
  private learntSince(): number {
    return this.learntNow() - (this.at?.learnt ?? 0);
  }

  private learntNow(): number {
    let learnt = 0;
    for (const l of this.live.space(DEFAULT_NAMESPACE).listeners) {
      learnt += l.persistence?.learnt?.() ?? 0;
    }
    return learnt;
  }

  /**
   * What a long load calls between its slices: takes the sidecar of the prefix read so far, then
   * writes it in the background while the load goes on, so a process killed later leaves it
   * behind and the next start reads only the rest of the log; when, `CheckpointPace` says.
   * `remaining`: the bytes of the log the load has still to read.
   */
  async checkpoint(remaining: number): Promise<void> {
    const now = performance.now();
    if (!this.pace.due(now, this.log.size(), this.log.lineCount, remaining) || this.writing) {
      return;
    }
    try {
      if (!this.behind(0)) return;
      const taken = await this.take();
      // A write begun meanwhile (a close) is of a later point: this one is dropped.
      if (!taken || this.writing) return;
      this.pace.taken(taken.content.log.lines, now, performance.now());
      this.run(
        this.written(taken, 'checkpoint').finally(() => this.pace.written(now, performance.now())),
      );
    } catch (error) {
      this.failed(error);
    }
  }

  /**
   * The last write, at close, before the log is closed: the sidecar of the log as read now, at
   * once or once the write under way is done (the point is taken now, while the log is open;
   * nothing is read after).
   */
  stop(): void {
    if (!this.writing) {
      this.saveIfBehind(0);
      return;
    }
    try {
      this.finalPoint = this.pointNow();
      this.queued = 0;
    } catch (error) {
      this.failed(error);
    }
  }

  /** Settles once no write of the sidecar is under way nor queued (never rejects). */
  async idle(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** Whether column `name` is one a listener of the default namespace adds to after a start. */
  private grows(name: string): boolean {
    const at = name.indexOf('.');
    const listener = /^l\d+$/.test(name.slice(0, at))
      ? this.live.space(DEFAULT_NAMESPACE).listeners[Number(name.slice(1, at))]
      : undefined;
    return listener?.persistence?.grows?.(name.slice(at + 1)) === true;
  }

  /** A write under way. */
  private writing: Promise<void> | undefined;
  /** The share of a write asked for while one was under way. */
  private queued: number | undefined;
  /** The log's point at close, for a write queued then. */
  private finalPoint: (LogPoint & { ino: number }) | undefined;

  /** Whether the log has enough lines past the sidecar on disk for a write. */
  private behind(share: number): boolean {
    const memories = this.log;
    if (memories.inodeRead === -1) return false;
    const at = this.at;
    const behind =
      at === undefined || at.ino !== memories.inodeRead
        ? memories.lineCount
        : memories.lineCount - at.lines;
    if (at?.checkpoint && behind > 0) return true;
    if (this.learntDue && this.learntSince() > 0) return true;
    return behind > 0 && behind >= Math.max(this.minLines, share * memories.lineCount);
  }

  /** `write` as the one under way; the one queued meanwhile starts after it. */
  private run(write: Promise<void>): void {
    this.writing = write.finally(() => {
      this.writing = undefined;
      const queued = this.queued;
      this.queued = undefined;
      if (queued !== undefined) this.saveIfBehind(queued);
    });
  }

  private failed(error: unknown): void {
    this.logger.warn(
      { file: SIDECAR_FILE, err: (error as Error).message },
      `could not write ${SIDECAR_FILE}: the next start reads ${LOG} whole`,
    );
  }

  /** The point of the log as read now (its descriptor must be open). */
  private pointNow(): LogPoint & { ino: number } {
    const memories = this.log;
    const size = memories.size();
    return {
      size,
      lines: memories.lineCount,
      tail: memories.withFd((fd) => logTail(fd, size)),
      ino: memories.inodeRead,
    };
  }

  /**
   * What the sidecar of the log as read now holds, a slice a turn of the event loop (calls are
   * answered between): the memories a slice at a time, then each listener's part a step at a
   * time. Undefined when the log or a listener's state changed meanwhile (a line read, a note
   * read from the vault): what was taken would not be of one point of the log.
   */
  private async take(): Promise<Taken | undefined> {
    const started = performance.now();
    const memories = this.log;
    // The point first, while the log is open (at close, the one taken before it was closed).
    const { ino, ...log } = this.finalPoint ?? this.pointNow();
    const learnt = this.learntNow();
    const listeners = this.live.space(DEFAULT_NAMESPACE).listeners;
    const defaults = this.live.space(DEFAULT_NAMESPACE).memories;
    const revisions = listeners.map((l) => l.persistence?.revision());
    const unchanged = () =>
      memories.lineCount === log.lines &&
      memories.inodeRead === ino &&
      listeners.every((l, i) => l.persistence?.revision() === revisions[i]);
    let held = 0;
    let turn = performance.now();
    const pause = async () => {
      held = Math.max(held, performance.now() - turn);
      await setImmediate();
      turn = performance.now();
    };
    // Every column as it will be written, at most one entry a slot given: a million memories'
    // ids pushed into arrays and then packed string by string took a second of a take.
    let slots = 0;
    for (const space of this.live.spaces()) slots += space.memories.slots;
    const ids = new StringPacker(slots);
    const idEnds = new Int32Array(slots);
    const ns = new Uint8Array(slots);
    const offsets = new Float64Array(slots);
    const lengths = new Int32Array(slots);
    const statuses = new Uint8Array(slots);
    let count = 0;
    // Each memory's key (its place in the columns) by its slot in its namespace's table: a Map of
    // a million ids took a second of a take.
    const keyed: { memories: MemoryTable; keys: Int32Array }[] = [];
    let keys = new Int32Array(0);
    const namespaces: string[] = [];
    const visit = (id: string, offset: number, length: number, status: number, slot: number) => {
      keys[slot] = count;
      idEnds[count] = ids.add(id);
      ns[count] = namespaces.length - 1;
      offsets[count] = offset;
      lengths[count] = length;
      statuses[count++] = status;
    };
    if (!unchanged()) return undefined;
    for (const space of [...this.live.spaces()]) {
      namespaces.push(space.name);
      keys = new Int32Array(space.memories.slots);
      keyed.push({ memories: space.memories, keys });
      for (let from = 0; ; ) {
        // Never past the slots counted, which a typed array would drop without a word (a table
        // cannot grow while the log is unchanged: this only keeps that true).
        if (count + Math.min(TAKE_SLICE, space.memories.slots - from) > slots) return undefined;
        const next = space.memories.everyRef(visit, from, TAKE_SLICE);
        if (next === false) return undefined;
        if (next === true) break;
        from = next;
        await pause();
        if (!unchanged()) return undefined;
      }
    }
    if (namespaces.length > 255) return undefined;
    // The default namespace's first: the indexes persisted are its own.
    keyed.sort((a, b) => Number(b.memories === defaults) - Number(a.memories === defaults));
    const keyOf: KeyOf = (id, hint) => {
      const first = keyed[0];
      if (first && hint !== undefined && first.memories.idAt(hint) === id) {
        return first.keys[hint] as number;
      }
      for (const { memories, keys } of keyed) {
        const slot = memories.slot(id);
        if (slot !== undefined) return keys[slot] as number;
      }
      return -1;
    };
    const columns: Record<string, Uint8Array | Uint16Array | Int32Array | Float64Array> = {};
    columns['store.ids'] = ids.bytes();
    columns['store.idEnds'] = idEnds.subarray(0, count);
    columns['store.ns'] = ns.subarray(0, count);
    columns['store.offsets'] = offsets.subarray(0, count);
    columns['store.lengths'] = lengths.subarray(0, count);
    columns['store.status'] = statuses.subarray(0, count);
    // The default namespace's table of id to slot, by key: not hashed again at the next start.
    const own = keyed.find((k) => k.memories === defaults);
    if (own) columns[SLOT_TABLE] = bucketsByKey(own.memories.slotBuckets(), own.keys);
    await pause();
    if (!unchanged()) return undefined;
    const listenerMeta: (PersistedPart['meta'] | null)[] = [];
    for (const [i, listener] of listeners.entries()) {
      const steps = listener.persistence?.save(keyOf);
      let part: PersistedPart | undefined;
      for (;;) {
        const step = steps?.next();
        if (!step || step.done) {
          part = step?.value;
          break;
        }
        await pause();
        if (!unchanged()) {
          steps?.return(undefined);
          return undefined;
        }
      }
      if (part) {
        for (const [name, column] of Object.entries(part.columns)) {
          columns[`l${i}.${name}`] = column;
        }
      }
      listenerMeta.push(part ? part.meta : null);
    }
    await pause();
    return {
      content: { log, shape: this.shape(), meta: { namespaces, listeners: listenerMeta }, columns },
      ino,
      learnt,
      memories: count,
      started,
      heldMs: held,
    };
  }

  /**
   * Takes the sidecar and writes it, atomically, beside the log. A take the log or an index
   * changed under is taken again, a few times: what is written is always of one point.
   */
  private async write(): Promise<void> {
    try {
      for (let attempt = 0; attempt < TAKE_ATTEMPTS; attempt++) {
        const taken = await this.take();
        if (taken) return await this.written(taken, 'write');
      }
      this.logger.info(
        { file: SIDECAR_FILE },
        `${LOG} kept changing while ${SIDECAR_FILE} was taken: it is written at the next stop`,
      );
    } catch (error) {
      this.failed(error);
    }
  }

  /** Writes what was taken, atomically (temp file, fsync, rename, fsync of the folder). */
  private async written(taken: Taken, why: 'write' | 'checkpoint'): Promise<void> {
    try {
      const bytes = await writeSidecarAsync(this.file, taken.content, () => setImmediate());
      this.at = {
        ino: taken.ino,
        lines: taken.content.log.lines,
        learnt: taken.learnt,
        ...(why === 'checkpoint' ? { checkpoint: true } : {}),
      };
      this.learntDue = false;
      this.logger.info(
        {
          memories: taken.memories,
          lines: taken.content.log.lines,
          bytes,
          heldMs: Math.round(taken.heldMs),
          ms: Math.round(performance.now() - taken.started),
          ...(why === 'checkpoint' ? { checkpoint: true } : {}),
        },
        `wrote ${SIDECAR_FILE}`,
      );
    } catch (error) {
      this.failed(error);
    }
  }
}

/** How many times a write takes the sidecar again when the log changed under it. */
const TAKE_ATTEMPTS = 3;

/** The memories taken between two turns of the event loop. */
const TAKE_SLICE = 20_000;

/** What a sidecar write holds, taken at one point of the log. */
interface Taken {
  content: SidecarContent;
  /** The inode of the log it was taken from. */
  ino: number;
  /** What the listeners had learnt when it was taken (`learntNow`). */
  learnt: number;
  memories: number;
  started: number;
  /** The longest the event loop was held while it was taken. */
  heldMs: number;
}
