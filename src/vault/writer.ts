import fs from 'node:fs';
import path from 'node:path';
import { createFile, replaceFile } from '../platform/durable-file.js';
import { UserError } from '../platform/errors.js';
import type { MemoryRecord } from '../storage/records.js';
import {
  type NoteProperties,
  noteMemoryId,
  noteTitle,
  type OwnedKey,
  obsidianDateTime,
  parseNote,
  type RelatedLink,
  renderNote,
  replaceNoteBody,
  updateOwnedProperties,
} from './note.js';
import { readNoteFile } from './note-file.js';
import { checkFolderInVault, resolveInVault, toVaultPath, VaultPathError } from './paths.js';
import { candidateName, slugify } from './slug.js';
import { initVault } from './template.js';

/** A note that cannot be written: the message names the file and what to make writable. */
export class VaultWriteError extends UserError {
  override name = 'VaultWriteError';
}

export interface WrittenNote {
  /** Vault-relative path, e.g. `mnemo/kitten-asleep-on-the-rug.md`. */
  path: string;
  /** The note's text as it is now on disk. */
  text: string;
  /** True for a new note; false when an existing note of this memory had its properties updated. */
  created: boolean;
}

/** What became of a promoted memory's note when the memory changed (update_memory). */
export interface ChangedNote {
  path: string;
  /** The note's text as it is now on disk. */
  text: string;
  /** False when the body was left as it was: a person edited it (or it cannot be read). */
  bodyUpdated: boolean;
}

export interface VaultWriterOptions {
  vault: string;
  folder: string;
  /** Finds a note of this memory that was moved or renamed (the vault index knows). */
  locate?: (memoryId: string) => string | undefined;
  /**
   * The vault paths whose notes may be this namespace's (its own folder's): a note elsewhere
   * that names one of its memories is never rewritten with the memory's text. All when unset.
   */
  visible?: (notePath: string) => boolean;
}

const MAX_NAMES = 10_000;

/**
 * Writes promoted memories as notes. A new note gets a file of its own (`wx`: never over another
 * file). A memory that already has a note gets only mnemo's own properties updated; the body and
 * the person's properties stay. A file that is not this memory's note is never touched.
 */
export class VaultWriter {
  readonly vault: string;
  readonly folder: string;
  private readonly locate: ((memoryId: string) => string | undefined) | undefined;
  private readonly visible: (notePath: string) => boolean;
  private ready = false;

  constructor(options: VaultWriterOptions) {
    this.vault = path.resolve(options.vault);
    this.folder = options.folder;
    this.locate = options.locate;
    this.visible = options.visible ?? (() => true);
  }

  /** Makes the vault from the template if needed; true when it was made now. */
  ensure(): boolean {
    if (this.ready) return false;
    try {
      const { created } = initVault(this.vault, this.folder);
      this.ready = true;
      return created;
    } catch (error) {
      throw this.writeError(error, this.vault);
    }
  }

  /** `record` is the memory as promoted (promoted_at set); `related` are promoted neighbours. */
  write(record: MemoryRecord, related: MemoryRecord[]): WrittenNote {
    this.ensure();
    const existing = this.findNoteOf(record);
    if (existing) {
      const text = this.updateProperties(existing, record);
      return { path: toVaultPath(this.vault, existing), text, created: false };
    }
    const text = renderNote(
      propertiesOf(record),
      record.content,
      related.flatMap((r): RelatedLink[] =>
        r.promoted_to ? [{ path: r.promoted_to, title: noteTitle(r.content) }] : [],
      ),
    );
    // Checked at each note: a person may have put a link in its place since.
    checkFolderInVault(this.vault, this.folder);
    const folder = resolveInVault(this.vault, this.folder);
    this.checkFolderIsOwn(folder);
    // The messages name the memory, never the note's name: a slug of the memory's words.
    const slug = slugify(record.content);
    for (let n = 1; n <= MAX_NAMES; n++) {
      let target: string;
      try {
        target = resolveInVault(this.vault, path.join(this.folder, candidateName(slug, n)));
      } catch (error) {
        if (!(error instanceof VaultPathError)) throw error;
        // The folder was checked: the name itself is a link that leads out of the vault.
        throw new VaultPathError(
          `the note name for memory ${record.id} in ${folder} is a link that leads out of the vault: nothing was written through it; remove the links in that folder that lead out of the vault, then promote the memory again`,
        );
      }
      if (path.dirname(target) !== folder) {
        throw new VaultPathError(`the note name for memory ${record.id} left the folder`);
      }
      try {
        createFile(target, text, { within: this.realVault() });
        return { path: toVaultPath(this.vault, target), text, created: true };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw this.writeError(error, target, record.id);
        }
      }
    }
    throw new VaultWriteError(
      `no free note name for memory ${record.id} in ${folder}: the ${MAX_NAMES} names made from its first words are taken; move or rename some of those notes, then promote the memory again`,
    );
  }

  /**
   * Brings the note of a promoted memory in step with its change from `previous` to `next`:
   * mnemo's own properties always (as `write` does), the body only while it still holds the
   * previous content, so a person's edit is never overwritten. Undefined when the memory has no
   * note in this vault.
   */
  change(previous: MemoryRecord, next: MemoryRecord): ChangedNote | undefined {
    const absolute = this.findNoteOf(previous);
    if (!absolute) return undefined;
    const owned = this.updateProperties(absolute, next);
    const text = replaceNoteBody(owned, previous.content, next.content);
    const relative = toVaultPath(this.vault, absolute);
    if (text === undefined) return { path: relative, text: owned, bodyUpdated: false };
    if (text !== owned) this.replaceNote(absolute, text, next.id);
    return { path: relative, text, bodyUpdated: true };
  }

  /** This memory's note: at promoted_to, or wherever the vault index saw it last. */
  private findNoteOf(record: MemoryRecord): string | undefined {
    const candidates = [record.promoted_to, this.locate?.(record.id)];
    for (const relative of candidates) {
      if (!relative) continue;
      let absolute: string;
      try {
        absolute = resolveInVault(this.vault, relative);
      } catch {
        continue;
      }
      const own = toVaultPath(this.vault, absolute);
      if (!this.visible(own)) continue;
      const file = readNoteFile(this.vault, own);
      // Whatever cannot be read as a note (a link, a FIFO, too large) is no note of this memory.
      if (
        file.ok &&
        this.visible(file.path) &&
        noteMemoryId(parseNote(file.text).properties) === record.id
      ) {
        return absolute;
      }
    }
    return undefined;
  }

  private updateProperties(absolute: string, record: MemoryRecord): string {
    const file = readNoteFile(this.vault, toVaultPath(this.vault, absolute));
    if (!file.ok) {
      throw new VaultWriteError(
        `cannot read the note of memory ${record.id} in the vault (${file.why}): make it a regular note file of at most 1 MB, or remove it`,
      );
    }
    const { text } = file;
    const owned = propertiesOf(record);
    const values: Partial<Record<OwnedKey, string | number>> = {
      memory_id: owned.memory_id,
      created: owned.created,
      promoted: owned.promoted,
      last_used: owned.last_used,
      use_count: owned.use_count,
      strength: owned.strength,
    };
    const updated = updateOwnedProperties(text, values);
    // Properties a person made unreadable are left alone: the note is theirs to fix.
    if (updated === undefined || updated === text) return text;
    this.replaceNote(absolute, updated, record.id);
    return updated;
  }

  /**
   * Rewrites a note of the vault (a dot file for the temp file: the vault index and Obsidian
   * skip it). Its folder is checked again just before, for a link put in its place since the
   * note was found; a note that is itself a link, or not a file, is left alone: a rename would
   * swap the person's link for a copy.
   */
  private replaceNote(absolute: string, text: string, memoryId: string): void {
    try {
      resolveInVault(this.vault, toVaultPath(this.vault, absolute));
    } catch (error) {
      // Its message names the note: a slug of the memory's words.
      if (!(error instanceof VaultPathError)) throw error;
      throw new VaultPathError(
        `the note of memory ${memoryId} in ${path.dirname(absolute)} is now reached through a link that leads out of the vault: nothing was written; make that folder and those above it folders of the vault again (not links), and retry`,
      );
    }
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(absolute);
    } catch (error) {
      throw this.writeError(error, absolute, memoryId);
    }
    if (!stat.isFile()) {
      throw new VaultWriteError(
        `this memory's note is ${stat.isSymbolicLink() ? 'a link' : 'not a file'}: mnemo rewrites only a note that is a file of the vault; make it one`,
      );
    }
    try {
      replaceFile(absolute, text, { hidden: true, within: this.realVault() });
    } catch (error) {
      throw this.writeError(error, absolute, memoryId);
    }
  }

  /**
   * The folder, links inside the vault resolved, must be one whose notes are this namespace's:
   * `mnemo/bob` made a link to `alice` would put bob's notes where alice's search finds them.
   */
  private checkFolderIsOwn(folder: string): void {
    let seen: string;
    try {
      seen = toVaultPath(this.realVault(), path.join(fs.realpathSync(folder), 'note.md'));
    } catch (error) {
      throw this.writeError(error, folder);
    }
    if (!this.visible(seen)) {
      throw new VaultPathError(
        `the notes' folder "${this.folder}" is a link to "${path.posix.dirname(seen)}", whose notes are another namespace's: make "${this.folder}" a folder of its own`,
      );
    }
  }

  /** The vault's real path: what a file made in it must be inside once made. */
  private realVault(): string {
    return fs.realpathSync(this.vault);
  }

  /** `memoryId`: the memory whose note `target` is, named instead of the note (its words). */
  private writeError(error: unknown, target: string, memoryId?: string): Error {
    if (error instanceof UserError) return error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELINKOUT') {
      const what =
        memoryId === undefined ? 'a file of the vault' : `the note of memory ${memoryId}`;
      return new VaultPathError(
        `${what} in ${path.dirname(target)} left the vault through a link made while it was written: nothing was written outside; make that folder and those above it folders of the vault again (not links), and retry`,
      );
    }
    const why =
      code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
        ? 'permission denied'
        : code === 'ENOSPC'
          ? 'the disk is full'
          : code === 'ENOTDIR' || code === 'EEXIST'
            ? 'a file is in the way of a folder'
            : ((error as Error).message ?? String(error));
    return new VaultWriteError(
      `cannot write to the vault at ${target} (${why}): make ${this.vault} writable, or set MNEMO_VAULT_DIR to a vault you can write`,
    );
  }
}

export function propertiesOf(record: MemoryRecord): NoteProperties {
  const properties: NoteProperties = {
    title: noteTitle(record.content) || 'Memory',
    memory_id: record.id,
    tags: record.meta.tags.map((t) => t.replace(/^#/, '')),
    created: obsidianDateTime(record.created_at),
    promoted: obsidianDateTime(record.promoted_at ?? record.last_used),
    last_used: obsidianDateTime(record.last_used),
    use_count: record.use_count,
    strength: record.strength,
    ...(record.meta.source ? { source: record.meta.source } : {}),
    entities: record.entities,
  };
  return properties;
}
