// The sidecar's own columns beside the log (log-sidecar.ts): the checks a memory's place in the
// log passes before it is believed, each namespace's memories among them, and the default
// namespace's table of id to slot, kept by key.
import { BUCKETS_VERSION } from '../../platform/key-index.js';

/** The column of the default namespace's table of id to slot, by the version of its hashes. */
export const SLOT_TABLE = `store.slotTable${BUCKETS_VERSION}`;

/**
 * The memories of each of `namespaces` namespaces (`nsOf[key]`, checked by checkRefs), by their
 * keys in the columns' order: counted, then listed (pushed one by one, a million took a tenth of
 * a second of a start).
 */
export function picksOf(nsOf: Uint8Array, namespaces: number): Int32Array[] {
  const counts = new Int32Array(namespaces);
  for (let i = 0; i < nsOf.length; i++) {
    const n = nsOf[i] as number;
    counts[n] = (counts[n] as number) + 1;
  }
  const picks = Array.from(counts, (count) => new Int32Array(count));
  counts.fill(0);
  for (let i = 0; i < nsOf.length; i++) {
    const n = nsOf[i] as number;
    const at = counts[n] as number;
    (picks[n] as Int32Array)[at] = i;
    counts[n] = at + 1;
  }
  return picks;
}

/**
 * A table's buckets (KeyIndex.buckets, values slots) with each value the key of that slot in the
 * sidecar's columns, `keys[slot]` (in place: the buckets are a copy of the table's own).
 */
export function bucketsByKey(buckets: Int32Array, keys: Int32Array): Int32Array {
  for (let j = 0; j < buckets.length; j += 2) {
    const entry = buckets[j] as number;
    if (entry > 0) buckets[j] = (keys[entry - 1] as number) + 1;
  }
  return buckets;
}

/**
 * The buckets `bucketsByKey` kept, read back with each key's slot in its namespace's table now
 * (the memories `pick` named there in order: `pick[slot]` is its key), in place; undefined when
 * a bucket names a key out of the `count` listed or of another namespace (it is built again).
 */
export function bucketsBySlot(
  buckets: Int32Array,
  pick: ArrayLike<number>,
  count: number,
): Int32Array | undefined {
  const slotOf = new Int32Array(count).fill(-1);
  for (let slot = 0; slot < pick.length; slot++) slotOf[pick[slot] as number] = slot;
  for (let j = 0; j < buckets.length; j += 2) {
    const entry = buckets[j] as number;
    if (entry <= 0) continue;
    const slot = entry <= count ? (slotOf[entry - 1] as number) : -1;
    if (slot === -1) return undefined;
    buckets[j] = slot + 1;
  }
  return buckets;
}

/**
 * Throws unless every memory's line lies in the log the sidecar was made from and its namespace
 * is one it names. The checksum says a sidecar is whole, not that it was written by mnemo (a data
 * dir synced from elsewhere): a ref past the log failed each read of that memory for good (and
 * asked for up to 2 GB first), one of no namespace dropped the memory.
 */
export function checkRefs(
  count: number,
  namespaces: number,
  size: number,
  nsOf: Uint8Array,
  offsets: Float64Array,
  lengths: Int32Array,
  statuses: Uint8Array,
): void {
  if (![nsOf, offsets, lengths, statuses].every((column) => column?.length === count)) {
    throw new Error('its columns are of different lengths');
  }
  for (let i = 0; i < count; i++) {
    const offset = offsets[i] as number;
    const length = lengths[i] as number;
    if ((nsOf[i] as number) >= namespaces) throw new Error('a memory is of no namespace it names');
    if (!Number.isInteger(offset) || offset < 0 || length < 1 || offset + length > size) {
      throw new Error("a memory's line is not in the log");
    }
  }
}
