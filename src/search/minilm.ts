// all-MiniLM-L6-v2 through @huggingface/transformers and its ONNX runtime: an optional package,
// installed by whoever wants this model (`npm install @huggingface/transformers`), imported only
// when the model is asked for.
import path from 'node:path';
import type { FeatureExtractionPipeline } from '@huggingface/transformers';
import {
  type EmbeddingProvider,
  type LoadEmbeddingsOptions,
  MINILM_MODEL,
  unitOrZero,
} from './embeddings.js';

type Transformers = typeof import('@huggingface/transformers');

/** The package, or an error that names the setting and the fix when it is not installed. */
export async function importTransformers(
  load: () => Promise<Transformers> = () => import('@huggingface/transformers'),
): Promise<Transformers> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw error;
    throw new Error(
      `${MINILM_MODEL} needs the package @huggingface/transformers, which is not installed: ` +
        'run `npm install @huggingface/transformers` where mnemo is installed ' +
        '(`npm install -g @huggingface/transformers` beside a global mnemo), ' +
        'or set MNEMO_EMBEDDINGS=static to use the bundled model without this message',
    );
  }
}

/**
 * A feature-extraction pipeline (mean pooling, normalized, q8). `source` is a hub id, looked up in
 * cacheDir and then downloaded, or a folder path, read from there only.
 */
export async function loadPipeline(
  model: string,
  source: string,
  options: LoadEmbeddingsOptions,
): Promise<EmbeddingProvider> {
  const { env, LogLevel, pipeline } = await importTransformers();
  // The library's settings are global; these are the only ones mnemo changes. Its warnings go to
  // console.warn, one per missing file, each time: the reason we log is enough.
  env.logLevel = LogLevel.ERROR;
  env.allowLocalModels = true;
  env.allowRemoteModels = options.allowRemote ?? true;
  // A hub id is looked for under localModelPath before the cache and the hub: the cache itself,
  // so that "not found at <path>" names the place where a download would have gone.
  env.localModelPath = options.cacheDir;
  env.cacheDir = options.cacheDir;
  // A network that drops packets instead of refusing them would hold the download (and the
  // fallback to the static model) for minutes: a server must answer within this time.
  env.fetch = (input: string | URL, init?: RequestInit) => fetchWithHeaderTimeout(input, init);
  const local = path.isAbsolute(source);
  const extract = await pipeline('feature-extraction', source, {
    dtype: 'q8',
    device: 'cpu',
    cache_dir: options.cacheDir,
    local_files_only: local || options.allowRemote === false,
    session_options: { logSeverityLevel: 3 },
  });
  const provider = new PipelineProvider(`${model}:q8`, extract);
  // One text now, so that a model that loads but cannot run fails here, not at the first search.
  const [probe] = await provider.embed(['memory']);
  provider.dimensions = probe?.length ?? 0;
  return provider;
}

/** How long a model server may take to start answering a download request. */
const RESPONSE_TIMEOUT_MS = 15_000;

/** fetch, given up when no response has begun after `timeoutMs` (the body may take longer). */
export async function fetchWithHeaderTimeout(
  input: string | URL,
  init?: RequestInit,
  timeoutMs = RESPONSE_TIMEOUT_MS,
): Promise<Response> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`no answer from ${String(input)} in ${timeoutMs} ms`)),
    timeoutMs,
  );
  init?.signal?.addEventListener('abort', () => controller.abort(init.signal?.reason));
  try {
    return await fetch(input, { ...init, signal: controller.signal });
  } finally {
    clearTimeout(timer);
  }
}

const BATCH_TEXTS = 32;
/** Texts x longest text, in characters: bounds a batch's padded tensors with long memories. */
const BATCH_CHARS = 64 * 1024;

class PipelineProvider implements EmbeddingProvider {
  dimensions = 0;
  /** One batch at a time, whoever asks: the memory held is one batch's. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly id: string,
    private readonly extract: FeatureExtractionPipeline,
  ) {}

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    const run = this.queue.then(() => this.embedAll(texts));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async embedAll(texts: readonly string[]): Promise<Float32Array[]> {
    const out = new Array<Float32Array>(texts.length);
    // Shortest first, so each batch pads its texts to about their own length.
    const order = texts.map((_, i) => i).sort((a, b) => lengthOf(texts, a) - lengthOf(texts, b));
    let start = 0;
    while (start < order.length) {
      let end = start + 1;
      while (
        end < order.length &&
        end - start < BATCH_TEXTS &&
        (end + 1 - start) * lengthOf(texts, order[end] ?? 0) <= BATCH_CHARS
      ) {
        end++;
      }
      const batch = order.slice(start, end);
      const output = await this.extract(
        batch.map((i) => texts[i] ?? ''),
        { pooling: 'mean', normalize: true },
      );
      const data = output.data as Float32Array;
      const width = output.dims[1] ?? 0;
      batch.forEach((index, row) => {
        out[index] = unitOrZero(data.slice(row * width, (row + 1) * width));
      });
      start = end;
    }
    return out;
  }
}

function lengthOf(texts: readonly string[], i: number): number {
  return texts[i]?.length ?? 0;
}
