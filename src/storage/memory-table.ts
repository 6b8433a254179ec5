// The live memories of one namespace, as a map from id to record that does not keep the records:
// an engine that can read a memory's line again (the JSONL log) keeps only where the line is, and
// a record is parsed when it is asked for. A few recently asked-for records are kept parsed.
import { MEMORY_STATUSES, type MemoryRecord, type MemoryStatus } from './records.js';

/** Where a memory's line is in the log: its first byte and its length in bytes (no newline). */
export interface LineRef {
  offset: number;
  length: number;
}

/** Reads the record whose line is at `offset` (`length` bytes) in the log. */
export type LineReader = (offset: number, length: number) => MemoryRecord;

/** How many parsed records a table keeps for the next ask: the ones a page shows, and then some. */
const CACHE_SIZE = 4096;
const INITIAL_SLOTS = 1024;

/**
 * A `ReadonlyMap<string, MemoryRecord>` over slots: by slot, the line's offset and length in typed
 * arrays, or the record itself when it has no line to read again (a database engine, a record
 * put without a ref). Iteration order is a Map's: first insertion, kept through updates.
 * Iterating reads every line it holds a ref of, without keeping what it parsed.
 */
export class MemoryTable implements ReadonlyMap<string, MemoryRecord> {
  private readonly slotOf = new Map<string, number>();
  private offsets = new Float64Array(INITIAL_SLOTS);
  private lengths = new Int32Array(INITIAL_SLOTS);
  /** By slot: 1 + the index of the memory's status in MEMORY_STATUSES. */
  private statuses = new Uint8Array(INITIAL_SLOTS);
  /** Records with no line ref, by slot (their length is -1). */
  private readonly resident = new Map<number, MemoryRecord>();
  private readonly free: number[] = [];
  private nextSlot = 0;
  /** Recently parsed records, least recent first. */
  private readonly cache = new Map<string, MemoryRecord>();

  constructor(private readonly reader?: LineReader) {}

  get size(): number {
    return this.slotOf.size;
  }

  has(id: string): boolean {
    return this.slotOf.has(id);
  }

  get(id: string): MemoryRecord | undefined {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return undefined;
    const cached = this.cache.get(id);
    if (cached) {
      // Most recent last.
      this.cache.delete(id);
      this.cache.set(id, cached);
      return cached;
    }
    const record = this.recordAt(slot);
    if (this.lengths[slot] !== -1) this.remember(id, record);
    return record;
  }

  /** Where memory `id`'s line is, when the table reads it from the log. */
  ref(id: string): LineRef | undefined {
    const slot = this.slotOf.get(id);
    if (slot === undefined || this.lengths[slot] === -1) return undefined;
    return { offset: this.offsets[slot] as number, length: this.lengths[slot] as number };
  }

  /** Puts `record`; with `ref`, only where its line is is kept (and the record for a while). */
  set(record: MemoryRecord, ref?: LineRef): void {
    let slot = this.slotOf.get(record.id);
    if (slot === undefined) {
      slot = this.free.pop() ?? this.nextSlot++;
      if (slot >= this.offsets.length) this.grow();
      this.slotOf.set(record.id, slot);
    }
    this.statuses[slot] = statusCode(record.status);
    if (ref && this.reader) {
      this.resident.delete(slot);
      this.offsets[slot] = ref.offset;
      this.lengths[slot] = ref.length;
      this.remember(record.id, record);
    } else {
      this.resident.set(slot, record);
      this.lengths[slot] = -1;
      this.cache.delete(record.id);
    }
  }

  /** Puts memory `id` by where its line is alone (a start from the sidecar): parsed when asked. */
  setRef(id: string, offset: number, length: number, status: number): void {
    let slot = this.slotOf.get(id);
    if (slot === undefined) {
      slot = this.free.pop() ?? this.nextSlot++;
      if (slot >= this.offsets.length) this.grow(slot + 1);
      this.slotOf.set(id, slot);
    }
    this.resident.delete(slot);
    this.cache.delete(id);
    this.offsets[slot] = offset;
    this.lengths[slot] = length;
    this.statuses[slot] = status;
  }

  /** The ids of the memories of `status`, without reading a record. */
  idsWithStatus(status: MemoryStatus): string[] {
    const code = statusCode(status);
    const out: string[] = [];
    for (const [id, slot] of this.slotOf) if (this.statuses[slot] === code) out.push(id);
    return out;
  }

  /** Points memory `id` at another copy of the same line (the log was compacted). */
  move(id: string, ref: LineRef): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined || this.lengths[slot] === -1) return;
    this.offsets[slot] = ref.offset;
    this.lengths[slot] = ref.length;
  }

  delete(id: string): boolean {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return false;
    this.slotOf.delete(id);
    this.resident.delete(slot);
    this.cache.delete(id);
    this.free.push(slot);
    return true;
  }

  clear(): void {
    this.slotOf.clear();
    this.resident.clear();
    this.cache.clear();
    this.free.length = 0;
    this.nextSlot = 0;
  }

  *keys(): MapIterator<string> {
    yield* this.slotOf.keys();
  }

  *values(): MapIterator<MemoryRecord> {
    for (const [id, slot] of this.slotOf) yield this.cache.get(id) ?? this.recordAt(slot);
  }

  *entries(): MapIterator<[string, MemoryRecord]> {
    for (const [id, slot] of this.slotOf) yield [id, this.cache.get(id) ?? this.recordAt(slot)];
  }

  [Symbol.iterator](): MapIterator<[string, MemoryRecord]> {
    return this.entries();
  }

  forEach(
    callback: (value: MemoryRecord, key: string, map: ReadonlyMap<string, MemoryRecord>) => void,
    thisArg?: unknown,
  ): void {
    for (const [id, record] of this.entries()) callback.call(thisArg, record, id, this);
  }

  /**
   * Every memory's id and where its line is, in iteration order; false (having visited some)
   * when one has no line to read again.
   */
  everyRef(visit: (id: string, offset: number, length: number, status: number) => void): boolean {
    for (const [id, slot] of this.slotOf) {
      const length = this.lengths[slot] as number;
      if (length === -1) return false;
      visit(id, this.offsets[slot] as number, length, this.statuses[slot] as number);
    }
    return true;
  }

  private recordAt(slot: number): MemoryRecord {
    const length = this.lengths[slot] as number;
    if (length === -1 || !this.reader) return this.resident.get(slot) as MemoryRecord;
    return this.reader(this.offsets[slot] as number, length);
  }

  private remember(id: string, record: MemoryRecord): void {
    this.cache.delete(id);
    this.cache.set(id, record);
    if (this.cache.size > CACHE_SIZE) {
      const oldest = this.cache.keys().next().value as string;
      this.cache.delete(oldest);
    }
  }

  private grow(atLeast = 0): void {
    const size = Math.max(atLeast, this.offsets.length * 2);
    const offsets = new Float64Array(size);
    offsets.set(this.offsets);
    this.offsets = offsets;
    const lengths = new Int32Array(size);
    lengths.set(this.lengths);
    this.lengths = lengths;
    const statuses = new Uint8Array(size);
    statuses.set(this.statuses);
    this.statuses = statuses;
  }
}

/** A status as the table (and the sidecar) keeps it: 1 + its index in MEMORY_STATUSES. */
export function statusCode(status: MemoryStatus): number {
  return MEMORY_STATUSES.indexOf(status) + 1;
}

/** The ids of the live memories of `status` in `memories`: a table says without reading them. */
export function idsWithStatus(
  memories: ReadonlyMap<string, MemoryRecord>,
  status: MemoryStatus,
): string[] {
  if (memories instanceof MemoryTable) return memories.idsWithStatus(status);
  const out: string[] = [];
  for (const [id, record] of memories) if (record.status === status) out.push(id);
  return out;
}
