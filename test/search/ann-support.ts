// Vectors like the static model's (clustered, unit length) in a VectorIndex, and the AnnSource a
// test hands AnnIndex over them: what SemanticIndex gives it, without a model.
import { seededRandom } from '../../bench/lib/content.js';
import { type AnnSource, annSourceOf } from '../../src/search/ann-source.js';
import { VectorIndex } from '../../src/search/vector-index.js';

export const DIMS = 100;
export const MODEL = 'test/clustered:100';

export interface TestVectors {
  vectors: VectorIndex;
  hashes: Map<string, string>;
  source: AnnSource;
  /** A unit vector near one of the clusters: a query, or a memory's vector. */
  draw(): Float32Array;
  /** Sets (or replaces, with a new text hash) memory `id`'s vector. */
  put(id: string, vector: Float32Array, hash?: string): void;
  /** Drops memory `id`. */
  drop(id: string): void;
}

export function testVectors(count: number, seed = 1, clusters = 200): TestVectors {
  const next = seededRandom(seed);
  const centres: Float32Array[] = [];
  for (let c = 0; c < clusters; c++) centres.push(unit(DIMS, () => next() * 2 - 1));
  const draw = () => {
    const centre = centres[Math.floor(next() * clusters)] as Float32Array;
    return unit(DIMS, (i) => (centre[i] as number) + (next() * 2 - 1) * 0.15);
  };
  const vectors = new VectorIndex(DIMS, Math.max(1024, count));
  const hashes = new Map<string, string>();
  const source: AnnSource = annSourceOf(MODEL, vectors, (id) => hashes.get(id));
  const put = (id: string, vector: Float32Array, hash = 'h0') => {
    hashes.set(id, hash);
    vectors.set(id, vector);
  };
  for (let i = 0; i < count; i++) put(`m${i}`, draw());
  const drop = (id: string) => {
    hashes.delete(id);
    vectors.delete(id);
  };
  return { vectors, hashes, source, draw, put, drop };
}

function unit(dims: number, value: (i: number) => number): Float32Array {
  const v = new Float32Array(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    v[i] = value(i);
    norm += (v[i] as number) ** 2;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dims; i++) (v[i] as number) /= norm;
  return v;
}
