import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FeatureExtractionPipeline } from '@huggingface/transformers';
import type { Logger } from 'pino';

/** Turns texts into vectors whose cosine says how close their meanings are. */
export interface EmbeddingProvider {
  /** Model and precision, e.g. 'Xenova/all-MiniLM-L6-v2:q8': part of the vector sidecar's key. */
  readonly id: string;
  readonly dimensions: number;
  /**
   * One vector per text, in order, of unit length; the zero vector for a text with no word the
   * model knows (empty, or only unknown words), whose cosine with anything is 0.
   */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

export const EMBEDDINGS_SETTINGS = ['auto', 'minilm', 'static', 'off'] as const;
export type EmbeddingsSetting = (typeof EMBEDDINGS_SETTINGS)[number];

export const MINILM_MODEL = 'Xenova/all-MiniLM-L6-v2';
export const STATIC_MODEL = 'mnemo/static-glove-100d';

export interface LoadEmbeddingsOptions {
  /** Where downloaded models are cached: `<data dir>/models`. */
  cacheDir: string;
  logger: Logger;
  /** The folder of the models shipped with mnemo (the static one is in `static/`). */
  modelsDir?: string;
  /** false: never download, so MiniLM loads only when it is in cacheDir already. */
  allowRemote?: boolean;
}

/** models/ at the package root, from src/search/ or dist/search/ alike. */
export const SHIPPED_MODELS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../models',
);

/**
 * The provider for a setting: `off` gives null; `minilm` and `auto` give MiniLM when it loads,
 * else the static model (MiniLM's failure is a warning with `minilm`, where it was asked for, and
 * an info line with `auto`); null too, with an error logged, if even the static model does not
 * load, so that search goes on with words alone. @huggingface/transformers is imported here, on
 * the first call, not when this module is.
 */
export async function loadEmbeddings(
  setting: EmbeddingsSetting,
  options: LoadEmbeddingsOptions,
): Promise<EmbeddingProvider | null> {
  if (setting === 'off') return null;
  const { logger } = options;
  if (setting === 'minilm' || setting === 'auto') {
    try {
      return await loadPipeline(MINILM_MODEL, MINILM_MODEL, options);
    } catch (error) {
      const log = setting === 'minilm' ? logger.warn : logger.info;
      log.call(
        logger,
        { model: MINILM_MODEL, cacheDir: options.cacheDir, err: reason(error) },
        `cannot load ${MINILM_MODEL}; using the static model ${STATIC_MODEL}`,
      );
    }
  }
  const dir = path.join(options.modelsDir ?? SHIPPED_MODELS_DIR, 'static');
  try {
    return await loadPipeline(STATIC_MODEL, dir, options);
  } catch (error) {
    logger.error(
      { model: STATIC_MODEL, dir, err: reason(error) },
      'cannot load the static embedding model; search uses words alone',
    );
    return null;
  }
}

/**
 * A feature-extraction pipeline (mean pooling, normalized, q8). `source` is a hub id, looked up in
 * cacheDir and then downloaded, or a folder path, read from there only.
 */
async function loadPipeline(
  model: string,
  source: string,
  options: LoadEmbeddingsOptions,
): Promise<EmbeddingProvider> {
  const { env, LogLevel, pipeline } = await import('@huggingface/transformers');
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

/** Mean pooling over no known token is 0/0: such a text gets the zero vector. */
function unitOrZero(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  return Number.isFinite(sum) && sum > 0 ? vector : vector.fill(0);
}

/** The message, and its cause's, without a stack ("fetch failed: getaddrinfo ENOTFOUND ..."). */
function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
