// The transaction journal (transaction.json): what makes a write to several logs all or nothing.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { overwriteFile, readIfExists, syncDir } from '../../platform/durable-file.js';
import { errorCode } from '../../platform/errors.js';
import { StoreError } from '../errors.js';
import { toLines } from '../jsonl-lines.js';
import { type JsonlFile, WriteError } from './jsonl-file.js';

/** In the data dir while a write to several logs is under way, and after a crash cut it short. */
export const JOURNAL_FILE = 'transaction.json';

/** What one log gets in a transaction: `text` (whole lines) appended at `start` of inode `ino`. */
export interface JournalPart {
  file: string;
  ino: number;
  start: number;
  text: string;
}

/** The lines one log gets in a transaction. */
export interface LogAppend {
  file: JsonlFile;
  lines: unknown[];
}

/**
 * The record that makes a write to several logs all or nothing across a crash: every log's lines
 * are written down here (synced, and its folder) before the first append, and the record goes
 * once the last append is synced. A crash in between leaves it, and whoever takes the lock next
 * finishes the appends from it before reading anything. The caller holds the data dir lock.
 */
export class TransactionJournal {
  readonly path: string;

  constructor(dataDir: string) {
    this.path = path.join(dataDir, JOURNAL_FILE);
  }

  begin(parts: readonly JournalPart[]): void {
    // Over, not `wx`: whatever is there was read (and finished) under this lock already. A record
    // cut short by a crash is told by `pending`, as no append had begun then.
    overwriteFile(this.path, JSON.stringify({ parts }));
  }

  /**
   * The parts of a transaction a crash interrupted; undefined when there is none, null when the
   * record itself was cut short (then no append had started: there is nothing to finish), and
   * `{ unreadable }` when it is whole JSON but not a record mnemo wrote (a hand edit, another
   * program, a damaged disk): what it says is not finished, and `unreadable` says why.
   */
  pending(): JournalPart[] | null | undefined | { unreadable: string } {
    let text: string | undefined;
    try {
      text = readIfExists(this.path);
    } catch (error) {
      const code = errorCode(error);
      if (code !== 'ELOOP' && code !== 'ENOTREG' && code !== 'EISDIR') throw error;
      // Not a record mnemo wrote (it writes it as a file, never through a link): what it says
      // cannot be trusted to finish anything, and each write would fail at it.
      throw new StoreError(
        `${this.path} is not a file mnemo wrote (${code === 'ELOOP' ? 'a link' : code === 'EISDIR' ? 'a folder' : 'a FIFO or device'}): remove it, then start again`,
      );
    }
    if (text === undefined) return undefined;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      return null;
    }
    const parts = (record as { parts?: unknown } | null)?.parts;
    if (!Array.isArray(parts)) return { unreadable: 'it holds no list of parts' };
    const bad = parts.findIndex((part) => !isPart(part));
    if (bad >= 0) return { unreadable: `its part ${bad} is not a file, inode, start and text` };
    return parts as JournalPart[];
  }

  /**
   * Appends to each log its lines. Several logs are written as one transaction: the journal
   * holds all of it first, so that a crash at any point leaves all of it (finished at the next
   * lock) or none of it. Answers where each file's first line went.
   */
  appendAll(parts: readonly LogAppend[]): Map<JsonlFile, number> {
    const starts = new Map<JsonlFile, number>();
    const writes = parts.filter((p) => p.lines.length > 0);
    if (writes.length < 2) {
      for (const { file, lines } of writes) starts.set(file, file.append(lines));
      return starts;
    }
    const texts = writes.map(({ file, lines }) => ({
      file,
      text: toLines(lines),
      count: lines.length,
    }));
    const record = texts.map(({ file, text }) => ({
      file: file.name,
      start: file.repairTail(),
      ino: file.inode(),
      text,
    }));
    try {
      this.begin(record);
    } catch (error) {
      throw this.undo([], error as Error, this.path, false);
    }
    const done: { file: JsonlFile; start: number; count: number }[] = [];
    try {
      for (const { file, text, count } of texts) {
        done.push({ file, start: file.appendText(text, count), count });
      }
    } catch (error) {
      const failed = texts[done.length]?.file.path ?? path.dirname(this.path);
      throw this.undo(done, error as Error, failed, true);
    }
    this.end();
    for (const { file, start } of done) starts.set(file, start);
    return starts;
  }

  /**
   * After a failed transaction: takes back what was appended and the journal, or, when that
   * fails too, leaves the journal (`recorded`: it is whole and synced) to finish it.
   */
  private undo(
    done: { file: JsonlFile; start: number; count: number }[],
    error: Error,
    failed: string,
    recorded: boolean,
  ): Error {
    const why = errorCode(error);
    if (!(error instanceof WriteError) || error.undone) {
      try {
        for (const { file, start, count } of done) file.cutBack(start, count);
        this.end();
        return new WriteError(
          `could not write to ${failed} (${why}): nothing was written. Free disk space or fix ` +
            'the disk, then try again',
          true,
          { cause: error },
        );
      } catch {
        // Left to the journal, as below.
      }
    }
    // What is on disk is not known: the journal finishes it under the next lock, and the lines
    // are read from the files then.
    for (const { file, start, count } of done) file.rewind(start, count);
    if (!recorded) {
      return new WriteError(
        `could not write ${failed} (${why}) nor remove it: the next write or start makes the ` +
          'change if the record is whole. Fix the disk (free space, errors), then check before ' +
          'making it again',
        false,
        { cause: error },
      );
    }
    return new WriteError(
      `writing to ${failed} failed (${why}) and could not be taken back: the change is ` +
        `recorded in ${this.path} and is completed by the next write or start. Do not ` +
        'make it again; fix the disk (free space, errors)',
      false,
      { cause: error },
    );
  }

  /**
   * Finishes, in `files`, a transaction that a crash (or a failed disk) left half written.
   * Before anything is read under the lock.
   */
  finish(files: readonly JsonlFile[], logger: Logger): void {
    const parts = this.pending();
    if (parts === undefined) return;
    if (parts !== null && !Array.isArray(parts)) {
      this.setAside(parts.unreadable, logger);
      return;
    }
    for (const part of parts ?? []) {
      const file = files.find((f) => f.name === part.file);
      const finished = file?.finishAppend(part.ino, part.start, part.text);
      if (!finished) {
        logger.warn(
          { file: part.file, journal: this.path },
          `a transaction left in ${this.path} no longer matches ${part.file}: not finished there`,
        );
      }
    }
    logger.warn(
      { journal: this.path, files: parts?.map((p) => p.file) ?? [] },
      parts
        ? 'finished a write that a crash interrupted'
        : 'a crash cut short the record of a write before the write began: nothing of it was made',
    );
    this.end();
  }

  end(): void {
    fs.rmSync(this.path, { force: true });
  }

  /**
   * A record mnemo did not write: nothing of it is made, and it is kept beside the logs, under
   * UNREADABLE_SUFFIX, for whoever wants to look (the one kept before is replaced).
   */
  private setAside(why: string, logger: Logger): void {
    const kept = `${this.path}${UNREADABLE_SUFFIX}`;
    fs.renameSync(this.path, kept);
    syncDir(path.dirname(this.path));
    logger.warn(
      { journal: this.path, kept },
      `${this.path} is not a record of a write mnemo made (${why}): nothing of it was made; ` +
        `it is kept as ${kept}`,
    );
  }
}

/** What an unreadable transaction record is renamed with. */
export const UNREADABLE_SUFFIX = '.unreadable';

/** Whether `value` is a part as `begin` writes it. */
function isPart(value: unknown): value is JournalPart {
  const part = value as Partial<JournalPart> | null;
  return (
    typeof part === 'object' &&
    part !== null &&
    typeof part.file === 'string' &&
    typeof part.text === 'string' &&
    // Any whole number: an inode past 2^53 (some file systems) comes back from fstat rounded.
    Number.isInteger(part.ino) &&
    (part.ino as number) >= 0 &&
    Number.isSafeInteger(part.start) &&
    (part.start as number) >= 0
  );
}
