import fs from 'node:fs';
import path from 'node:path';
import { overwriteFile, readIfExists } from '../platform/durable-file.js';

/** In the data dir while a write to several logs is under way, and after a crash cut it short. */
export const JOURNAL_FILE = 'transaction.json';

/** What one log gets in a transaction: `text` (whole lines) appended at `start` of inode `ino`. */
export interface JournalPart {
  file: string;
  ino: number;
  start: number;
  text: string;
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
   * record itself was cut short (then no append had started: there is nothing to finish).
   */
  pending(): JournalPart[] | null | undefined {
    const text = readIfExists(this.path);
    if (text === undefined) return undefined;
    try {
      const { parts } = JSON.parse(text) as { parts: JournalPart[] };
      return Array.isArray(parts) ? parts : null;
    } catch {
      return null;
    }
  }

  end(): void {
    fs.rmSync(this.path, { force: true });
  }
}
