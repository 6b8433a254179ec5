// The matrix-vector product of vector search, run by the ONNX runtime that MiniLM loads.
import { importTransformers } from './minilm.js';
import type { MatVec } from './vector-index.js';

/** transformers.js's `matmul` (a one-node ONNX graph): SIMD and threads where the loop has none. */
export async function onnxMatVec(): Promise<MatVec> {
  const { Tensor, matmul } = await importTransformers();
  return async (matrix, rows, dims, vector) => {
    if (rows === 0) return new Float32Array(0);
    const product = await matmul(
      new Tensor('float32', matrix, [rows, dims]),
      new Tensor('float32', vector, [dims, 1]),
    );
    return product.data as Float32Array;
  };
}
