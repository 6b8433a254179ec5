// The memory as something to browse: its memories by score, the review queue, the vault's notes,
// the anchor, and which memory changed. What MCP resources and prompts read; nothing here writes.
import fs from 'node:fs';
import path from 'node:path';
import { reviewPriority } from '../decay/index.js';
import { topN } from '../search/ranking.js';
import { type ChangeWatcher, DEFAULT_NAMESPACE } from '../storage/engine.js';
import type { MemoryRecord } from '../storage/records.js';
import { MAX_NOTE_BYTES, readNoteFile } from '../vault/note-file.js';
import type { NoteEvent } from '../vault/note-index.js';
import { resolveInVault, VaultPathError } from '../vault/paths.js';
import type { MemoryContext } from './context.js';
import { MemoryError } from './errors.js';
import { round } from './present.js';

/**
 * The anchor's name: in the vault's root for the default namespace when MNEMO_ANCHOR_FILE is not
 * set, in its own folder (`<MNEMO_VAULT_FOLDER>/<namespace>/`) for another namespace.
 */
export const ANCHOR_NOTE = 'anchor.md';

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
      if (status === 'archived' || status === 'superseded') return;
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
      // A superseded memory is out of date: nothing to keep alive.
      if (status === 'archived' || status === 'superseded') return;
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
    return firstSorted(this.ctx.engine.memories.keys(), limit, (id) => id.startsWith(prefix));
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
    return firstSorted(
      vault.notes.paths(),
      limit,
      (p) => p.startsWith(prefix) && (vault.visible?.(p) ?? true),
    );
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
    resolveInVault(vault.notes.vault, relative);
    const seen = relative.split(path.sep).join('/');
    if (vault.visible && !vault.visible(seen)) throw noNote(relative);
    // Judged again where the note really is: a folder link inside the vault (`mnemo/bob/up ->
    // ../..`) would lead a read of bob's folder into alice's, or into .obsidian.
    const visible = vault.visible;
    return readSmallFile(
      vault.notes.vault,
      seen,
      relative,
      false,
      (real) => real.split('/').every((part) => !part.startsWith('.')) && (visible?.(real) ?? true),
    );
  }

  /**
   * The anchor's text, undefined when there is none. The default namespace's is the file `file`
   * (MNEMO_ANCHOR_FILE), else `anchor.md` in the vault's root; another namespace's is `anchor.md`
   * in its own folder, whatever `file` says: a namespace never sees another's anchor.
   */
  anchor(file: string | undefined): { source: string; text: string } | undefined {
    const vault = this.ctx.vault;
    const isDefault = this.namespace === DEFAULT_NAMESPACE;
    if (isDefault && file !== undefined) {
      // The person's own file, named in the settings: a link to it is theirs to make, so it is
      // resolved; the file it leads to is read by the same rules as a note.
      let real: string;
      try {
        real = fs.realpathSync(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      const text = readSmallFile(path.dirname(real), path.basename(real), file, true);
      return text === undefined ? undefined : { source: file, text };
    }
    const relative = this.anchorNote();
    if (!vault || relative === undefined) return undefined;
    // Where it really is must be this namespace's: its folder may be a link to another's.
    const text = readSmallFile(vault.notes.vault, relative, relative, true, vault.visible);
    return text === undefined ? undefined : { source: relative, text };
  }

  /** Where in the vault this namespace's anchor is read from; undefined without a vault. */
  anchorNote(): string | undefined {
    const vault = this.ctx.vault;
    if (!vault) return undefined;
    return this.namespace === DEFAULT_NAMESPACE
      ? ANCHOR_NOTE
      : `${vault.writer.folder}/${ANCHOR_NOTE}`;
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

function noNote(relative: string): MemoryError {
  return new MemoryError(
    `no note "${relative}" in the vault: complete mnemo://vault/{+path} (completion/complete) for the notes' paths`,
    'path',
  );
}

/**
 * A note's text through the one note reader; `shown` is what an error names (the path the caller
 * gave). A missing file is noNote, or undefined when `optional`.
 */
function readSmallFile(
  root: string,
  relative: string,
  shown: string,
  optional: true,
  allowed?: (realPath: string) => boolean,
): string | undefined;
function readSmallFile(
  root: string,
  relative: string,
  shown: string,
  optional?: false,
  allowed?: (realPath: string) => boolean,
): string;
function readSmallFile(
  root: string,
  relative: string,
  shown: string,
  optional = false,
  allowed: (realPath: string) => boolean = () => true,
): string | undefined {
  const file = readNoteFile(root, relative);
  if (file.ok) {
    if (allowed(file.path)) return file.text;
    if (optional) return undefined;
    throw noNote(shown);
  }
  switch (file.why) {
    case 'missing':
    case 'not-a-file':
      if (optional) return undefined;
      throw noNote(shown);
    case 'link':
      throw new VaultPathError(`"${shown}" is a link: mnemo reads only the notes themselves`);
    case 'hard-link':
      throw new VaultPathError(
        `"${shown}" is a hard link (a file with a second name): mnemo reads only notes with one name`,
      );
    case 'too-large':
      throw new VaultPathError(
        `"${shown}" is larger than ${MAX_NOTE_BYTES / 1024 / 1024} MB: open it in Obsidian`,
      );
    default:
      throw new VaultPathError(`"${shown}" cannot be read (${file.code ?? 'an I/O error'})`);
  }
}

/**
 * The first `limit` of `values` that `keep`, in sort order, without sorting them all: a
 * completion with an empty prefix sorted every id of the namespace, 170 ms for 200,000 while
 * every namespace waited. Most values cost one comparison with the last kept.
 */
export function firstSorted(
  values: Iterable<string>,
  limit: number,
  keep: (value: string) => boolean,
): string[] {
  const best: string[] = [];
  if (limit <= 0) return best;
  for (const value of values) {
    if (best.length === limit && value >= (best[limit - 1] as string)) continue;
    if (!keep(value)) continue;
    let lo = 0;
    let hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((best[mid] as string) < value) lo = mid + 1;
      else hi = mid;
    }
    best.splice(lo, 0, value);
    if (best.length > limit) best.pop();
  }
  return best;
}
