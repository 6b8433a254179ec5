import fs from 'node:fs';
import path from 'node:path';
import type { FSWatcher } from 'chokidar';
import type { Logger } from 'pino';
import { errorCode } from '../platform/errors.js';
import { Bm25Index, type LexicalHits } from '../search/bm25.js';
import { titleRepeats } from '../search/document.js';
import { Tokenizer } from '../search/tokenizer.js';
import { VocabularyCompaction } from '../search/vocabulary-compaction.js';
import { noteMemoryId, noteTags, parseNote } from './note.js';
import { logSkippedNote, type NoteFile, readNoteFile, readNoteFileAsync } from './note-file.js';
import { toVaultPath } from './paths.js';

/** A Markdown note of the vault as it is on disk, whoever wrote it. */
export interface VaultNote {
  /** Vault-relative, with forward slashes: `mnemo/kitten.md`. */
  path: string;
  title: string;
  /** The memory the note belongs to (its `memory_id` property), if any. */
  memoryId: string | undefined;
  tags: string[];
  body: string;
}

export type NoteEvent =
  | { kind: 'upsert'; note: VaultNote; previous: VaultNote | undefined }
  | { kind: 'remove'; previous: VaultNote };

export interface VaultIndexOptions {
  vault: string;
  logger: Logger;
  onEvent?: (event: NoteEvent) => void;
}

/** Notes read between two yields to the event loop while scanning (about 5 ms of work). */
const SCAN_BATCH = 32;
// Folders no note lives in: Obsidian's settings and trash, git, and anything hidden.
const SKIPPED_DIRS = new Set(['node_modules']);

/** Whether a vault path is one the index skips: hidden files and folders, node_modules. */
function isSkipped(relative: string): boolean {
  return relative.split(/[\\/]/).some((part) => part.startsWith('.') || SKIPPED_DIRS.has(part));
}

/** The text of a note that search matches: its title once, not again when the body begins with it. */
function noteText(note: Pick<VaultNote, 'title' | 'tags' | 'body'>): string {
  const title = titleRepeats(note.title, note.body) ? '' : note.title;
  return `${title}\n${note.tags.join(' ')}\n${note.body}`;
}

/**
 * An index of the vault's Markdown notes, built in the background (reads are async and run a few
 * at a time, so tool calls are answered while it builds) and kept current by a chokidar watcher.
 */
export class VaultIndex {
  readonly vault: string;
  private readonly logger: Logger;
  private readonly onEvent: ((event: NoteEvent) => void) | undefined;
  /** Told of the same events after onEvent, added and removed while running (a client's log). */
  private readonly watchers = new Set<(event: NoteEvent) => void>();
  private readonly notes = new Map<string, VaultNote>();
  private readonly byMemory = new Map<string, Set<string>>();
  private readonly tokenizer = new Tokenizer();
  private readonly bm25 = new Bm25Index<VaultNote>();
  private readonly vocabulary = new VocabularyCompaction(this.tokenizer, this.bm25);
  /** Per path, the number of the latest read: an older read that ends later is dropped. */
  private readonly reads = new Map<string, number>();
  private readSeq = 0;
  private watcher: FSWatcher | undefined;
  private scanning: Promise<void> | undefined;
  /** Watches the nearest existing folder above a vault that does not exist yet. */
  private creation: fs.FSWatcher | undefined;
  private wanted: { watch: boolean } | undefined;
  private closed = false;

  constructor(options: VaultIndexOptions) {
    this.vault = path.resolve(options.vault);
    this.logger = options.logger;
    this.onEvent = options.onEvent;
  }

  get size(): number {
    return this.notes.size;
  }

  /**
   * Starts the watcher (with `watch`), then the scan, if the vault exists; resolves when both are
   * done. The watcher comes first so that no note falls between the two: a note written before it
   * watches is read by the scan, one written after is reported by it. Without a vault yet, with
   * `watch`, waits for one to be made (by this process or another) and starts then.
   */
  start({ watch: watching }: { watch: boolean }): Promise<void> {
    this.wanted = { watch: watching };
    if (this.scanning) return this.scanning;
    if (this.closed) return Promise.resolve();
    if (!fs.existsSync(this.vault)) {
      if (watching) this.awaitVault();
      return Promise.resolve();
    }
    this.stopAwaitingVault();
    const warn = (what: string) => (error: Error) => {
      this.logger.warn({ vault: this.vault, err: errorCode(error) }, what);
    };
    const watched = watching ? this.watch().catch(warn('vault watcher stopped')) : undefined;
    this.scanning = Promise.resolve(watched)
      .then(() => this.scan())
      .catch(warn('vault scan stopped'));
    return this.scanning;
  }

  /** Starts what `start` could not, now that the vault exists. */
  vaultCreated(): Promise<void> {
    return this.wanted ? this.start(this.wanted) : Promise.resolve();
  }

  /** Settles when the watcher watches and every note was read once (at once if not started). */
  get ready(): Promise<void> {
    return this.scanning ?? Promise.resolve();
  }

  /** Tells `watcher` of every note written or removed from now on; the answer stops it. */
  listen(watcher: (event: NoteEvent) => void): () => void {
    const own = (event: NoteEvent) => watcher(event);
    this.watchers.add(own);
    return () => this.watchers.delete(own);
  }

  /** The vault paths of the indexed notes. */
  paths(): IterableIterator<string> {
    return this.notes.keys();
  }

  get(relative: string): VaultNote | undefined {
    return this.notes.get(relative);
  }

  /** Notes whose memory_id is this memory's, in path order. */
  notesOf(memoryId: string): VaultNote[] {
    const paths = this.byMemory.get(memoryId);
    if (!paths) return [];
    return [...paths]
      .sort()
      .map((p) => this.notes.get(p))
      .filter((n): n is VaultNote => n !== undefined);
  }

  search(query: string): LexicalHits<VaultNote> {
    return this.bm25.search(this.tokenizer.termIds(query, false));
  }

  /** Reads one note again (or drops it when it is gone); what the watcher calls on a change. */
  async refresh(relative: string): Promise<void> {
    if (this.closed || isSkipped(relative) || !relative.toLowerCase().endsWith('.md')) return;
    const seq = ++this.readSeq;
    this.reads.set(relative, seq);
    const file = await readNoteFileAsync(this.vault, relative);
    if (this.closed || this.reads.get(relative) !== seq) return;
    this.apply(relative, file);
  }

  /**
   * What a read found: the note indexed, or dropped when it is gone or no note mnemo reads (a
   * link, a FIFO, too large: one log line each time, without its path). A read that failed for
   * another reason (permissions, I/O) is logged and waited out. A note read through a folder
   * link (one made in place of a folder while its note was read) is no note of this path: indexed
   * under it, another namespace's note would be searched as one of the folder the link is in.
   */
  private apply(relative: string, read: NoteFile): void {
    const file: NoteFile =
      read.ok && path.posix.dirname(read.path) !== path.posix.dirname(relative)
        ? { ok: false, why: 'link' }
        : read;
    if (!file.ok && file.why === 'unreadable') {
      logSkippedNote(this.logger, relative, file, this.notes.get(relative)?.memoryId);
      return;
    }
    this.reads.delete(relative);
    if (file.ok) {
      this.upsert(relative, file.text);
      return;
    }
    if (file.why !== 'missing') {
      logSkippedNote(this.logger, relative, file, this.notes.get(relative)?.memoryId);
    }
    this.remove(relative);
  }

  /** Indexes a note from its text, e.g. one mnemo has just written. */
  upsert(relative: string, text: string): void {
    const parsed = parseNote(text);
    const note: VaultNote = {
      path: relative,
      title:
        typeof parsed.properties.title === 'string' && parsed.properties.title.trim()
          ? parsed.properties.title.trim()
          : path.posix.basename(relative).replace(/\.md$/i, ''),
      memoryId: noteMemoryId(parsed.properties),
      tags: noteTags(parsed.properties),
      body: parsed.body,
    };
    const previous = this.notes.get(relative);
    if (previous && sameNote(previous, note)) return;
    const before = previous ? this.tokenizer.termIds(noteText(previous)) : undefined;
    this.bm25.add(relative, this.tokenizer.termIds(noteText(note)), before, note);
    this.vocabulary.afterChange();
    if (previous?.memoryId) this.byMemory.get(previous.memoryId)?.delete(relative);
    this.notes.set(relative, note);
    if (note.memoryId) {
      let paths = this.byMemory.get(note.memoryId);
      if (!paths) {
        paths = new Set();
        this.byMemory.set(note.memoryId, paths);
      }
      paths.add(relative);
    }
    this.emit({ kind: 'upsert', note, previous });
  }

  remove(relative: string): void {
    const previous = this.notes.get(relative);
    if (!previous) return;
    this.bm25.remove(relative, this.tokenizer.termIds(noteText(previous)));
    this.vocabulary.afterChange();
    this.notes.delete(relative);
    if (previous.memoryId) {
      const paths = this.byMemory.get(previous.memoryId);
      paths?.delete(relative);
      if (paths?.size === 0) this.byMemory.delete(previous.memoryId);
    }
    this.emit({ kind: 'remove', previous });
  }

  private emit(event: NoteEvent): void {
    this.onEvent?.(event);
    for (const watcher of this.watchers) watcher(event);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopAwaitingVault();
    await this.watcher?.close();
    this.watcher = undefined;
  }

  /**
   * Watches the nearest folder above the vault that exists, and starts once the vault is there
   * (each folder on the way down is watched in turn). Looks once more right after each watch is
   * set, so a vault made in between is not missed.
   */
  private awaitVault(): void {
    if (this.closed || this.creation) return;
    const folder = this.nearestExisting();
    // The entry of `folder` on the way to the vault, and the folder itself (removed): a change to
    // any other (the data dir's log at every save, when the vault is to be made in the data dir)
    // can neither make the vault nor move the nearest folder.
    const next = path.relative(folder, this.vault).split(path.sep)[0];
    const self = path.basename(folder);
    const look = (_event?: string, file?: string | Buffer | null) => {
      if (this.closed) return;
      if (typeof file === 'string' && file !== next && file !== self) return;
      if (fs.existsSync(this.vault)) {
        void this.vaultCreated();
      } else if (this.nearestExisting() !== folder) {
        this.stopAwaitingVault();
        this.awaitVault();
      }
    };
    try {
      this.creation = fs.watch(folder, { persistent: false }, look);
      this.creation.on('error', (error) => {
        this.logger.warn({ err: errorCode(error) }, 'cannot watch for the vault to be made');
        this.stopAwaitingVault();
      });
    } catch (error) {
      // Without it the vault is indexed when this process makes it (vaultCreated).
      this.logger.warn({ err: errorCode(error) }, 'cannot watch for the vault to be made');
      return;
    }
    look();
  }

  /** The nearest folder above the vault that exists. */
  private nearestExisting(): string {
    let folder = path.dirname(this.vault);
    while (!fs.existsSync(folder) && path.dirname(folder) !== folder) folder = path.dirname(folder);
    return folder;
  }

  private stopAwaitingVault(): void {
    this.creation?.close();
    this.creation = undefined;
  }

  /** Resolves when chokidar has set up its watches. */
  private async watch(): Promise<void> {
    // Loaded here, not at start: only a vault that exists is watched.
    const { watch } = await import('chokidar');
    // The vault's own path may be a link the person made (MNEMO_VAULT_DIR is theirs): the folder
    // it leads to is watched, and what is inside it is never followed.
    const root = await fs.promises.realpath(this.vault);
    if (this.closed) return;
    const watcher = watch(root, {
      ignoreInitial: true,
      // A link is reported as itself and refused by the reader; a link to a folder out of the
      // vault is never walked into.
      followSymlinks: false,
      ignored: (file, stats) => {
        const relative = path.relative(root, file);
        if (relative === '') return false;
        if (isSkipped(relative)) return true;
        return stats?.isFile() === true && !file.toLowerCase().endsWith('.md');
      },
    });
    const onFile = (file: string) => void this.refresh(toVaultPath(root, file));
    watcher.on('add', onFile);
    watcher.on('change', onFile);
    watcher.on('unlink', onFile);
    watcher.on('unlinkDir', (dir: string) => {
      const prefix = `${toVaultPath(root, dir)}/`;
      for (const relative of [...this.notes.keys()]) {
        if (relative.startsWith(prefix)) this.remove(relative);
      }
    });
    watcher.on('error', (error) => {
      this.logger.warn({ vault: this.vault, err: errorCode(error) }, 'vault watcher');
    });
    this.watcher = watcher;
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  }

  /**
   * Reads every note once. Reads are synchronous (a promise read costs several thread-pool trips
   * a file) but taken in small batches with a yield between, so tool calls are answered while a
   * large vault is indexed.
   */
  private async scan(): Promise<void> {
    const started = performance.now();
    const queue = await this.listNotes();
    for (let i = 0; i < queue.length && !this.closed; i += SCAN_BATCH) {
      for (const relative of queue.slice(i, i + SCAN_BATCH)) this.readNow(relative);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.logger.info(
      { vault: this.vault, notes: this.notes.size, ms: Math.round(performance.now() - started) },
      'vault indexed',
    );
  }

  /** `refresh` in one synchronous step; a read the watcher started earlier then gives way. */
  private readNow(relative: string): void {
    this.reads.set(relative, ++this.readSeq);
    this.apply(relative, readNoteFile(this.vault, relative));
  }

  private async listNotes(): Promise<string[]> {
    const out: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries: fs.Dirent[];
      try {
        entries = await fs.promises.readdir(dir, { withFileTypes: true });
      } catch (error) {
        this.logger.warn({ err: errorCode(error) }, 'cannot list a vault folder');
        return;
      }
      for (const entry of entries) {
        if (entry.name.startsWith('.') || SKIPPED_DIRS.has(entry.name)) continue;
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (entry.isFile() && entry.name.toLowerCase().endsWith('.md')) {
          out.push(toVaultPath(this.vault, full));
        }
      }
    };
    await walk(this.vault);
    return out;
  }
}

function sameNote(a: VaultNote, b: VaultNote): boolean {
  return (
    a.title === b.title &&
    a.memoryId === b.memoryId &&
    a.body === b.body &&
    a.tags.join('\n') === b.tags.join('\n')
  );
}
