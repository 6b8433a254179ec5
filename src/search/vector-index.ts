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

export interface VectorIndexOptions {
  /**
   * The product on another thread (the ONNX runtime's, when MiniLM and so the runtime are
   * loaded): it reads float32 rows, so the rows stay float32.
   */
  matVec?: MatVec;
  /**
   * Rows as int8 with a scale each, a quarter of float32's memory (a million of the static
   * model's vectors: 104 MB, not 400). A cosine moves by well under 1%: the vectors kept on disk
   * are int8 already, so a row read back at start is the same either way. Ignored with matVec.
   */
  int8?: boolean;
}

/**
 * An exact nearest-neighbour index: every row is compared, which at 100,000 memories of 100
 * dimensions is ten million multiply-adds, a few milliseconds. Rows are unit length, so the dot
 * product is the cosine.
 */
export class VectorIndex {
  private matrix: Float32Array | Int8Array;
  /** Of int8 rows: what turns row r's values into its unit vector. */
  private scales: Float32Array | undefined;
  private ids: string[] = [];
  private readonly rows = new Map<string, number>();
  private readonly matVec: MatVec | undefined;
  /** Searches whose product is running on another thread: rows must not move under them. */
  private inFlight = 0;
  private deferred: (() => void)[] = [];

  constructor(
    readonly dimensions: number,
    capacity = 1024,
    options: VectorIndexOptions = {},
  ) {
    this.matVec = options.matVec;
    if (options.int8 && !this.matVec) {
      this.matrix = new Int8Array(dimensions * capacity);
      this.scales = new Float32Array(capacity);
    } else {
      this.matrix = new Float32Array(dimensions * capacity);
    }
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
    const out = new Float32Array(this.dimensions);
    this.copyRow(row, out, 0);
    return out;
  }

  /** The cosine of row `id` and `query`, read in place; undefined when there is no such row. */
  similarity(id: string, query: Float32Array): number | undefined {
    const row = this.rows.get(id);
    if (row === undefined) return undefined;
    const m = this.matrix;
    const d = this.dimensions;
    let s = 0;
    for (let k = 0, base = row * d; k < d; k++) s += (m[base + k] as number) * (query[k] as number);
    return this.scales ? s * (this.scales[row] as number) : s;
  }

  /** Copies row `id` into `out` at `offset`; false when there is no such row. */
  copyInto(id: string, out: Float32Array, offset: number): boolean {
    const row = this.rows.get(id);
    if (row === undefined) return false;
    this.copyRow(row, out, offset);
    return true;
  }

  /** The ids of every row, as a list of their own. */
  idList(): string[] {
    return this.ids.slice();
  }

  /**
   * Sets row `id` to `vector`: a unit vector, or int8 values as the vector store keeps them (their
   * direction is the vector: it is made unit length here, without a float copy in between).
   */
  set(id: string, vector: Float32Array | Int8Array): void {
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
      if ((row + 1) * this.dimensions > this.matrix.length) this.grow();
      this.ids.push(id);
      this.rows.set(id, row);
    }
    const at = row * this.dimensions;
    const scales = this.scales;
    if (vector instanceof Int8Array) {
      this.matrix.set(vector, at);
      const scale = unitScale(vector);
      if (scales) scales[row] = scale;
      else for (let k = 0; k < this.dimensions; k++) (this.matrix[at + k] as number) *= scale;
    } else if (scales) {
      scales[row] = quantiseInto(vector, this.matrix as Int8Array, at);
    } else {
      this.matrix.set(vector, at);
    }
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
      if (this.scales) this.scales[row] = this.scales[last] as number;
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
    const d = this.dimensions;
    if (this.scales) {
      const matrix = (this.matrix as Int8Array).subarray(0, count * d);
      const sims = similarities(matrix, count, d, query, this.scales);
      return hitsOf(sims, ids, minSim, limit, keep);
    }
    const matrix = (this.matrix as Float32Array).subarray(0, count * d);
    if (!this.matVec) {
      return hitsOf(similarities(matrix, count, d, query), ids, minSim, limit, keep);
    }
    // The product reads the matrix on another thread: changes wait until it is done.
    this.inFlight++;
    try {
      const sims = await this.matVec(matrix, count, d, query);
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
    return this.ids.map((id, r) => {
      const vector = new Float32Array(this.dimensions);
      this.copyRow(r, vector, 0);
      return { id, vector };
    });
  }

  /** Every row, lazily, as a view that the next step overwrites: copy what must be kept. */
  *eachRow(): Iterable<{ id: string; vector: Float32Array }> {
    const d = this.dimensions;
    const scratch = new Float32Array(d);
    for (let r = 0; r < this.ids.length; r++) {
      const id = this.ids[r] as string;
      if (this.scales) {
        this.copyRow(r, scratch, 0);
        yield { id, vector: scratch };
      } else {
        yield { id, vector: (this.matrix as Float32Array).subarray(r * d, r * d + d) };
      }
    }
  }

  /** Row `row` as a unit vector in `out` at `offset`. */
  private copyRow(row: number, out: Float32Array, offset: number): void {
    const d = this.dimensions;
    const m = this.matrix;
    const scale = this.scales ? (this.scales[row] as number) : 1;
    for (let k = 0, base = row * d; k < d; k++) out[offset + k] = (m[base + k] as number) * scale;
  }

  /**
   * Keys the rows by these strings of their ids (equal to those they were set with): rows set
   * from strings read elsewhere (a snapshot of the vector store) then hold no copy of each id
   * beside the memory store's own. Rows whose id is not among them keep theirs.
   */
  rekey(ids: Iterable<string>): void {
    for (const id of ids) {
      const row = this.rows.get(id);
      if (row !== undefined) this.ids[row] = id;
    }
    this.rows.clear();
    for (let row = 0; row < this.ids.length; row++) this.rows.set(this.ids[row] as string, row);
  }

  /** Room for `rows` rows in all, made at once (rather than by doubling as rows come). */
  reserve(rows: number): void {
    if (rows * this.dimensions > this.matrix.length) this.resize(rows);
  }

  /** Twice the rows (a start sizes it for every memory: this is for what a run adds). */
  private grow(): void {
    this.resize(Math.max((this.matrix.length / this.dimensions) * 2, 16));
  }

  private resize(rows: number): void {
    const grown =
      this.matrix instanceof Int8Array
        ? new Int8Array(rows * this.dimensions)
        : new Float32Array(rows * this.dimensions);
    grown.set(this.matrix);
    this.matrix = grown;
    if (this.scales) {
      const scales = new Float32Array(rows);
      scales.set(this.scales);
      this.scales = scales;
    }
  }
}

/**
 * Writes `vector` as int8 into `out` at `offset` and answers the scale that turns those values
 * back into a unit vector (what dequantise answers for the same values: vector-quantise.ts).
 */
function quantiseInto(vector: Float32Array, out: Int8Array, offset: number): number {
  let max = 0;
  for (const x of vector) max = Math.max(max, Math.abs(x));
  const step = max / 127 || 1;
  for (let i = 0; i < vector.length; i++) {
    out[offset + i] = Math.round((vector[i] as number) / step);
  }
  return unitScale(out.subarray(offset, offset + vector.length));
}

/** What int8 `values` are multiplied by to be a unit vector (0 for a zero vector). */
function unitScale(values: Int8Array): number {
  let norm = 0;
  for (const q of values) norm += q * q;
  return norm > 0 ? 1 / Math.sqrt(norm) : 0;
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

/**
 * The plain-JS product: four running sums, about 15 ms for 100,000 rows of 100 here. Rows of
 * int8 are each multiplied by their scale.
 */
export function similarities(
  m: Float32Array | Int8Array,
  rows: number,
  d: number,
  query: Float32Array,
  scales?: Float32Array,
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
    const sum = s0 + s1 + s2 + s3;
    out[r] = scales ? sum * (scales[r] as number) : sum;
  }
  return out;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}
