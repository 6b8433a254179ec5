/**
 * An index from keys to small integers (the slots of the owner's own arrays), as an
 * open-addressing hash table in one typed array: a million entries cost 13 MB or so and go in
 * without the rehashing a Map does as it grows. The keys are not kept here: `keyAt(value)` reads
 * the key the owner holds at that value (undefined once it is gone), so each key lives once. Each
 * bucket holds its key's hash beside the value, so a probe reads the owner's key only when the
 * hashes agree, and growing never hashes a key again: at a million entries the keys are spread
 * over the heap, and reading one for each bucket passed took a quarter of a load's main thread.
 * An owner deletes a key here before it lets go of it (an entry left behind is kept, unread).
 */
export class KeyIndex<K> {
  /** Two numbers a bucket: value + 1 (EMPTY or GONE, a deletion passed over by lookups), hash. */
  private table: Int32Array;
  private used = 0;
  private live = 0;

  constructor(
    private readonly hash: (key: K) => number,
    private readonly keyAt: (value: number) => K | undefined,
    capacity = 1024,
  ) {
    this.table = new Int32Array(2 * bucketsFor(capacity));
  }

  get size(): number {
    return this.live;
  }

  /** The last key hashed and its hash: an owner asks has, get, then set of one key in a row. */
  private lastKey: K | undefined;
  private lastHash = 0;

  /** The key's hash as a bucket keeps it (a 32-bit integer). */
  private hashOf(key: K): number {
    if (key !== this.lastKey || this.lastKey === undefined) {
      this.lastHash = this.hash(key) | 0;
      this.lastKey = key;
    }
    return this.lastHash;
  }

  get(key: K): number | undefined {
    const table = this.table;
    const n = table.length >>> 1;
    const h = this.hashOf(key);
    for (let i = bucketOf(h, n); ; i = i + 1 === n ? 0 : i + 1) {
      const entry = table[2 * i] as number;
      if (entry === EMPTY) return undefined;
      if (entry !== GONE && table[2 * i + 1] === h && this.keyAt(entry - 1) === key) {
        return entry - 1;
      }
    }
  }

  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  /** Points `key` at `value` (the owner already holds `key` at `value`). */
  set(key: K, value: number): void {
    if ((this.used + 1) * 5 > (this.table.length >>> 1) * 4) this.resize(this.live + 1);
    const table = this.table;
    const n = table.length >>> 1;
    const h = this.hashOf(key);
    let free = -1;
    for (let i = bucketOf(h, n); ; i = i + 1 === n ? 0 : i + 1) {
      const entry = table[2 * i] as number;
      if (entry === EMPTY) {
        if (free === -1) {
          free = i;
          this.used++;
        }
        break;
      }
      if (entry === GONE) {
        if (free === -1) free = i;
        continue;
      }
      if (table[2 * i + 1] === h && this.keyAt(entry - 1) === key) {
        table[2 * i] = value + 1;
        return;
      }
    }
    table[2 * free] = value + 1;
    table[2 * free + 1] = h;
    this.live++;
  }

  /** Removes `key` when it points at `value` (or at anything, without one): true if it did. */
  delete(key: K, value?: number): boolean {
    const table = this.table;
    const n = table.length >>> 1;
    const h = this.hashOf(key);
    for (let i = bucketOf(h, n); ; i = i + 1 === n ? 0 : i + 1) {
      const entry = table[2 * i] as number;
      if (entry === EMPTY) return false;
      if (entry === GONE || table[2 * i + 1] !== h) continue;
      if (this.keyAt(entry - 1) === key) {
        if (value !== undefined && entry - 1 !== value) return false;
        table[2 * i] = GONE;
        this.live--;
        return true;
      }
    }
  }

  clear(): void {
    this.table = new Int32Array(2 * bucketsFor(1024));
    this.used = 0;
    this.live = 0;
  }

  /**
   * Builds it again from `count` values (0 .. count - 1) whose keys `keyAt` gives (undefined:
   * none), each key at one value only: after the owner renumbered them, or to load many at once.
   */
  rebuild(count: number): void {
    const n = bucketsFor(count);
    const table = new Int32Array(2 * n);
    let live = 0;
    for (let value = 0; value < count; value++) {
      const key = this.keyAt(value);
      if (key === undefined) continue;
      // Each key once (the owner holds each at one value): no need to compare with the others.
      const h = this.hash(key) | 0;
      let i = bucketOf(h, n);
      while (table[2 * i] !== EMPTY) i = i + 1 === n ? 0 : i + 1;
      table[2 * i] = value + 1;
      table[2 * i + 1] = h;
      live++;
    }
    this.table = table;
    this.used = live;
    this.live = live;
  }

  /**
   * Its buckets as they are now, a copy: what a sidecar keeps, for `adopt` to take back at the
   * next start instead of hashing every key again (a third of a second a million on a slow VM).
   */
  buckets(): Int32Array {
    return this.table.slice();
  }

  /**
   * Takes `buckets` (from `buckets()` of a table over the same keys at values below `count`, of
   * this hash: BUCKETS_VERSION) as its own; false, changing nothing, when they cannot be one:
   * the caller then rebuilds. A sidecar's checksum proves it whole, not written by mnemo: a bucket
   * beyond the values or at one without a key, a value twice, `live` keys not all there, or a
   * table fuller than it ever grows to (whose probes could run long) is refused. `live`: how many
   * keys the owner has, when each is in the table once. A bucket whose hash is not its key's only
   * hides that key (found by no lookup), as a sidecar that lies about the postings would.
   */
  adopt(buckets: Int32Array, count: number, live?: number): boolean {
    const n = buckets.length >>> 1;
    if (buckets.length % 2 !== 0 || n < 1024 || n >= 2 ** 29) return false;
    const seen = new Uint8Array(count);
    let used = 0;
    let found = 0;
    for (let j = 0; j < buckets.length; j += 2) {
      const entry = buckets[j] as number;
      if (entry === EMPTY) continue;
      used++;
      if (entry === GONE) continue;
      if (entry < 1 || entry > count || seen[entry - 1] === 1) return false;
      // A value the owner holds no key at (an array read: the key itself is not looked at).
      if (this.keyAt(entry - 1) === undefined) return false;
      seen[entry - 1] = 1;
      found++;
    }
    if (used * 5 > n * 4 || (live !== undefined && found !== live)) return false;
    this.table = buckets;
    this.used = used;
    this.live = found;
    this.lastKey = undefined;
    return true;
  }

  /** Moves the entries to a larger table by the hashes they keep: no key is read or hashed. */
  private resize(atLeast: number): void {
    const old = this.table;
    const n = bucketsFor(Math.max(atLeast, Math.ceil(this.live * 1.5)));
    const table = new Int32Array(2 * n);
    let live = 0;
    for (let j = 0; j < old.length; j += 2) {
      const entry = old[j] as number;
      if (entry === EMPTY || entry === GONE) continue;
      const h = old[j + 1] as number;
      let i = bucketOf(h, n);
      while (table[2 * i] !== EMPTY) i = i + 1 === n ? 0 : i + 1;
      table[2 * i] = entry;
      table[2 * i + 1] = h;
      live++;
    }
    this.table = table;
    this.used = live;
    this.live = live;
  }
}

const EMPTY = 0;
const GONE = -1;

/**
 * The version of what `buckets()` answers depends on: stringHash, numberHash, bucketOf and the
 * bucket layout. A change to any of them must move it on (a sidecar names its tables by it).
 */
export const BUCKETS_VERSION = 1;

/**
 * Buckets for `count` keys at a load of 0.6 (a table grows past 0.8, to 0.4): the hashes kept
 * make a probe cheap, so a fuller table than a half pays, and any count of buckets will do.
 */
function bucketsFor(count: number): number {
  return Math.max(1024, Math.ceil((count * 5) / 3));
}

/** The bucket of hash `h` among `n` (below 2^29): its top 24 bits scaled, exact in a double. */
function bucketOf(h: number, n: number): number {
  return Math.floor(((h >>> 8) * n) / 16_777_216);
}

/** A 32-bit hash of a string (FNV-1a over its UTF-16 code units). */
export function stringHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  // Finish so that the low bits (the bucket) depend on every character.
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h >>> 0;
}

/** A 32-bit hash of a number that is an integer below 2^53. */
export function numberHash(n: number): number {
  let h = (n >>> 0) ^ Math.imul(Math.floor(n / 0x100000000) | 0, 0x9e3779b1);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}
