// Reading the logs into the live records: what was appended since the last read (by this
// process or another), torn tails repaired under the lock, and bad lines kept in quarantine.
import type { Logger } from 'pino';
import type { DirLock } from '../../platform/dir-lock.js';
import type { BadLine } from '../jsonl-lines.js';
import type { LiveRecords } from '../live-records.js';
import type { LineRef } from '../memory-table.js';
import { lineNamespace } from '../namespace-view.js';
import { isTombstone, RecordError, toMemoryRecord, toRelationRecord } from '../records.js';
import type { TransactionJournal } from './journal.js';
import type { JsonlFile } from './jsonl-file.js';
import type { LogCompaction, LogKind } from './log-compaction.js';

type Kind = LogKind;

export interface LogReaderDeps {
  files: Record<Kind, JsonlFile>;
  live: LiveRecords;
  journal: TransactionJournal;
  lock: DirLock;
  compaction: LogCompaction;
  /** quarantine.jsonl: where bad lines are kept before they are cut off or rewritten away. */
  quarantineFile: JsonlFile;
  logger: Logger;
  clock: () => number;
  /** Throws once the store is closed. */
  assertOpen: () => void;
}

/** The order the files' bad lines are quarantined in. */
const KIND_ORDER: Record<Kind, number> = { memories: 0, relations: 1 };

/**
 * Reads memories.jsonl and relations.jsonl from where it last stopped into the live records (a
 * line of a memory is kept as where it is, read again on demand). A line that is not a record
 * waits until the lock is held, then goes to quarantine and the log is rewritten without it.
 */
export class LogReader {
  /** `at`: where the line is in its file, the order they are quarantined in. */
  private readonly pendingCorrupt: { kind: Kind; line: BadLine; reason: string; at: number }[] = [];

  constructor(private readonly deps: LogReaderDeps) {}

  /** While a long load reads ahead: takes a memory line from what was read of it (read-ahead.ts). */
  takeLine: ((offset: number, length: number) => boolean) | undefined;
  /** With it: the length of the memory line at an offset, as the read-ahead read it. */
  knownLine: ((offset: number) => number | undefined) | undefined;

  /** Bad lines read and not yet quarantined (that is done under the lock). */
  get hasPendingCorrupt(): boolean {
    return this.pendingCorrupt.length > 0;
  }

  /** Reads what was appended since the last call; true when `maxBytes` left some unread. */
  catchUp(locked: boolean, maxBytes?: number): boolean {
    this.deps.assertOpen();
    if (locked) this.deps.journal.finish(Object.values(this.deps.files), this.deps.logger);
    let more = false;
    for (const kind of ['memories', 'relations'] as const) {
      const file = this.deps.files[kind];
      const read = file.readNew({
        maxBytes,
        skip: kind === 'memories' ? this.takeLine : undefined,
        known: kind === 'memories' ? this.knownLine : undefined,
        visit: (value, offset, length) => this.applyLine(kind, value, { offset, length }),
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
        this.pendingCorrupt.push({ kind, line, reason: 'unparsable JSON', at: line.offset });
      }
      if (locked && read.tail) {
        this.deps.lock.assertHeld();
        // Only a writer holding the lock writes, so an unfinished line seen under the lock was
        // cut short by a crash and never acknowledged: kept in quarantine and cut off. A whole
        // record without its newline (an editor dropped it) is ended and read.
        file.repairTail();
        file.readNew({
          visit: (value, offset, length) => this.applyLine(kind, value, { offset, length }),
        });
      }
    }
    if (locked && this.pendingCorrupt.length > 0) {
      this.deps.lock.assertHeld();
      const kinds = new Set<Kind>();
      // In the order of the files, whichever way the lines were read (a long load's slices end
      // where the work ahead lets them, and a slice's unparsable lines come after its records).
      const byPlace = this.pendingCorrupt
        .splice(0)
        .sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.at - b.at);
      for (const { kind, line, reason } of byPlace) {
        this.quarantine(this.deps.files[kind].name, line, reason);
        kinds.add(kind);
      }
      // Rewrite without the bad lines so the next start does not quarantine them again.
      for (const kind of kinds) this.deps.compaction.tryRewrite(kind);
    }
    if (locked) this.deps.compaction.ifStale();
    return more;
  }

  private applyLine(kind: Kind, value: unknown, ref: LineRef): void {
    try {
      if (kind === 'memories') this.applyMemory(value, ref);
      else this.applyRelation(value);
    } catch (error) {
      if (!(error instanceof RecordError)) throw error;
      this.pendingCorrupt.push({
        kind,
        line: { offset: -1, text: JSON.stringify(value) },
        reason: `invalid record: ${error.message}`,
        at: ref.offset,
      });
    }
  }

  quarantine(file: string, line: BadLine, reason: string): void {
    this.deps.logger.warn(
      { file, offset: line.offset, reason },
      `kept a bad line of ${file} in ${this.deps.quarantineFile.name}`,
    );
    this.deps.quarantineFile.append([
      {
        file,
        offset: line.offset,
        reason,
        at: this.deps.clock(),
        line: line.text,
      },
    ]);
  }

  private resetKind(kind: Kind): void {
    if (kind === 'memories') this.deps.live.clearMemories();
    else this.deps.live.clearRelations();
  }

  applyMemory(value: unknown, ref: LineRef): void {
    if (isTombstone(value)) {
      this.deps.live.dropMemory(value.id);
      return;
    }
    const record = toMemoryRecord(value);
    this.deps.live.putMemory(lineNamespace(value), record, ref);
  }

  applyRelation(value: unknown): void {
    if (isTombstone(value)) {
      this.deps.live.dropRelation(value.id);
      return;
    }
    const relation = toRelationRecord(value);
    this.deps.live.putRelation(lineNamespace(value), relation);
  }
}
