// Compaction of memories.jsonl and relations.jsonl: rewritten from their live records.
import type { Logger } from 'pino';
import type { LiveRecords } from '../live-records.js';
import type { LineRef, MemoryTable } from '../memory-table.js';
import { withNamespace } from '../namespace-view.js';
import { storedShape } from '../records.js';
import { type JsonlFile, RawLine } from './jsonl-file.js';

export type LogKind = 'memories' | 'relations';

/**
 * Rewrites memories.jsonl and relations.jsonl from their live records (JsonlFile.rewrite: temp
 * file, fsync, rename), every namespace's: when stale lines outnumber live records, after bad
 * lines were quarantined, or on demand. Only under the data dir lock, checked before each rewrite.
 */
export class LogCompaction {
  constructor(
    private readonly files: Record<LogKind, JsonlFile>,
    private readonly live: LiveRecords,
    private readonly assertHeld: () => void,
    private readonly logger: Logger,
    /** A file is compacted once it has at least this many lines. */
    private readonly minLines: number,
  ) {}

  ifStale(): void {
    for (const kind of ['memories', 'relations'] as const) {
      const live = kind === 'memories' ? this.live.memoryCount : this.live.relationCount;
      const lines = this.files[kind].lineCount;
      if (lines >= this.minLines && lines - live > live) this.tryRewrite(kind);
    }
  }

  /** A rewrite that only tidies: the log holds the same records without it, so it may fail. */
  tryRewrite(kind: LogKind): void {
    try {
      this.rewrite(kind);
    } catch (error) {
      this.logger.warn(
        { file: this.files[kind].name, err: (error as Error).message },
        `could not compact ${this.files[kind].name}: it stays as it is, and is tried again later`,
      );
    }
  }

  rewrite(kind: LogKind): void {
    this.assertHeld();
    if (kind === 'relations') {
      this.files.relations.rewrite(this.storedRelations());
    } else {
      // A memory's line is copied as it is; then each table is told where its lines went.
      const moved: { table: MemoryTable; id: string }[] = [];
      const refs: LineRef[] = [];
      this.files.memories.rewrite(this.storedMemories(moved), (offset, length) =>
        refs.push({ offset, length }),
      );
      moved.forEach(({ table, id }, i) => {
        table.move(id, refs[i] as LineRef);
      });
    }
    this.logger.debug({ file: this.files[kind].name }, 'compacted');
  }

  private *storedMemories(moved: { table: MemoryTable; id: string }[]): Iterable<unknown> {
    for (const space of this.live.spaces()) {
      const table = space.memories;
      for (const id of table.keys()) {
        const ref = table.ref(id);
        moved.push({ table, id });
        if (ref) {
          yield new RawLine(this.files.memories.readAt(ref.offset, ref.length).toString('utf8'));
        } else {
          yield withNamespace(storedShape(table.get(id)), space.name);
        }
      }
    }
  }

  private *storedRelations(): Iterable<unknown> {
    for (const space of this.live.spaces()) {
      for (const record of space.relations.values()) {
        yield withNamespace(storedShape(record), space.name);
      }
    }
  }
}
