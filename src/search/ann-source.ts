// What the approximate index is built from and scores with: the exact vectors of the semantic
// index, seen through a small interface.
import type { VectorIndex } from './vector-index.js';

/** What the index is built from and scores with: the semantic index's vectors. */
export interface AnnSource {
  readonly model: string;
  readonly dimensions: number;
  /** Memories with a vector. */
  readonly size: number;
  /** Every memory with a vector, as a list of its own (it is iterated across yields). */
  ids(): string[];
  /** The hash of the text memory `id`'s vector is of, when it has one. */
  hashOf(id: string): string | undefined;
  /** The exact cosine of memory `id`'s vector and `query`; undefined when it has none. */
  similarity(id: string, query: Float32Array): number | undefined;
  has(id: string): boolean;
  /** Copies memory `id`'s vector into `out` at `offset`; false when it has none. */
  copyVector(id: string, out: Float32Array, offset: number): boolean;
}

/** The vectors of `model` in `vectors`, each of the text whose hash `hashOf` answers. */
export function annSourceOf(
  model: string,
  vectors: VectorIndex,
  hashOf: (id: string) => string | undefined,
): AnnSource {
  return {
    model,
    dimensions: vectors.dimensions,
    get size() {
      return vectors.size;
    },
    ids: () => vectors.idList(),
    hashOf,
    has: (id) => vectors.has(id),
    similarity: (id, query) => vectors.similarity(id, query),
    copyVector: (id, out, offset) => vectors.copyInto(id, out, offset),
  };
}
