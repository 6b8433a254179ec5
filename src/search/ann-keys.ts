// The keys of memories' vectors in the approximate index (vectors.ann), and the table from a
// graph's keys back to memory ids.

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
