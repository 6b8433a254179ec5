// What a BM25 index keeps in a sidecar, and the check that a state read back is one it could have
// saved.

/**
 * An index's state in typed arrays, as `freeze` leaves it: what a sidecar keeps. By ordinal: the
 * document's key (-1 once removed: the caller says what keys are), length and class; by term:
 * where its postings start in `ordinals` (their tfs at the same places of `tfs`) and its
 * document frequency.
 */
export interface Bm25State {
  keys: Int32Array;
  lengths: Int32Array;
  classes: Uint8Array;
  starts: Int32Array;
  ordinals: Int32Array;
  tfs: Uint16Array;
  df: Int32Array;
  /** By value column, by ordinal: the numbers each document carries. */
  values: Float64Array[];
  /** The buckets of the table from id to ordinal (KeyIndex.buckets), when kept: not rebuilt. */
  idTable?: Int32Array | undefined;
}

/**
 * Throws unless `state` is an index this class could have saved: a document a key, a length and
 * a class; postings that start at 0, only grow, end with the postings and name documents it has.
 * A sidecar's checksum proves it whole, not that mnemo wrote it: a term whose postings ran to
 * 2^31 made each search of it walk them.
 */
export function checkState(state: Bm25State): void {
  const count = state.keys.length;
  const { starts, ordinals, tfs } = state;
  if (state.lengths.length < count || state.classes.length < count) {
    throw new Error('the index has fewer lengths or classes than documents');
  }
  if (state.values.some((column) => column.length < count)) {
    throw new Error('the index has fewer values than documents');
  }
  if (tfs.length !== ordinals.length) throw new Error('the postings have not one tf each');
  if (starts.length < 1 || starts[0] !== 0 || starts[starts.length - 1] !== ordinals.length) {
    throw new Error('the postings do not start at 0 and end with the index');
  }
  if (state.df.length < starts.length - 1) throw new Error('a term has no document frequency');
  for (let t = 1; t < starts.length; t++) {
    if ((starts[t] as number) < (starts[t - 1] as number)) {
      throw new Error(`the postings of term ${t - 1} are torn`);
    }
  }
  for (let i = 0; i < ordinals.length; i++) {
    const ordinal = ordinals[i] as number;
    if (ordinal < 0 || ordinal >= count || tfs[i] === 0) {
      throw new Error('a posting names no document of the index, or holds its term no time');
    }
  }
}

/**
 * The array itself when it is the whole of its buffer (a sidecar's column is read into one of its
 * own: keeping it saves a copy of the largest part of the index at every start), else a copy, so
 * that the index never holds a view that keeps a larger buffer alive. Restore's arrays are given
 * up to it: the index replaces its postings, never writes into them.
 */
export function adopt<T extends Int32Array | Uint16Array>(column: T): T {
  return column.byteOffset === 0 && column.byteLength === column.buffer.byteLength
    ? column
    : (column.slice() as T);
}

/**
 * `column` with `room` rows: itself, as the whole of its buffer, when it begins a buffer of just
 * that room (read so by the sidecar, a buffer a column: the rows past it never written, zeros as
 * in a new array); else a copy, so that no other array's bytes are ever taken in.
 */
export function roomy<T extends Int32Array | Uint8Array | Float64Array>(
  column: Int32Array | Uint8Array | Float64Array,
  room: number,
  make: (length: number, buffer?: ArrayBuffer) => T,
): T {
  const { buffer, byteOffset, BYTES_PER_ELEMENT: bytes } = column;
  if (byteOffset === 0 && buffer instanceof ArrayBuffer && buffer.byteLength === room * bytes) {
    return make(room, buffer);
  }
  const copy = make(room);
  copy.set(column);
  return copy;
}
