import path from 'node:path';
import { type OpenedMemory, openMemory } from '../app/memory.js';
import type { Config } from '../config/index.js';
import { createLogger } from '../logger.js';
import { FILES } from '../storage/jsonl/store.js';
import { SIDECAR_FILE } from '../storage/sidecar.js';

/** Seconds since the epoch: the wall clock, or the fixed instant of --at / MNEMO_NOW. */
/** The JSONL store's log and sidecar in `dataDir`: what the heap is sized by before it loads. */
export function storeFiles(dataDir: string): { log: string; sidecar: string } {
  return { log: path.join(dataDir, FILES.memories), sidecar: path.join(dataDir, SIDECAR_FILE) };
}

export function clockFor(config: Config): () => number {
  const fixed = config.now;
  return fixed !== undefined ? () => fixed : () => Math.floor(Date.now() / 1000);
}

/** Runs a one-shot command over the loaded memory, and closes it whatever happens. */
export async function withMemory<T>(
  config: Config,
  fn: (opened: OpenedMemory) => Promise<T> | T,
): Promise<T> {
  const logger = createLogger(config.logLevel);
  const opened = openMemory(config, { logger, clock: clockFor(config) });
  try {
    await opened.readiness.wait('store');
    return await fn(opened);
  } finally {
    await opened.close();
  }
}
