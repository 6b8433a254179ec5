import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { LexicalIndex } from '../search/lexical-index.js';
import { MemoryStore } from '../storage/store.js';
import { type MemorySettings, MemoryService } from './service.js';

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
  close(): void;
}

/** Opens the data dir of `config` and wires the store, the index and the service. */
export async function openMemory(
  config: Config,
  deps: { logger: Logger; clock: () => number },
): Promise<OpenedMemory> {
  const index = new LexicalIndex();
  const store = await MemoryStore.open(
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
  return { memory, store, close: () => store.close() };
}
