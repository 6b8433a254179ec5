// A vector as it is stored: int8 values and a scale, and back to a unit vector.
import type { StoredVector } from '../storage/vector-store.js';

/** A vector as int8 and the scale that turns it back (the cosine moves by well under 1%). */
export function quantise(vector: Float32Array): { values: Int8Array; scale: number } {
  let max = 0;
  for (const x of vector) max = Math.max(max, Math.abs(x));
  const scale = max / 127 || 1;
  const values = new Int8Array(vector.length);
  for (let i = 0; i < vector.length; i++) values[i] = Math.round((vector[i] as number) / scale);
  return { values, scale };
}

/** The unit vector of a stored one; undefined when it has not `dimensions` values. */
export function dequantise(
  stored: Pick<StoredVector, 'values' | 'scale'>,
  dimensions: number,
): Float32Array | undefined {
  const { values, scale } = stored;
  if (values.length !== dimensions) return undefined;
  const out = new Float32Array(dimensions);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    out[i] = (values[i] as number) * scale;
    norm += (out[i] as number) ** 2;
  }
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < dimensions; i++) (out[i] as number) /= norm;
  return out;
}
