import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Retriever } from '../search/retriever.js';
import { idsWithStatus, type StorageEngine } from '../storage/engine.js';
import type { MemoryRecord } from '../storage/records.js';
import { noteMemoryId, parseNote } from '../vault/note.js';
import { readNoteFile } from '../vault/note-file.js';
import type { NoteEvent, VaultIndex, VaultNote } from '../vault/note-index.js';
import { isInside, resolveInVault, toVaultPath } from '../vault/paths.js';

export interface NoteSyncDeps {
  store: StorageEngine;
  /** What memories are searched by, by words and by meaning: their notes' texts are set here. */
  documents: Pick<Retriever, 'setNote'>;
  notes: VaultIndex;
  /**
   * The notes that speak for this namespace's memories (its own folder's): a note elsewhere that
   * names one of them (planted in another namespace's folder) neither promotes it, moves it nor
   * is searched as its text. All notes when unset.
   */
  visible?: (notePath: string) => boolean;
  logger: Logger;
  clock: () => number;
  /**
   * How long a removed note may stay away before its memory goes back to active. A rename is a
   * remove and an add, in either order; this gives the add time to arrive.
   */
  settleMs?: number;
}

// Changed notes are reconciled together, a moment after the last change.
const BATCH_MS = 50;

/**
 * Keeps memories and their notes in step, whichever side changed. The vault says which memories
 * are promoted (logs name the memory, never the note: its path is a slug of the content):
 * - search matches a promoted memory by its note as the person left it;
 * - a renamed or moved note keeps its memory (promoted_to follows);
 * - a deleted note puts its memory back to active, and says so in the log;
 * - a note that names an active memory (restored from the trash, or written just before a
 *   crash) promotes it.
 */
export class NoteSync {
  private readonly store: StorageEngine;
  private readonly documents: Pick<Retriever, 'setNote'>;
  private readonly notes: VaultIndex;
  private readonly visible: (notePath: string) => boolean;
  private readonly logger: Logger;
  private readonly clock: () => number;
  private readonly settleMs: number;
  private readonly changed = new Set<string>();
  private readonly removed = new Set<string>();
  /**
   * Memories whose note the index had and saw removed. Only these are demoted when no note of
   * theirs is left: a note never seen in this vault may be in another (cortexgraph's, a vault
   * mnemo is no longer pointed at), which is not this vault's to judge.
   */
  private readonly lost = new Set<string>();
  private changedTimer: NodeJS.Timeout | undefined;
  private removedTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(deps: NoteSyncDeps) {
    this.store = deps.store;
    this.documents = deps.documents;
    this.notes = deps.notes;
    this.visible = deps.visible ?? (() => true);
    this.logger = deps.logger;
    this.clock = deps.clock;
    this.settleMs = deps.settleMs ?? 1000;
  }

  /** What the vault index calls for every note it adds, changes or drops. */
  handle(event: NoteEvent): void {
    if (event.kind === 'upsert') {
      if (event.note.memoryId) this.changed.add(event.note.memoryId);
      if (event.previous?.memoryId && event.previous.memoryId !== event.note.memoryId) {
        this.changed.add(event.previous.memoryId);
      }
      this.changedTimer ??= unrefTimer(() => {
        this.changedTimer = undefined;
        void this.run([...this.drain(this.changed)]);
      }, BATCH_MS);
    } else if (event.previous.memoryId) {
      this.removed.add(event.previous.memoryId);
      this.lost.add(event.previous.memoryId);
      if (this.removedTimer) clearTimeout(this.removedTimer);
      this.removedTimer = unrefTimer(() => {
        this.removedTimer = undefined;
        void this.run([...this.drain(this.removed)]);
      }, this.settleMs);
    }
  }

  /** The note of a promoted memory, as it is in the vault now. */
  noteOf(record: MemoryRecord): VaultNote | undefined {
    if (record.status !== 'promoted' || !record.promoted_to) return undefined;
    const relative = this.inVault(record.promoted_to);
    const note =
      relative === undefined || !this.visible(relative) ? undefined : this.notes.get(relative);
    return note?.memoryId === record.id ? note : undefined;
  }

  /**
   * Where a memory coming back (restore_memory) stands with the vault: promoted at its note's
   * path when a note of it is in the vault (where promoted_to says, or wherever it moved), else
   * active with promoted_to cleared; undefined when its promoted_to names a note outside this
   * vault, which is not this vault's to judge.
   */
  restoredLink(record: MemoryRecord): Pick<MemoryRecord, 'status' | 'promoted_to'> | undefined {
    const relative = record.promoted_to ? this.inVault(record.promoted_to) : null;
    if (relative === undefined) return undefined;
    const own = relative && this.visible(relative) ? relative : undefined;
    const at = own ? this.notes.get(own) : undefined;
    const found = at?.memoryId === record.id ? at.path : this.notesOf(record.id)[0]?.path;
    if (found) return { status: 'promoted', promoted_to: found };
    // The vault is not indexed in a one-shot command: the note where promoted_to says.
    if (own && this.namesMemory(own, record.id)) {
      return { status: 'promoted', promoted_to: relative };
    }
    return { status: 'active', promoted_to: null };
  }

  /** Reconciles one memory with the vault now (e.g. restored): its text, its status. */
  recheck(memoryId: string): Promise<void> {
    return this.run([memoryId]);
  }

  /** Checks every promoted memory against the vault: after the first scan. */
  async reconcileAll(): Promise<void> {
    await this.store.ready;
    for (const id of idsWithStatus(this.store.memories, 'promoted')) this.changed.add(id);
    await this.flush();
  }

  /** Reconciles every memory whose notes changed, without waiting; resolves when done. */
  flush(): Promise<void> {
    for (const timer of [this.changedTimer, this.removedTimer]) if (timer) clearTimeout(timer);
    this.changedTimer = undefined;
    this.removedTimer = undefined;
    return this.run([...this.drain(this.changed), ...this.drain(this.removed)]);
  }

  close(): void {
    for (const timer of [this.changedTimer, this.removedTimer]) if (timer) clearTimeout(timer);
    this.changed.clear();
    this.removed.clear();
    this.lost.clear();
  }

  private drain(set: Set<string>): string[] {
    const ids = [...set];
    set.clear();
    return ids;
  }

  private run(ids: string[]): Promise<void> {
    // A renamed note is both a removal and an addition of its memory: reconciled once.
    const unique = [...new Set(ids)];
    this.running = this.running.then(() => this.reconcileIds(unique));
    return this.running;
  }

  private async reconcileIds(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    // Without the vault folder (unmounted, moved) nothing can be concluded about its notes.
    if (!fs.existsSync(this.notes.vault)) return;
    try {
      await this.store.ready;
      await this.store.refresh();
      // A first pass without the lock; the lock is taken only when a record must change, and
      // the changes are worked out again under it (another process may have made them).
      if (!ids.some((id) => this.reconcileId(id, false))) return;
      await this.store.transact(() => {
        const memories = ids
          .map((id) => this.reconcileId(id, true))
          .filter((r): r is MemoryRecord => r !== undefined);
        return { result: undefined, memories };
      });
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'cannot record note changes');
    }
  }

  /** The memory as the vault says it should be, or undefined when it is right already. */
  private reconcileId(id: string, log: boolean): MemoryRecord | undefined {
    const record = this.store.memories.get(id);
    if (!record) {
      // Gone from the store (deleted): searched by nothing, and by its own text if restored.
      this.overlay(id, undefined);
      return undefined;
    }
    const notes = this.notesOf(id);
    // A superseded memory's note stays as it is: the status says it is out of date, not the note.
    if (record.status === 'archived' || record.status === 'superseded') {
      this.overlay(id, undefined);
      return undefined;
    }
    if (record.status === 'active') {
      const found = notes[0];
      if (!found) {
        this.overlay(id, undefined);
        return undefined;
      }
      if (log) {
        this.logger.info({ memory_id: id }, 'note in the vault: memory promoted');
      }
      this.overlay(id, found);
      return {
        ...record,
        status: 'promoted',
        promoted_to: found.path,
        promoted_at: record.promoted_at ?? this.clock(),
      };
    }
    const linked = this.noteOf(record);
    if (linked) {
      this.lost.delete(id);
      this.overlay(id, linked);
      return undefined;
    }
    // A path outside this vault (an absolute one from another machine or tool) is not this
    // vault's to judge.
    const relative = record.promoted_to ? this.inVault(record.promoted_to) : undefined;
    if (relative === undefined) return undefined;
    if (this.exists(relative)) return undefined;
    const moved = notes[0];
    if (moved) {
      if (log) {
        this.logger.info({ memory_id: id }, 'note moved: promoted_to follows it');
        this.lost.delete(id);
      }
      this.overlay(id, moved);
      return { ...record, promoted_to: moved.path };
    }
    // Demoted only when its note was seen here and seen to go: one never seen may be in a vault
    // mnemo is not pointed at (cortexgraph's). Not while that removal is still settling: a rename
    // is a removal then an addition, and a run for another change of the memory's notes (the
    // note promotion wrote, say) must not conclude before the addition had its time to arrive.
    if (!this.lost.has(id) || this.removed.has(id)) return undefined;
    if (log) {
      this.logger.warn(
        { memory_id: id },
        'note deleted from the vault: the memory is active again',
      );
      this.lost.delete(id);
    }
    this.overlay(id, undefined);
    return { ...record, status: 'active', promoted_to: null };
  }

  /** The notes of this namespace's folder that name memory `id`. */
  private notesOf(id: string): VaultNote[] {
    return this.notes.notesOf(id).filter((note) => this.visible(note.path));
  }

  private overlay(id: string, note: VaultNote | undefined): void {
    this.documents.setNote(id, note);
  }

  /**
   * A promoted_to as a path of this vault: a relative one as it is (cortexgraph's are relative
   * to its vault too), an absolute one inside the vault made relative; undefined for one outside.
   */
  private inVault(promotedTo: string): string | undefined {
    if (!path.isAbsolute(promotedTo)) return promotedTo;
    const absolute = path.resolve(promotedTo);
    return isInside(this.notes.vault, absolute)
      ? toVaultPath(this.notes.vault, absolute)
      : undefined;
  }

  /** Whether the file at this vault path is a note of this memory (read from the disk). */
  private namesMemory(relative: string, id: string): boolean {
    const file = readNoteFile(this.notes.vault, relative);
    return (
      file.ok && this.visible(file.path) && noteMemoryId(parseNote(file.text).properties) === id
    );
  }

  private exists(relative: string): boolean {
    try {
      return fs.existsSync(resolveInVault(this.notes.vault, relative));
    } catch {
      return false;
    }
  }
}

function unrefTimer(fn: () => void, ms: number): NodeJS.Timeout {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return timer;
}
