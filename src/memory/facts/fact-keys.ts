// Which live memories state a fact of the same subject and kind as a new one. The candidates a
// save looks up by words and meaning miss an update that shares no word with what it changes
// ("I live in New York", then "I moved to Berlin") once a store holds many memories: the word
// and meaning neighbours are then others. This index keeps, for each (subject, kind) a memory
// states, which memories state it (for a kind a subject holds many of at once, such as what it
// likes, the value's first word too), so the judge sees the memory the new fact changes however
// many memories there are.
//
// It is worked out from the memories' texts (factsOf, about 30 us a memory), behind the calls:
// once the retriever's index has rested FILL_IDLE_MS, a few ms at a time, newest memories
// first; a lookup first reads the few memories changed since. Once every memory is read, the
// store writes its sidecar again with the index in it (the keys as 53-bit hashes), and the next
// start takes it back instead of reading them all again. Entries are not removed one by one (a
// lookup skips a memory gone or no longer live, and the judge reads the memory's text as it is
// now); all go once every memory of the namespace is gone.

import { FILL_IDLE_MS, whenResting } from '../../search/rank-facts-fill.js';
import { contentHash } from '../../search/string-hash.js';
import type { MemoryWatcher, PersistedPart, WatcherPersistence } from '../../storage/engine.js';
import type { MemoryRecord, MemoryStatus } from '../../storage/records.js';
import { MAX_FACT_TEXT } from './clauses.js';
import { type Fact, factsOf } from './extract.js';
import { SELF } from './subjects.js';

/** The longest a fill holds the thread at a time: a call that comes waits at most this. */
const SLICE_MS = 4;
/** What the sidecar's part is of: another reading of facts makes other keys. */
const FACT_KEYS_VERSION = 1;
/** Memories changed since the last read that a lookup reads first (the newest). */
const LOOKUP_READS = 64;
/** Up to this many memories, a first lookup reads them all (a namespace of a few, just held). */
const SEED_READS = 256;

/** A transcript's speaker label opening a memory: "Caroline: I moved to Denver". */
const SPEAKER = /^(\p{Lu}[\p{L}'-]{0,40}): /u;
/** A label further on: the memory holds several speakers. */
const ANOTHER_SPEAKER = /[.!?]\s+\p{Lu}[\p{L}'-]{0,40}: /u;

/**
 * Who "I" is in `content`: the self, or the one speaker a transcript line names; null when
 * several speakers say "I" in it (a fact of one of them is keyed to none).
 */
function selfOf(whole: string): string | null {
  // What factsOf reads of it: a label past that names no speaker of a fact.
  const content = whole.slice(0, MAX_FACT_TEXT);
  const label = SPEAKER.exec(content);
  if (!label) return ANOTHER_SPEAKER.test(content) ? null : SELF;
  if (ANOTHER_SPEAKER.test(content.slice(label[0].length))) return null;
  return `${SELF}@${(label[1] as string).toLowerCase()}`;
}

/** The first word of a value: two values the judge finds the same share it (values.ts). */
const firstWord = (value: string) => value.split(' ', 1)[0] ?? '';

/**
 * The keys `fact` of a memory of `content` is found by: (subject, kind), or (subject, kind,
 * value) for a kind held many at once. A fact of "I" in a memory of several speakers has none.
 */
function keyOf(fact: Fact, self: string | null): string | null {
  let subject = fact.subject;
  if (subject === SELF || subject.startsWith(`${SELF}:`)) {
    if (self === null) return null;
    subject = self + subject.slice(SELF.length);
  }
  return fact.multi
    ? `${subject}\u0000${fact.kind}\u0000${firstWord(fact.value)}`
    : `${subject}\u0000${fact.kind}`;
}

/** The keys a stored memory's facts are kept under: not a history, not "stopped X" (any kind). */
export function storedKeys(content: string, facts: readonly Fact[] = factsOf(content)): string[] {
  const self = selfOf(content);
  const keys = new Set<string>();
  for (const fact of facts) {
    if (fact.past || fact.kind === 'any') continue;
    const key = keyOf(fact, self);
    if (key !== null) keys.add(key);
  }
  return [...keys];
}

/** The keys a new memory's facts look up: those of the memories they may change. */
export function lookupKeys(content: string, facts: readonly Fact[]): string[] {
  const self = selfOf(content);
  const keys = new Set<string>();
  for (const fact of facts) {
    // "I stopped X" bears on any kind of X: the words find X.
    if (fact.kind === 'any') continue;
    const key = keyOf(fact, self);
    if (key !== null) keys.add(key);
  }
  return [...keys];
}

/**
 * The ids of `stating`, newest first: the `limit` newest and a few more (a memory gone or no
 * longer live is skipped by the caller), else all of them when more than those are needed.
 */
function* newestFirst(stating: ReadonlyMap<string, number>, limit: number): Generator<string> {
  const keep = limit * 2;
  const best: [string, number][] = [];
  for (const entry of stating) {
    if (best.length === keep && entry[1] <= (best[keep - 1] as [string, number])[1]) continue;
    let at = best.length;
    while (at > 0 && (best[at - 1] as [string, number])[1] < entry[1]) at--;
    best.splice(at, 0, entry);
    if (best.length > keep) best.pop();
  }
  for (const [id] of best) yield id;
  if (best.length < stating.size) {
    const rest = [...stating].sort((a, b) => b[1] - a[1]).slice(best.length);
    for (const [id] of rest) yield id;
  }
}

/** The memories the index reads and how it learns it rests. */
export interface FactKeysSource {
  memories: ReadonlyMap<string, MemoryRecord>;
  /** A memory's record for the fill, read without crowding out the records calls use. */
  read(id: string): MemoryRecord | undefined;
  /** The ids of the `n` memories added last, oldest first. */
  newest(n: number): string[];
  /** Moves on with every search and change: unchanged over FILL_IDLE_MS, the calls rest. */
  stamp(): string;
}

export class FactKeys implements MemoryWatcher {
  /** Key (its hash) to the memories that state it, each with when it was last seen changed. */
  private readonly byKey = new Map<number, Map<string, number>>();
  /** Memories changed since the index began, to read (a lookup reads them first). */
  private changes = new ToRead();
  /** The memories there were when it began (the newest `newest`), to read behind the calls. */
  private listed = new ToRead();
  /** The order the next change gets: after every memory listed. */
  private nextOrder = 0;
  /** Whether the memories were listed (after that, the changes are kept to read). */
  private seeded = false;
  /** The store closed: nothing is read behind the calls any more. */
  private closed = false;
  private waiting: NodeJS.Timeout | undefined;
  private slice: NodeJS.Timeout | undefined;
  /** Memories read since the process began (`WatcherPersistence.learnt`). */
  private reads = 0;
  /** Asks the store to write the sidecar again (a JSONL store, once it has read the log). */
  private saveLearnt: (() => void) | undefined;

  constructor(
    private readonly source: FactKeysSource,
    private readonly idleMs = FILL_IDLE_MS,
    private readonly newest = Number.POSITIVE_INFINITY,
  ) {}

  /** Its part of the retriever's sidecar: kept once every memory is read. */
  readonly persisted: WatcherPersistence = {
    name: 'facts',
    save: (keyOf) => this.save(keyOf),
    restore: (part, idOf) => this.restore(part, idOf),
    learnt: () => this.reads,
    loaded: (saveLearnt) => {
      this.saveLearnt = saveLearnt;
      // Read behind the calls from now on, whether or not a save looks anything up.
      this.seed();
      return () => {
        this.closed = true;
        this.stop();
      };
    },
  };

  /** Memories not read yet (after the first lookup or fill). */
  get pending(): number {
    return this.changes.size + this.listed.size;
  }

  changed(id: string): void {
    if (!this.seeded) return;
    this.changes.push(id, this.nextOrder++);
    this.schedule();
  }

  reset(): void {
    this.stop();
    this.byKey.clear();
    this.changes = new ToRead();
    this.listed = new ToRead();
    this.seeded = false;
  }

  /**
   * Up to `limit` live memories (of `statuses`) under each of `keys`, the newest first, after
   * reading the memories changed last. Starts the fill behind the calls on first use.
   */
  lookup(keys: readonly string[], limit: number, statuses: readonly MemoryStatus[]): string[] {
    if (!this.seeded) {
      this.seed();
      // A namespace just loaded is looked up before any rest: a few memories are read at once.
      if (this.listed.size <= SEED_READS) this.read(this.listed, SEED_READS);
    }
    this.read(this.changes, LOOKUP_READS);
    const out: string[] = [];
    const seen = new Set<string>();
    for (const key of keys) {
      const stating = this.byKey.get(contentHash(key));
      if (!stating) continue;
      let taken = 0;
      for (const id of newestFirst(stating, limit)) {
        if (taken >= limit) break;
        if (seen.has(id)) continue;
        seen.add(id);
        const record = this.source.memories.get(id);
        if (!record || !statuses.includes(record.status)) continue;
        out.push(id);
        taken++;
      }
    }
    return out;
  }

  /** Reads every memory the fill would (tests, benches): the index is then whole. */
  fillAll(): void {
    this.seed();
    this.read(this.changes, Number.POSITIVE_INFINITY);
    this.read(this.listed, Number.POSITIVE_INFINITY);
  }

  stop(): void {
    clearInterval(this.waiting);
    this.waiting = undefined;
    clearTimeout(this.slice);
    this.slice = undefined;
  }

  private seed(): void {
    if (this.seeded) return;
    this.seeded = true;
    const ids = this.source.newest(this.newest);
    // A loop: Array.from with a function took 0.16 s for a million.
    const orders = new Array<number>(ids.length);
    for (let i = 0; i < ids.length; i++) orders[i] = i;
    this.listed = new ToRead(ids, orders);
    this.nextOrder = ids.length;
    this.schedule();
  }

  /** Reads up to `count` memories of `from`, the newest first, until `until` (ms) at most. */
  private read(from: ToRead, count: number, until = Number.POSITIVE_INFINITY): boolean {
    for (let n = 0; n < count && from.size > 0; n++) {
      // The clock read every 16 memories: at least 16 are read whatever the time.
      if (n > 0 && (n & 15) === 0 && performance.now() >= until) return true;
      const order = from.orders.pop() as number;
      const id = from.ids.pop() as string;
      let record: MemoryRecord | undefined;
      try {
        record = this.source.read(id);
      } catch {
        // The store closed, or its log cannot be read: the memory stays to read, if ever.
        from.push(id, order);
        return false;
      }
      this.reads++;
      if (record) {
        for (const key of storedKeys(record.content)) this.add(contentHash(key), id, order);
      } else if (this.source.memories.size === 0) {
        // Every memory gone (a replica let go of the namespace): nothing to keep until it is
        // held again, when a lookup lists its memories anew.
        this.reset();
        return true;
      }
    }
    return true;
  }

  private add(hash: number, id: string, order: number): void {
    const stating = this.byKey.get(hash);
    if (stating === undefined) this.byKey.set(hash, new Map([[id, order]]));
    else if ((stating.get(id) ?? -1) < order) stating.set(id, order);
  }

  /**
   * The index as columns (the hash of a key, a memory under it, its order), when every memory is
   * read: the changes not read yet are read first (they are the few since the last lookup).
   */
  private save(keyOf: (id: string) => number): PersistedPart | undefined {
    if (!this.seeded) return undefined;
    if (!this.read(this.changes, Number.POSITIVE_INFINITY) || this.listed.size > 0) {
      return undefined;
    }
    const hashes: number[] = [];
    const keys: number[] = [];
    const orders: number[] = [];
    for (const [hash, stating] of this.byKey) {
      for (const [id, order] of stating) {
        if (!this.source.memories.has(id)) continue;
        hashes.push(hash);
        keys.push(keyOf(id));
        orders.push(order);
      }
    }
    return {
      columns: {
        hashes: Float64Array.from(hashes),
        keys: Int32Array.from(keys),
        orders: Float64Array.from(orders),
      },
      meta: { version: FACT_KEYS_VERSION },
    };
  }

  private restore(part: PersistedPart, idOf: (key: number) => string): boolean {
    const { hashes, keys, orders } = part.columns;
    if (
      part.meta.version !== FACT_KEYS_VERSION ||
      !(hashes instanceof Float64Array) ||
      !(keys instanceof Int32Array) ||
      !(orders instanceof Float64Array) ||
      keys.length !== hashes.length ||
      orders.length !== hashes.length
    ) {
      return false;
    }
    this.reset();
    let last = -1;
    for (let i = 0; i < hashes.length; i++) {
      // A crafted part (a memory it does not name, an order that is no count) is not taken.
      const id = idOf(keys[i] as number) as string | undefined;
      const order = orders[i] as number;
      if (typeof id !== 'string' || !Number.isSafeInteger(order) || order < 0) {
        this.reset();
        return false;
      }
      this.add(hashes[i] as number, id, order);
      if (order > last) last = order;
    }
    this.seeded = true;
    this.nextOrder = last + 1;
    return true;
  }

  /** Waits for the calls to rest, then reads a slice at a time while they do. */
  private schedule(): void {
    if (this.closed || this.waiting || this.slice || this.pending === 0) return;
    // What is not read costs only candidates.
    this.waiting = whenResting(
      () => this.source.stamp(),
      this.idleMs,
      (stamp) => {
        this.waiting = undefined;
        this.fillWhileResting(stamp);
      },
    );
  }

  private fillWhileResting(stamp: string): void {
    const until = performance.now() + SLICE_MS;
    const listed = this.listed.size;
    const read =
      this.read(this.changes, Number.POSITIVE_INFINITY, until) &&
      this.read(this.listed, Number.POSITIVE_INFINITY, until);
    if (!read) return;
    // Every memory there was is read: the sidecar may keep them now.
    if (listed > 0 && this.listed.size === 0) this.saveLearnt?.();
    if (this.pending === 0) return;
    if (this.source.stamp() !== stamp) {
      this.schedule();
      return;
    }
    // A timer, not an immediate: an immediate let go of (unref) waits for the loop's next event.
    this.slice = setTimeout(() => {
      this.slice = undefined;
      // A call came between the slices: wait for the calls to rest again.
      if (this.source.stamp() !== stamp) this.schedule();
      else this.fillWhileResting(stamp);
    }, 0);
    this.slice.unref();
  }
}

/** Memories to read, the next at the end, each with its order (later is newer). */
class ToRead {
  constructor(
    readonly ids: string[] = [],
    readonly orders: number[] = [],
  ) {}

  get size(): number {
    return this.ids.length;
  }

  push(id: string, order: number): void {
    this.ids.push(id);
    this.orders.push(order);
  }
}
