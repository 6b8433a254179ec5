// What every use case works with: the store, the retriever, the clock, the settings. Nothing here
// reads the wall clock or the environment: the composition root (src/app/memory.ts) brings them.
import type { Logger } from 'pino';
import {
  type DangerZone,
  type DecayParams,
  decayScorer,
  type MemoryDynamics,
  type PromotionParams,
} from '../decay/index.js';
import type { Retriever, RetrieverSettings } from '../search/retriever.js';
import type { SemanticIndex } from '../search/semantic-index.js';
import type { StorageEngine } from '../storage/engine.js';
import type { MemoryRecord } from '../storage/records.js';
import type { VaultIndex } from '../vault/note-index.js';
import type { VaultWriter } from '../vault/writer.js';
import { notFound } from './errors.js';
import { type FactJudge, judgeFacts } from './facts/judge.js';
import type { NoteSync } from './note-sync.js';
import type { Readiness } from './readiness.js';

export interface MemorySettings extends RetrieverSettings {
  decay: DecayParams;
  dangerZone: DangerZone;
  promotion: PromotionParams;
  forgetThreshold: number;
  reviewBlendRatio: number;
  searchDecayWeight: number;
  autoReinforce: boolean;
}

/** The Obsidian vault: where promoted memories are written, and the index of its notes. */
export interface VaultParts {
  writer: VaultWriter;
  notes: VaultIndex;
  sync: NoteSync;
  /** Whether a note (its path in the vault) is one this namespace may see; all when unset. */
  visible?: (notePath: string) => boolean;
}

/** Progress of a long call: `done` of `total` steps. */
export type Progress = (done: number, total: number, message?: string) => void;

export interface ContextDeps {
  engine: StorageEngine;
  retriever: Retriever;
  clock: () => number;
  settings: MemorySettings;
  logger: Logger;
  readiness: Readiness;
  vault?: VaultParts | undefined;
  /** Embeddings of the memories, for what compares meanings directly (clusters, stats). */
  semantic?: SemanticIndex | undefined;
  /** Whether a new memory supersedes or contradicts older ones; the offline judge by default. */
  judgeFacts?: FactJudge | undefined;
}

export interface MemoryContext extends ContextDeps {
  judgeFacts: FactJudge;
  /** A memory's decay score at `now`: of the few numbers it depends on. */
  score(record: MemoryDynamics, now: number): number;
  /** Waits for the store's load, then picks up other processes' writes: a read starts here. */
  sync(): Promise<void>;
  /** The live memory `id`, or a MemoryError naming `field` and how to find an id. */
  require(id: string, field?: string): MemoryRecord;
}

export function createContext(deps: ContextDeps): MemoryContext {
  return {
    ...deps,
    judgeFacts: deps.judgeFacts ?? judgeFacts,
    score: decayScorer(deps.settings.decay),
    async sync() {
      await deps.readiness.wait('store');
      await deps.engine.refresh();
    },
    require(id, field = 'memory_id') {
      const record = deps.engine.memories.get(id);
      if (!record) throw notFound(id, field);
      return record;
    },
  };
}
