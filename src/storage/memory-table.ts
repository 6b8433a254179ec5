// The live memories of one namespace, as a map from id to record that does not keep the records:
// an engine that can read a memory's line again (the JSONL log) keeps only where the line is, and
// a record is parsed when it is asked for. A few recently asked-for records are kept parsed.
import { KeyIndex, stringHash } from '../platform/key-index.js';
import { withRoom } from '../platform/room.js';
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
/** How far past CACHE_SIZE the cache grows before its oldest are let go. */
const CACHE_SLACK = 1024;
const INITIAL_SLOTS = 1024;

/**
 * A `ReadonlyMap<string, MemoryRecord>` over slots: by slot, the id, the line's offset, length
 * and the memory's status in typed arrays, or the record itself when it has no line to read
 * again (a database engine). Slots are given in order and not reused, so iterating them is a
 * Map's order: first insertion, kept through updates. Iterating reads every line it holds a ref
 * of, without keeping what it parsed.
 */
export class MemoryTable implements ReadonlyMap<string, MemoryRecord> {
  /** By slot: the id (undefined once deleted). */
  private ids: (string | undefined)[] = [];
  private readonly slotOf = new KeyIndex<string>(stringHash, (slot) => this.ids[slot]);
  private offsets = new Float64Array(INITIAL_SLOTS);
  /** By slot: the line's length, or -1 for a record kept whole in `resident`. */
  private lengths = new Int32Array(INITIAL_SLOTS);
  /** By slot: 1 + the index of the memory's status in MEMORY_STATUSES. */
  private statuses = new Uint8Array(INITIAL_SLOTS);
  private resident = new Map<number, MemoryRecord>();
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
    const cached = this.cache.get(id);
    if (cached) {
      // Most recent last.
      this.cache.delete(id);
      this.cache.set(id, cached);
      return cached;
    }
    const slot = this.slotOf.get(id);
    if (slot === undefined) return undefined;
    const record = this.recordAt(slot);
    if (this.lengths[slot] !== -1) this.remember(id, record);
    return record;
  }

  /** Memory `id`'s record, not kept among the recent: for a pass over many (fact-keys.ts). */
  peek(id: string): MemoryRecord | undefined {
    const cached = this.cache.get(id);
    if (cached) return cached;
    const slot = this.slotOf.get(id);
    return slot === undefined ? undefined : this.recordAt(slot);
  }

  /** The ids of the `n` memories added last (fewer when there are fewer), oldest first. */
  newestIds(n: number): string[] {
    // Filled from the end in an array of the size answered: pushed and reversed, a million took
    // a tenth of a second more, after a start, in the way of the calls.
    const out = new Array<string>(Math.min(n, this.size));
    let at = out.length;
    for (let slot = this.ids.length - 1; slot >= 0 && at > 0; slot--) {
      const id = this.ids[slot];
      if (id !== undefined) out[--at] = id;
    }
    return at === 0 ? out : out.slice(at);
  }

  /** Where memory `id`'s line is, when the table reads it from the log. */
  ref(id: string): LineRef | undefined {
    const slot = this.slotOf.get(id);
    if (slot === undefined || this.lengths[slot] === -1) return undefined;
    return { offset: this.offsets[slot] as number, length: this.lengths[slot] as number };
  }

  /** Puts `record`; with `ref`, only where its line is is kept (and the record for a while). */
  set(record: MemoryRecord, ref?: LineRef): void {
    const slot = this.slotFor(record.id);
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

  /**
   * Puts memory `id` by where its line is alone (a start from the sidecar), with its status code
   * (`statusCode`): parsed when asked for.
   */
  setRef(id: string, offset: number, length: number, status: number): void {
    const slot = this.slotFor(id);
    this.resident.delete(slot);
    this.cache.delete(id);
    this.offsets[slot] = offset;
    this.lengths[slot] = length;
    this.statuses[slot] = status;
  }

  /** `setRef` of a memory the table does not hold (a load read it on another thread). */
  addRef(id: string, offset: number, length: number, status: number): void {
    const slot = this.ids.length;
    if (slot >= this.offsets.length) this.grow(slot + 1);
    this.ids.push(id);
    this.slotOf.set(id, slot);
    this.offsets[slot] = offset;
    this.lengths[slot] = length;
    this.statuses[slot] = status;
  }

  /**
   * Puts many memories by where their lines are at once (a start from the sidecar), into an
   * empty table: the same as `setRef` for each. `buckets`: the table from id to slot as kept
   * (slotBuckets, its values these slots), taken back when it can be one, else built again.
   */
  restoreRefs(
    ids: readonly string[],
    pick: ArrayLike<number>,
    offsets: Float64Array,
    lengths: Int32Array,
    statuses: Uint8Array,
    buckets?: Int32Array,
  ): void {
    if (this.ids.length > 0) {
      for (let p = 0; p < pick.length; p++) {
        const i = pick[p] as number;
        this.setRef(
          ids[i] as string,
          offsets[i] as number,
          lengths[i] as number,
          statuses[i] as number,
        );
      }
      return;
    }
    this.grow(withRoom(pick.length));
    const from = pick[0] ?? 0;
    let run = true;
    for (let p = 0; p < pick.length && run; p++) run = pick[p] === from + p;
    if (run) {
      // One run of the columns (a data dir of one namespace, or the default's memories in a row):
      // copied whole, where a million one at a time took 0.15 s of a start.
      const to = from + pick.length;
      this.ids = ids.slice(from, to);
      this.offsets.set(offsets.subarray(from, to));
      this.lengths.set(lengths.subarray(from, to));
      this.statuses.set(statuses.subarray(from, to));
    } else {
      for (let slot = 0; slot < pick.length; slot++) {
        const i = pick[slot] as number;
        this.ids.push(ids[i] as string);
        this.offsets[slot] = offsets[i] as number;
        this.lengths[slot] = lengths[i] as number;
        this.statuses[slot] = statuses[i] as number;
      }
    }
    if (!buckets || !this.slotOf.adopt(buckets, this.ids.length, pick.length)) {
      this.slotOf.rebuild(this.ids.length);
    }
  }

  /** The buckets of the table from id to slot, a copy (KeyIndex.buckets): a sidecar keeps them. */
  slotBuckets(): Int32Array {
    return this.slotOf.buckets();
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
    this.ids[slot] = undefined;
    this.resident.delete(slot);
    this.cache.delete(id);
    // Slots are not reused (that keeps the order): once most are holes, they are renumbered.
    if (this.ids.length > INITIAL_SLOTS && this.slotOf.size * 2 < this.ids.length) this.renumber();
    return true;
  }

  clear(): void {
    this.ids = [];
    this.slotOf.clear();
    this.resident.clear();
    this.cache.clear();
  }

  /** The ids of the memories of `status`, without reading a record. */
  idsWithStatus(status: MemoryStatus): string[] {
    const code = statusCode(status);
    const out: string[] = [];
    this.ids.forEach((id, slot) => {
      if (id !== undefined && this.statuses[slot] === code) out.push(id);
    });
    return out;
  }

  /** The slots given so far (a deleted memory's too): every `slot` answers one below it. */
  get slots(): number {
    return this.ids.length;
  }

  /** The id of the memory at `slot`, if one is there. */
  idAt(slot: number): string | undefined {
    return this.ids[slot];
  }

  /** Memory `id`'s slot (what `everyRef` visits it with), if it is here. */
  slot(id: string): number | undefined {
    return this.slotOf.get(id);
  }

  /**
   * Every memory's id, where its line is, its status code and its slot, in iteration order;
   * false (having visited some) when one has no line to read again. With `from` and `count`,
   * the slots from `from` on, `count` of them at most: then the slot to go on from, or true when
   * none is left.
   */
  everyRef(
    visit: (id: string, offset: number, length: number, status: number, slot: number) => void,
    from = 0,
    count = Number.POSITIVE_INFINITY,
  ): boolean | number {
    const end = Math.min(this.ids.length, from + count);
    for (let slot = from; slot < end; slot++) {
      const id = this.ids[slot];
      if (id === undefined) continue;
      const length = this.lengths[slot] as number;
      if (length === -1) return false;
      visit(id, this.offsets[slot] as number, length, this.statuses[slot] as number, slot);
    }
    return end < this.ids.length ? end : true;
  }

  /**
   * The bytes the memories' lines take in the log, newlines included, from the lengths kept: a
   * record kept whole (no line to read again) is measured by `measure`.
   */
  lineBytes(measure: (record: MemoryRecord) => number): number {
    let bytes = 0;
    for (let slot = 0; slot < this.ids.length; slot++) {
      if (this.ids[slot] === undefined) continue;
      const length = this.lengths[slot] as number;
      bytes += length === -1 ? measure(this.recordAt(slot)) : length + 1;
    }
    return bytes;
  }

  *keys(): MapIterator<string> {
    for (const id of this.ids) if (id !== undefined) yield id;
  }

  *values(): MapIterator<MemoryRecord> {
    for (let slot = 0; slot < this.ids.length; slot++) {
      const id = this.ids[slot];
      if (id !== undefined) yield this.cache.get(id) ?? this.recordAt(slot);
    }
  }

  *entries(): MapIterator<[string, MemoryRecord]> {
    for (let slot = 0; slot < this.ids.length; slot++) {
      const id = this.ids[slot];
      if (id !== undefined) yield [id, this.cache.get(id) ?? this.recordAt(slot)];
    }
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

  private slotFor(id: string): number {
    let slot = this.slotOf.get(id);
    if (slot === undefined) {
      slot = this.ids.length;
      if (slot >= this.offsets.length) this.grow(slot + 1);
      this.ids.push(id);
      this.slotOf.set(id, slot);
    }
    return slot;
  }

  private recordAt(slot: number): MemoryRecord {
    const length = this.lengths[slot] as number;
    if (length === -1 || !this.reader) return this.resident.get(slot) as MemoryRecord;
    return this.reader(this.offsets[slot] as number, length);
  }

  private remember(id: string, record: MemoryRecord): void {
    this.cache.delete(id);
    this.cache.set(id, record);
    // The oldest are let go a batch at a time: a Map keeps a deleted entry's hole until it
    // rehashes, so finding the oldest one alone walked thousands of holes (2 s of a 1M load).
    if (this.cache.size > CACHE_SIZE + CACHE_SLACK) {
      let drop = this.cache.size - CACHE_SIZE;
      for (const oldest of this.cache.keys()) {
        this.cache.delete(oldest);
        if (--drop === 0) break;
      }
    }
  }

  private grow(atLeast: number): void {
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

  /** Closes the holes deleted memories left, keeping the order. */
  private renumber(): void {
    const ids: string[] = [];
    const resident = new Map<number, MemoryRecord>();
    for (let slot = 0; slot < this.ids.length; slot++) {
      const id = this.ids[slot];
      if (id === undefined) continue;
      const to = ids.length;
      ids.push(id);
      this.offsets[to] = this.offsets[slot] as number;
      this.lengths[to] = this.lengths[slot] as number;
      this.statuses[to] = this.statuses[slot] as number;
      const record = this.resident.get(slot);
      if (record) resident.set(to, record);
    }
    this.ids = ids;
    this.resident = resident;
    this.slotOf.rebuild(ids.length);
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
