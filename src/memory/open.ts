import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { LexicalIndex } from '../search/lexical-index.js';
import { MemoryStore } from '../storage/store.js';
import { MemoryService, type MemorySettings } from './service.js';

export function settingsFrom(config: Config): MemorySettings {
  return {
    decay: { model: config.decayModel, halfLifeDays: config.halfLifeDays, beta: config.beta },
    dangerZone: { min: config.dangerZoneMin, max: config.dangerZoneMax },
    promotion: {
      threshold: config.promoteThreshold,
      minUses: config.promoteMinUses,
      useCount: config.promoteUseCount,
      windowDays: config.promoteWindowDays,
    },
    forgetThreshold: config.forgetThreshold,
    reviewBlendRatio: config.reviewBlendRatio,
    searchDecayWeight: config.searchDecayWeight,
    autoReinforce: config.autoReinforce,
  };
}

export interface OpenedMemory {
  memory: MemoryService;
  store: MemoryStore;
  /** Settles when the store has loaded; every service call waits for it. */
  ready: Promise<void>;
  close(): void;
}

/**
 * Wires the store, the index and the service over the data dir of `config`. Returns at once;
 * the store loads in the background (a folder that cannot be used throws here).
 */
export function openMemory(
  config: Config,
  deps: { logger: Logger; clock: () => number },
): OpenedMemory {
  const index = new LexicalIndex();
  const store = MemoryStore.start(
    { dataDir: config.dataDir, logger: deps.logger, clock: deps.clock },
    [index],
  );
  const memory = new MemoryService({
    store,
    index,
    clock: deps.clock,
    settings: settingsFrom(config),
    logger: deps.logger,
  });
  return { memory, store, ready: store.ready, close: () => store.close() };
}
