// Small heaps over doubles for safe top-k pruning (retriever.ts): what a row must reach to
// still be in the running, and which rows to look at first so that bar rises early.

/**
 * The `count` largest values offered so far, as a min-heap in a typed array. `floor` is what a
 * value must reach not to be beaten by `count` others already seen.
 */
export class BestValues {
  private readonly heap: Float64Array;
  private size = 0;

  constructor(readonly count: number) {
    this.heap = new Float64Array(Math.max(0, count));
  }

  /** -Infinity until `count` values are in (then nothing can be ruled out yet). */
  get floor(): number {
    if (this.count <= 0) return Number.POSITIVE_INFINITY;
    return this.size < this.count ? Number.NEGATIVE_INFINITY : (this.heap[0] as number);
  }

  offer(value: number): void {
    const heap = this.heap;
    if (this.size < this.count) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if ((heap[parent] as number) <= value) break;
        heap[i] = heap[parent] as number;
        i = parent;
      }
      heap[i] = value;
      return;
    }
    if (this.count <= 0 || !(value > (heap[0] as number))) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.size) break;
      const right = left + 1;
      const child =
        right < this.size && (heap[right] as number) < (heap[left] as number) ? right : left;
      if ((heap[child] as number) >= value) break;
      heap[i] = heap[child] as number;
      i = child;
    }
    heap[i] = value;
  }
}

/** The indexes of the `m` largest of `values[0..n)` (NaN never counts), in no order. */
export function largest(values: Float64Array, n: number, m: number): Int32Array {
  if (m <= 0) return new Int32Array(0);
  // A min-heap of indexes keyed by their value.
  const heap = new Int32Array(Math.min(m, n));
  const cap = heap.length;
  let size = 0;
  // The least value kept, once the heap is full: most values are below it and cost one
  // comparison (this runs over every match of a search).
  let least = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const v = values[i] as number;
    if (size === cap) {
      if (!(v > least)) continue;
      let s = 0;
      for (;;) {
        const left = 2 * s + 1;
        if (left >= size) break;
        const right = left + 1;
        const lv = values[heap[left] as number] as number;
        let child = left;
        let cv = lv;
        if (right < size) {
          const rv = values[heap[right] as number] as number;
          if (rv < lv) {
            child = right;
            cv = rv;
          }
        }
        if (cv >= v) break;
        heap[s] = heap[child] as number;
        s = child;
      }
      heap[s] = i;
      least = values[heap[0] as number] as number;
      continue;
    }
    if (Number.isNaN(v)) continue;
    let s = size++;
    while (s > 0) {
      const parent = (s - 1) >> 1;
      if ((values[heap[parent] as number] as number) <= v) break;
      heap[s] = heap[parent] as number;
      s = parent;
    }
    heap[s] = i;
    if (size === cap) least = values[heap[0] as number] as number;
  }
  return heap.subarray(0, size);
}
