import path from 'node:path';
import type { Logger } from 'pino';
import { fromPackageRoot } from '../platform/package-root.js';

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

/** models/ at the package root. */
export const SHIPPED_MODELS_DIR = fromPackageRoot('models');

/**
 * The provider for a setting: `off` gives null; `minilm` and `auto` give MiniLM when it loads,
 * else the static model (MiniLM's failure is a warning with `minilm`, where it was asked for, and
 * an info line with `auto`); null too, with an error logged, if even the static model does not
 * load, so that search goes on with words alone. MiniLM needs @huggingface/transformers, an
 * optional package imported on the first call that asks for MiniLM; the static model is plain
 * TypeScript (static-model.ts), imported on the first call too, not when this module is.
 */
export async function loadEmbeddings(
  setting: EmbeddingsSetting,
  options: LoadEmbeddingsOptions,
): Promise<EmbeddingProvider | null> {
  if (setting === 'off') return null;
  const { logger } = options;
  if (setting === 'minilm' || setting === 'auto') {
    try {
      const { loadPipeline } = await import('./minilm.js');
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
    const { loadStaticModel } = await import('./static-model.js');
    return loadStaticModel(dir, `${STATIC_MODEL}:q8`);
  } catch (error) {
    logger.error(
      { model: STATIC_MODEL, dir, err: reason(error) },
      'cannot load the static embedding model; search uses words alone',
    );
    return null;
  }
}

/** Mean pooling over no known token is 0/0: such a text gets the zero vector. */
export function unitOrZero(vector: Float32Array): Float32Array {
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
