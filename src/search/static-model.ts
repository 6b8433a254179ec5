// The static model shipped in models/static, in plain TypeScript: a text's vector is the mean of
// its tokens' rows of a table, normalized. No ONNX runtime: the table is embeddings.bin (int8
// rows, then one float32 scale a row), checked against the SHA-256 that config.json records and
// read once into a Float32Array; the tokenizer is tokenizer.json run by @huggingface/tokenizers,
// the one transformers.js runs. Each step repeats transformers.js's feature-extraction pipeline
// (the ONNX graph's float32 dequantization, mean pooling summed in doubles, its float32 norm),
// so that the vectors are the ones the ONNX model gave (test/search/static-model.test.ts).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Tokenizer } from '@huggingface/tokenizers';
import { type EmbeddingProvider, unitOrZero } from './embeddings.js';

/** Bounds of a table this reader accepts: the shipped one is 40,002 x 100. */
export const MAX_ROWS = 1_000_000;
export const MAX_DIMENSIONS = 4096;
const MAX_TABLE_BYTES = 256 * 1024 * 1024;

/** What config.json says of the table. */
export interface StaticTableSpec {
  rows: number;
  dimensions: number;
  /** SHA-256 of embeddings.bin, hex. */
  sha256: string;
}

/** The largest scale whose products with an int8 are finite float32 values. */
const MAX_SCALE = 3.4028234663852886e38 / 128;

/**
 * The table of `bytes` (rows x dimensions int8, then rows float32 little-endian scales) as
 * float32 rows, each value the int8 times its row's scale rounded to float32, as the ONNX
 * graph's Cast and Mul gave it. Throws on a size, hash or scale that does not fit the spec.
 */

export function readStaticTable(bytes: Uint8Array, spec: StaticTableSpec): Float32Array {
  const { rows, dimensions } = spec;
  if (!Number.isSafeInteger(rows) || rows < 1 || rows > MAX_ROWS) {
    throw new Error(`static model table: rows must be 1 to ${MAX_ROWS}, not ${rows}`);
  }
  if (!Number.isSafeInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) {
    throw new Error(
      `static model table: dimensions must be 1 to ${MAX_DIMENSIONS}, not ${dimensions}`,
    );
  }
  const size = rows * dimensions + rows * 4;
  if (size > MAX_TABLE_BYTES) throw new Error(`static model table: ${size} bytes is too large`);
  if (bytes.length !== size) {
    throw new Error(`static model table: ${bytes.length} bytes, expected ${size}`);
  }
  const digest = crypto.createHash('sha256').update(bytes).digest('hex');
  if (digest !== spec.sha256) throw new Error('static model table: SHA-256 does not match');
  const values = new Int8Array(bytes.buffer, bytes.byteOffset, rows * dimensions);
  const scales = new DataView(bytes.buffer, bytes.byteOffset + rows * dimensions, rows * 4);
  const table = new Float32Array(rows * dimensions);
  for (let r = 0; r < rows; r++) {
    const scale = scales.getFloat32(r * 4, true);
    if (!Number.isFinite(scale)) throw new Error(`static model table: row ${r} has no scale`);
    // An int8 (at most 128 away from 0) times the scale must be a float32 still.
    if (Math.abs(scale) > MAX_SCALE) {
      throw new Error(`static model table: row ${r}'s scale ${scale} is out of range`);
    }
    for (let d = r * dimensions; d < (r + 1) * dimensions; d++) {
      table[d] = (values[d] as number) * scale;
    }
  }
  return table;
}

interface StaticConfig {
  hidden_size: number;
  vocab_size: number;
  table: { file: string; sha256: string };
}

function readJson(file: string): unknown {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function configOf(value: unknown): StaticConfig {
  const config = value as Partial<StaticConfig> | null;
  const table = config?.table;
  if (
    typeof config?.hidden_size !== 'number' ||
    typeof config.vocab_size !== 'number' ||
    typeof table?.file !== 'string' ||
    typeof table.sha256 !== 'string' ||
    path.basename(table.file) !== table.file
  ) {
    throw new Error('static model config.json: needs hidden_size, vocab_size and table');
  }
  return config as StaticConfig;
}

/** The model in `dir` (config.json, embeddings.bin, tokenizer.json, tokenizer_config.json). */
export function loadStaticModel(dir: string, id: string): EmbeddingProvider {
  const config = configOf(readJson(path.join(dir, 'config.json')));
  const rows = config.vocab_size;
  const dimensions = config.hidden_size;
  const table = readStaticTable(fs.readFileSync(path.join(dir, config.table.file)), {
    rows,
    dimensions,
    sha256: config.table.sha256,
  });
  const tokenizerConfig = readJson(path.join(dir, 'tokenizer_config.json')) as {
    model_max_length?: number;
  };
  const tokenizer = new Tokenizer(readJson(path.join(dir, 'tokenizer.json')) as object, {
    ...tokenizerConfig,
  });
  const maxTokens = tokenizerConfig.model_max_length ?? Number.POSITIVE_INFINITY;
  return new StaticModel(id, dimensions, rows, table, tokenizer, maxTokens);
}

/** Texts embedded between two turns of the event loop. */
const CHUNK_TEXTS = 64;

class StaticModel implements EmbeddingProvider {
  constructor(
    readonly id: string,
    readonly dimensions: number,
    private readonly rows: number,
    private readonly table: Float32Array,
    private readonly tokenizer: Tokenizer,
    private readonly maxTokens: number,
  ) {}

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i++) {
      // A long batch (a reindex) lets other work in now and then.
      if (i > 0 && i % CHUNK_TEXTS === 0) await nextTurn();
      out.push(this.vector(texts[i] ?? ''));
    }
    return out;
  }

  /** transformers.js's steps for one text: truncation, mean pooling, then its L2 normalize. */
  private vector(text: string): Float32Array {
    const d = this.dimensions;
    const ids = this.tokenizer.encode(text).ids;
    const count = Math.min(ids.length, this.maxTokens);
    const sums = new Float64Array(d);
    for (let t = 0; t < count; t++) {
      const id = ids[t] as number;
      // The tokenizer gives only ids of its vocabulary, which the table covers; be safe anyway.
      if (id < 0 || id >= this.rows) continue;
      const base = id * d;
      for (let k = 0; k < d; k++) sums[k] = (sums[k] as number) + (this.table[base + k] as number);
    }
    // Float32 as the pipeline keeps them: the mean, the norm's running sum, the quotient.
    const vector = new Float32Array(d);
    for (let k = 0; k < d; k++) vector[k] = (sums[k] as number) / count;
    const square = new Float32Array(1);
    for (let k = 0; k < d; k++) square[0] = (square[0] as number) + (vector[k] as number) ** 2;
    const norm = Math.fround((square[0] as number) ** 0.5);
    for (let k = 0; k < d; k++) vector[k] = (vector[k] as number) / norm;
    return unitOrZero(vector);
  }
}
