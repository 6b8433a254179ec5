// Where the memories' vectors are kept between runs: what the semantic index asks of a store,
// whatever the engine (jsonl/vectors.ts, postgres/vectors.ts). Vectors are derived data: a store
// may lose some (a crash, a full disk, a database away) and they are computed again, so no write
// of a store throws.

/** One memory's vector as stored: int8 values, and the scale that turns them back into floats. */
export interface StoredVector {
  /** The memory's id. */
  id: string;
  /** The id of the model that computed it. */
  model: string;
  /** The hash of the text it is of (textHash in semantic-index.ts). */
  hash: string;
  values: Int8Array;
  scale: number;
}

export interface VectorStore {
  /**
   * Hands every stored vector to `visit`, a later one of an id after an earlier (the last wins),
   * and answers how many entries were read, those it could not use included: what no longer counts
   * is what makes a compaction worth it. Throws when nothing can be read at all.
   */
  load(visit: (vector: StoredVector) => void): Promise<number>;
  /**
   * The stored vectors of these memories, those there are now: another process may have written
   * them since the load. Never throws (none, when they cannot be read).
   */
  lookup(ids: readonly string[]): Promise<StoredVector[]>;
  /** Keeps these, the last of an id winning; in the background, and a failure is only logged. */
  append(vectors: readonly StoredVector[]): void;
  /**
   * Drops what no longer counts. `live` is every vector this process holds (read only by a store
   * that rewrites itself with them); a store shared with other processes keeps what they may need.
   */
  compact(live: Iterable<StoredVector>): void;
  /**
   * Keeps `live` (every vector this process holds) as the store's snapshot, when the store has
   * one and it is behind: what a start then reads instead of every entry. Optional.
   */
  snapshot?(live: () => Iterable<StoredVector>): void;
  /** Resolves once what was appended is written, or given up. */
  close(): Promise<void>;
}
