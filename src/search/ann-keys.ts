// The keys of memories' vectors in the approximate index (vectors.ann), and the table from a
// graph's keys back to memory ids.
import os from 'node:os';

/**
 * A 52-bit key of a memory's vector in the graph: of its id, its text's hash and the model, so a
 * vector of an old text, of a memory gone or of another model is never taken for the current one
 * (the key of a graph's result is checked against the memory's key now).
 */
export function annKey(model: string, id: string, hash: string): number {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  const mix = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    }
    h1 = Math.imul(h1 ^ 0xff, 0x01000193);
    h2 = Math.imul(h2 ^ 0xff, 0x5bd1e995);
  };
  mix(model);
  mix(id);
  mix(hash);
  return (h1 >>> 0) * 0x100000 + ((h2 >>> 0) & 0xfffff);
}

/** Keys of the graph to memory ids: open addressing over typed arrays, no object a key. */
export class KeyTable {
  private keys: Float64Array;
  private ids: (string | undefined)[];
  private count = 0;

  constructor(capacity = 1024) {
    let size = 1024;
    while (size < capacity * 2) size *= 2;
    this.keys = new Float64Array(size).fill(-1);
    this.ids = new Array(size);
  }

  get size(): number {
    return this.count;
  }

  private slot(key: number): number {
    const mask = this.keys.length - 1;
    // The low bits of the key are hash bits already.
    let at = (key % this.keys.length) & mask;
    while (this.keys[at] !== -1 && this.keys[at] !== key) at = (at + 1) & mask;
    return at;
  }

  get(key: number): string | undefined {
    const at = this.slot(key);
    return this.keys[at] === key ? this.ids[at] : undefined;
  }

  set(key: number, id: string): void {
    if ((this.count + 1) * 2 > this.keys.length) this.grow();
    const at = this.slot(key);
    if (this.keys[at] !== key) this.count++;
    this.keys[at] = key;
    this.ids[at] = id;
  }

  private grow(): void {
    const { keys, ids } = this;
    this.keys = new Float64Array(keys.length * 2).fill(-1);
    this.ids = new Array(keys.length * 2);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as number;
      if (key === -1) continue;
      const at = this.slot(key);
      this.keys[at] = key;
      this.ids[at] = ids[i];
    }
  }
}

/** Which 32-bit half of a 64-bit word comes first in memory: the low one, but on a big-endian machine. */
const LOW = os.endianness() === 'LE' ? 0 : 1;

/** Keys as usearch takes and answers them (u64), read and written without a BigInt each. */
export class PackedKeys {
  readonly words: BigUint64Array;
  private readonly halves: Uint32Array;

  constructor(words: BigUint64Array | number) {
    this.words = typeof words === 'number' ? new BigUint64Array(words) : words;
    const { buffer, byteOffset, length } = this.words;
    this.halves = new Uint32Array(buffer, byteOffset, length * 2);
  }

  get(i: number): number {
    const h = this.halves;
    return (h[i * 2 + 1 - LOW] as number) * 2 ** 32 + (h[i * 2 + LOW] as number);
  }

  /** A key of at most 53 bits (as annKey makes them). */
  set(i: number, key: number): void {
    this.halves[i * 2 + LOW] = key >>> 0;
    this.halves[i * 2 + 1 - LOW] = Math.floor(key / 2 ** 32);
  }
}

/** Ids whose coverage is asked of the graph at once (a message to its thread). */
const COVERAGE_CHUNK = 50_000;

/**
 * Which of `ids` the graph holds the current vector of (by its key, `keyOf`): the table from those
 * keys back to the ids, and the others (searched exactly beside the graph). The graph is asked a
 * chunk at a time; undefined when `stopped` says so between two.
 */
export async function coverage(
  graph: { size: number; contains(keys: BigUint64Array): Promise<Uint8Array> },
  ids: readonly string[],
  keyOf: (id: string) => number | undefined,
  stopped: () => boolean,
): Promise<{ table: KeyTable; uncovered: Set<string> } | undefined> {
  const table = new KeyTable(ids.length);
  const uncovered = new Set<string>();
  const packed = new PackedKeys(COVERAGE_CHUNK);
  const chunk: string[] = [];
  const keys: number[] = [];
  for (let at = 0; at < ids.length; at += COVERAGE_CHUNK) {
    chunk.length = 0;
    keys.length = 0;
    for (let i = at; i < Math.min(ids.length, at + COVERAGE_CHUNK); i++) {
      const id = ids[i] as string;
      const key = keyOf(id);
      if (key === undefined) continue;
      packed.set(keys.length, key);
      chunk.push(id);
      keys.push(key);
    }
    const held =
      graph.size === 0 || keys.length === 0
        ? new Uint8Array(0)
        : await graph.contains(packed.words.slice(0, keys.length));
    if (stopped()) return undefined;
    chunk.forEach((id, i) => {
      if (held[i] === 1) table.set(keys[i] as number, id);
      else uncovered.add(id);
    });
  }
  return { table, uncovered };
}
