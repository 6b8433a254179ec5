// Reading forgotten.jsonl back: the last copy of a memory that gc or delete_memory removed.
import path from 'node:path';
import { setImmediate } from 'node:timers/promises';
import type { Logger } from 'pino';
import { DEFAULT_NAMESPACE } from '../engine.js';
import type { BadLine } from '../jsonl-lines.js';
import { type MemoryRecord, toMemoryRecord } from '../records.js';
import { JsonlFile } from './jsonl-file.js';

/** Bytes of forgotten.jsonl read between two turns of the event loop. */
const SLICE_BYTES = 256 * 1024;

interface ForgottenLine {
  ns: string;
  offset: number;
  length: number;
}

/**
 * Where the last forgotten copy of each memory is in forgotten.jsonl, by id: read once, in
 * slices with a turn of the event loop between, then only what was appended since. The file
 * grows with every namespace's deletions; reading it whole at each restore held every other
 * call for as long as the file was large.
 */
export class ForgottenIndex {
  private readonly file: JsonlFile;
  private readonly name: string;
  /** In the order each id was last forgotten. */
  private readonly lines = new Map<string, ForgottenLine>();
  private reading: Promise<void> | undefined;

  constructor(
    filePath: string,
    private readonly logger: Logger,
  ) {
    this.file = new JsonlFile(filePath);
    this.name = path.basename(filePath);
  }

  /** The last copy of memory `id` of namespace `ns`, or undefined. */
  async find(ns: string, id: string): Promise<MemoryRecord | undefined> {
    await this.catchUp();
    const line = this.lines.get(id);
    if (line === undefined || line.ns !== ns) return undefined;
    return this.recordAt(line);
  }

  /** The last copy of each memory of `ns` that `isLive` does not name, oldest first. */
  async recordsOf(ns: string, isLive: (id: string) => boolean): Promise<MemoryRecord[]> {
    await this.catchUp();
    const records: MemoryRecord[] = [];
    for (const [id, line] of this.lines) {
      if (line.ns !== ns || isLive(id)) continue;
      const record = this.recordAt(line);
      if (record) records.push(record);
    }
    return records;
  }

  /** The namespace of each forgotten id. */
  async owners(): Promise<Map<string, string>> {
    await this.catchUp();
    return new Map([...this.lines].map(([id, line]) => [id, line.ns]));
  }

  close(): void {
    this.file.close();
  }

  /** Reads what was appended since the last call; one read at a time, whoever asks. */
  private catchUp(): Promise<void> {
    this.reading ??= this.readSlices().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async readSlices(): Promise<void> {
    for (;;) {
      const read = this.file.readNew({
        maxBytes: SLICE_BYTES,
        onReset: () => this.lines.clear(),
        visit: (value, offset, length) => this.take(value, offset, length),
      });
      for (const bad of read.corrupt) this.takeBad(bad);
      if (!read.more) return;
      await setImmediate();
    }
  }

  private take(value: unknown, offset: number, length: number): void {
    const id = (value as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') return;
    const ns = (value as { namespace?: unknown }).namespace;
    this.lines.delete(id);
    this.lines.set(id, { ns: typeof ns === 'string' ? ns : DEFAULT_NAMESPACE, offset, length });
  }

  /** A line that cannot be read: reported once, its glued record (if any) still indexed. */
  private takeBad(line: BadLine): void {
    const glued = gluedRecord(line.text);
    if (glued !== undefined && !this.lines.has(glued.record.id)) {
      const skipped = Buffer.byteLength(line.text.slice(0, glued.at));
      const length = Buffer.byteLength(line.text) - skipped;
      this.take(glued.record, line.offset + skipped, length);
    }
    this.logger.warn(
      { file: this.name, offset: line.offset, recovered: glued?.record.id ?? null },
      `${this.name} has a line that cannot be read at byte ${line.offset}: ` +
        (glued
          ? `the record at its end (${glued.record.id}) can still be restored`
          : 'a memory in it cannot be restored'),
    );
  }

  private recordAt(line: ForgottenLine): MemoryRecord | undefined {
    const text = this.file.readAt(line.offset, line.length).toString('utf8');
    try {
      const {
        forgotten_at: _at,
        namespace: _ns,
        ...record
      } = JSON.parse(text) as Record<string, unknown>;
      return toMemoryRecord(record);
    } catch {
      return undefined;
    }
  }
}

/**
 * What the search for a glued record may parse, in multiples of the line's length: a line of any
 * size costs a bounded multiple of itself. (Trying each start in turn parsed the whole rest of
 * the line for each: a line of 120 KB of `{"id":"a","x":[` took 2.4 s.)
 */
const GLUE_BUDGET = 4;

/**
 * The record glued at the end of `text`, and the index of the character where it starts. At most
 * one start parses to the end (an object nested in the record closes before the record does), so
 * the starts are tried from the last: the nested ones, short, then the record.
 */
function gluedRecord(text: string): { record: { id: string }; at: number } | undefined {
  const starts: number[] = [];
  const opening = /\{"id":\s*"/g;
  for (let m = opening.exec(text); m !== null; m = opening.exec(text)) {
    if (m.index > 0) starts.push(m.index);
  }
  let budget = GLUE_BUDGET * text.length;
  for (let i = starts.length - 1; i >= 0 && budget > 0; i--) {
    const at = starts[i] as number;
    budget -= text.length - at;
    try {
      const value = JSON.parse(text.slice(at)) as { id?: unknown };
      if (typeof value?.id === 'string') return { record: value as { id: string }, at };
    } catch {
      // Not there: try the one before.
    }
  }
  return undefined;
}
