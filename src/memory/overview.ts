// The memory as something to browse: its memories by score, the review queue, the vault's notes,
// the anchor, and which memory changed. What MCP resources and prompts read; nothing here writes.
import fs from 'node:fs';
import path from 'node:path';
import { reviewPriority } from '../decay/index.js';
import { topN } from '../search/ranking.js';
import type { ChangeWatcher } from '../storage/engine.js';
import type { MemoryRecord } from '../storage/records.js';
import type { NoteEvent } from '../vault/note-index.js';
import { resolveInVault, VaultPathError } from '../vault/paths.js';
import type { MemoryContext } from './context.js';
import { MemoryError } from './errors.js';
import { round } from './present.js';

/** The name of the anchor in the vault's root when MNEMO_ANCHOR_FILE is not set. */
export const ANCHOR_NOTE = 'anchor.md';

/** What the vault's notes and anchors may be read up to: a note, not a data dump. */
const MAX_NOTE_BYTES = 1024 * 1024;

/** A memory of the review queue: in the danger zone, most urgent first. */
export interface ReviewItem {
  record: MemoryRecord;
  score: number;
  review_priority: number;
}

export class Overview {
  constructor(private readonly ctx: MemoryContext) {}

  /** The namespace this memory is of. */
  get namespace(): string {
    return this.ctx.engine.namespaceName;
  }

  /**
   * The ids of the active and promoted memories, liveliest first (archived ones are left out).
   * Scored from the index's columns: no record is read.
   */
  async byScore(): Promise<string[]> {
    const { ctx } = this;
    await ctx.sync();
    const now = ctx.clock();
    const ids: string[] = [];
    const scores: number[] = [];
    ctx.retriever.eachMemory((id, status, memory) => {
      if (status === 'archived') return;
      ids.push(id);
      scores.push(ctx.score(memory, now));
    });
    return topN(Float64Array.from(scores), ids.length).map(({ index }) => ids[index] as string);
  }

  /** The memories in the danger zone, most urgent first, at most `limit`; only they are read. */
  async reviewQueue(limit: number): Promise<ReviewItem[]> {
    const { ctx } = this;
    await ctx.sync();
    const now = ctx.clock();
    const ids: string[] = [];
    const priorities: number[] = [];
    const scores: number[] = [];
    ctx.retriever.eachMemory((id, status, memory) => {
      if (status === 'archived') return;
      const score = ctx.score(memory, now);
      const priority = reviewPriority(score, ctx.settings.dangerZone);
      if (priority <= 0) return;
      ids.push(id);
      priorities.push(priority);
      scores.push(score);
    });
    const items: ReviewItem[] = [];
    for (const { index } of topN(Float64Array.from(priorities), limit)) {
      const record = ctx.engine.memories.get(ids[index] as string);
      if (!record) continue;
      items.push({
        record,
        score: round(scores[index] as number),
        review_priority: round(priorities[index] as number),
      });
    }
    return items;
  }

  /** Ids of live memories that start with `prefix`, sorted, at most `limit`. */
  async idsStartingWith(prefix: string, limit: number): Promise<string[]> {
    await this.ctx.sync();
    const found: string[] = [];
    for (const id of this.ctx.engine.memories.keys()) {
      if (id.startsWith(prefix)) found.push(id);
    }
    return found.sort().slice(0, limit);
  }

  /** The live memory `id`, or a MemoryError; the text of a promoted one is its note's. */
  async memory(id: string): Promise<{ record: MemoryRecord; text: string; score: number }> {
    await this.ctx.sync();
    const record = this.ctx.require(id, 'id');
    const text = this.ctx.vault?.sync.noteOf(record)?.body ?? record.content;
    return { record, text, score: round(this.ctx.score(record, this.ctx.clock())) };
  }

  /** Whether there is a vault to read notes from. */
  get hasVault(): boolean {
    return this.ctx.vault !== undefined;
  }

  /** Vault paths of this namespace's notes that start with `prefix`, sorted, at most `limit`. */
  notePaths(prefix: string, limit: number): string[] {
    const vault = this.ctx.vault;
    if (!vault) return [];
    const found: string[] = [];
    for (const p of vault.notes.paths()) {
      if (p.startsWith(prefix) && (vault.visible?.(p) ?? true)) found.push(p);
    }
    return found.sort().slice(0, limit);
  }

  /**
   * The text of the vault's note at `relative` (a vault path such as `mnemo/kitten.md`). Refused,
   * with nothing read: a path with `..`, an absolute one, one through a link out of the vault, a
   * hidden file or folder (`.obsidian` holds plugins' settings), and another namespace's note.
   */
  readNote(relative: string): string {
    const vault = this.ctx.vault;
    if (!vault) {
      throw new VaultPathError(
        'mnemo has no vault here: set MNEMO_VAULT_DIR to read notes (mnemo://vault/ is off)',
      );
    }
    if (relative === '') throw new VaultPathError('the vault path is empty: e.g. mnemo/note.md');
    const parts = relative.split(/[\\/]/);
    if (parts.includes('..') || parts.includes('.')) {
      throw new VaultPathError(
        `"${relative}" has a . or .. part: give the note's path in the vault`,
      );
    }
    if (parts.some((part) => part.startsWith('.'))) {
      throw new VaultPathError(`"${relative}" is hidden: mnemo reads only the vault's notes`);
    }
    const absolute = resolveInVault(vault.notes.vault, relative);
    const seen = relative.split(path.sep).join('/');
    if (vault.visible && !vault.visible(seen)) throw noNote(relative);
    return readSmallFile(absolute, relative, noNote);
  }

  /**
   * The anchor's text: the file `file` (MNEMO_ANCHOR_FILE), else `anchor.md` in the vault's root;
   * undefined when there is none.
   */
  anchor(file: string | undefined): { source: string; text: string } | undefined {
    const vault = this.ctx.vault;
    let absolute: string;
    if (file !== undefined) absolute = file;
    else if (vault) absolute = resolveInVault(vault.notes.vault, ANCHOR_NOTE);
    else return undefined;
    try {
      const text = readSmallFile(absolute, absolute, () => new MissingFile());
      return { source: file !== undefined ? absolute : ANCHOR_NOTE, text };
    } catch (error) {
      if (error instanceof MissingFile) return undefined;
      throw error;
    }
  }

  /** Tells `watcher` which memory of this namespace changed, from now on; the answer stops it. */
  watchMemories(watcher: ChangeWatcher): () => void {
    return this.ctx.engine.watch(watcher);
  }

  /** Tells `watcher` of the notes this namespace sees as they are written or removed. */
  watchNotes(watcher: (event: NoteEvent) => void): () => void {
    const vault = this.ctx.vault;
    if (!vault) return () => {};
    return vault.notes.listen((event) => {
      const notePath = event.kind === 'upsert' ? event.note.path : event.previous.path;
      if (vault.visible?.(notePath) ?? true) watcher(event);
    });
  }
}

class MissingFile extends Error {}

function noNote(relative: string): MemoryError {
  return new MemoryError(
    `no note "${relative}" in the vault: complete mnemo://vault/{+path} (completion/complete) for the notes' paths`,
    'path',
  );
}

function readSmallFile(absolute: string, shown: string, missing: (p: string) => Error): string {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw missing(shown);
    throw error;
  }
  if (!stat.isFile()) throw missing(shown);
  if (stat.size > MAX_NOTE_BYTES) {
    throw new VaultPathError(`"${shown}" is larger than 1 MB: open it in Obsidian`);
  }
  return fs.readFileSync(absolute, 'utf8');
}
