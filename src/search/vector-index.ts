// Unit vectors by memory id, in one contiguous matrix, searched by brute force.
import { topN } from './ranking.js';

/**
 * `matrix` (rows x dims, row-major) times `vector`: one similarity a row. The ONNX runtime's,
 * with SIMD and threads, is about five times faster than the loop below.
 */
export type MatVec = (
  matrix: Float32Array,
  rows: number,
  dims: number,
  vector: Float32Array,
) => Promise<Float32Array>;

export interface VectorHits {
  ids: string[];
  /** Cosine similarity of each id to the query, in the same order. */
  sims: number[];
}

/**
 * An exact nearest-neighbour index: every row is compared, which at 100,000 memories of 100
 * dimensions is ten million multiply-adds, a few milliseconds. Rows are unit length, so the dot
 * product is the cosine.
 */
export class VectorIndex {
  private matrix: Float32Array;
  private ids: string[] = [];
  private readonly rows = new Map<string, number>();
  /** Searches whose product is running on another thread: rows must not move under them. */
  private inFlight = 0;
  private deferred: (() => void)[] = [];

  constructor(
    readonly dimensions: number,
    capacity = 1024,
    private readonly matVec?: MatVec,
  ) {
    this.matrix = new Float32Array(dimensions * capacity);
  }

  get size(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.rows.has(id);
  }

  get(id: string): Float32Array | undefined {
    const row = this.rows.get(id);
    if (row === undefined) return undefined;
    const d = this.dimensions;
    return this.matrix.slice(row * d, row * d + d);
  }

  /** The cosine of row `id` and `query`, read in place; undefined when there is no such row. */
  similarity(id: string, query: Float32Array): number | undefined {
    const row = this.rows.get(id);
    if (row === undefined) return undefined;
    const m = this.matrix;
    const d = this.dimensions;
    let s = 0;
    for (let k = 0, base = row * d; k < d; k++) s += (m[base + k] as number) * (query[k] as number);
    return s;
  }

  /** Copies row `id` into `out` at `offset`; false when there is no such row. */
  copyInto(id: string, out: Float32Array, offset: number): boolean {
    const row = this.rows.get(id);
    if (row === undefined) return false;
    const d = this.dimensions;
    out.set(this.matrix.subarray(row * d, row * d + d), offset);
    return true;
  }

  /** The ids of every row, as a list of their own. */
  idList(): string[] {
    return this.ids.slice();
  }

  set(id: string, vector: Float32Array): void {
    if (vector.length !== this.dimensions) {
      throw new Error(`vector of ${vector.length} dimensions in an index of ${this.dimensions}`);
    }
    if (this.inFlight > 0) {
      const copy = vector.slice();
      this.deferred.push(() => this.set(id, copy));
      return;
    }
    let row = this.rows.get(id);
    if (row === undefined) {
      row = this.ids.length;
      if ((row + 1) * this.dimensions > this.matrix.length) {
        const grown = new Float32Array(Math.max(this.matrix.length * 2, this.dimensions * 16));
        grown.set(this.matrix);
        this.matrix = grown;
      }
      this.ids.push(id);
      this.rows.set(id, row);
    }
    this.matrix.set(vector, row * this.dimensions);
  }

  /** Drops a row by moving the last row into its place. */
  delete(id: string): void {
    if (this.inFlight > 0) {
      this.deferred.push(() => this.delete(id));
      return;
    }
    const row = this.rows.get(id);
    if (row === undefined) return;
    const last = this.ids.length - 1;
    const d = this.dimensions;
    if (row !== last) {
      const lastId = this.ids[last] as string;
      this.matrix.copyWithin(row * d, last * d, last * d + d);
      this.ids[row] = lastId;
      this.rows.set(lastId, row);
    }
    this.ids.pop();
    this.rows.delete(id);
  }

  clear(): void {
    if (this.inFlight > 0) {
      this.deferred.push(() => this.clear());
      return;
    }
    this.ids = [];
    this.rows.clear();
  }

  /**
   * The ids whose cosine to `query` is at least `minSim`: all of them, or the `limit` closest,
   * closest first; only those `keep` keeps, when given (one namespace's, of a shared index).
   */
  async search(
    query: Float32Array,
    minSim: number,
    limit = Number.POSITIVE_INFINITY,
    keep?: (id: string) => boolean,
  ): Promise<VectorHits> {
    // Rows do not move while a product runs (changes wait for it), so the ids are read in place
    // until the hits are out.
    const ids = this.ids;
    const count = ids.length;
    const matrix = this.matrix.subarray(0, count * this.dimensions);
    if (!this.matVec) {
      return hitsOf(similarities(matrix, count, this.dimensions, query), ids, minSim, limit, keep);
    }
    // The product reads the matrix on another thread: changes wait until it is done.
    this.inFlight++;
    try {
      const sims = await this.matVec(matrix, count, this.dimensions, query);
      return hitsOf(sims, ids, minSim, limit, keep);
    } finally {
      if (--this.inFlight === 0) {
        const changes = this.deferred;
        this.deferred = [];
        for (const change of changes) change();
      }
    }
  }

  /** Every row, for clustering: ids and a copy of their vectors. */
  entries(): { id: string; vector: Float32Array }[] {
    const d = this.dimensions;
    return this.ids.map((id, r) => ({ id, vector: this.matrix.slice(r * d, r * d + d) }));
  }

  /** Every row, lazily, as a view that the next step overwrites: copy what must be kept. */
  *eachRow(): Iterable<{ id: string; vector: Float32Array }> {
    const d = this.dimensions;
    for (let r = 0; r < this.ids.length; r++) {
      yield { id: this.ids[r] as string, vector: this.matrix.subarray(r * d, r * d + d) };
    }
  }
}

/**
 * The ids at or above `minSim`, the `limit` closest (closest first) of those `keep` keeps. The
 * closest are taken by similarity first and `keep` asked of them only (it costs a lookup a row,
 * and most rows pass it), taking more when it refused some.
 */
function hitsOf(
  sims: Float32Array,
  ids: readonly string[],
  minSim: number,
  limit: number,
  keep: ((id: string) => boolean) | undefined,
): VectorHits {
  const out: VectorHits = { ids: [], sims: [] };
  const count = Math.min(ids.length, sims.length);
  if (limit >= count) {
    for (let r = 0; r < count; r++) {
      const sim = sims[r] as number;
      if (sim >= minSim && (keep === undefined || keep(ids[r] as string))) {
        out.ids.push(ids[r] as string);
        out.sims.push(sim);
      }
    }
    return out;
  }
  const close = (r: number) => r < count && (sims[r] as number) >= minSim;
  for (let take = limit; ; take *= 4) {
    const top = topN(sims, take, close);
    const kept = keep ? top.filter(({ index }) => keep(ids[index] as string)) : top;
    if (kept.length >= limit || top.length < take) {
      for (const { index, rank } of kept.slice(0, limit)) {
        out.ids.push(ids[index] as string);
        out.sims.push(rank);
      }
      return out;
    }
  }
}

/** The plain-JS product: four running sums, about 15 ms for 100,000 rows of 100 here. */
export function similarities(
  m: Float32Array,
  rows: number,
  d: number,
  query: Float32Array,
): Float32Array {
  const out = new Float32Array(rows);
  const tail = d - (d % 4);
  for (let r = 0, base = 0; r < rows; r++, base += d) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let k = 0;
    for (; k < tail; k += 4) {
      s0 += (m[base + k] as number) * (query[k] as number);
      s1 += (m[base + k + 1] as number) * (query[k + 1] as number);
      s2 += (m[base + k + 2] as number) * (query[k + 2] as number);
      s3 += (m[base + k + 3] as number) * (query[k + 3] as number);
    }
    for (; k < d; k++) s0 += (m[base + k] as number) * (query[k] as number);
    out[r] = s0 + s1 + s2 + s3;
  }
  return out;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}
