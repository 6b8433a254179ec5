// What a cosine means for each embedding model: the thresholds and weights search and
// save_memory use unless configured.
import { MINILM_MODEL, STATIC_MODEL } from './embeddings.js';

/**
 * What a cosine means differs by model: where a match by meaning starts and how much of the
 * relevance it carries (both tuned on the LoCoMo development file, see the README), and where
 * save_memory calls a memory a near-duplicate (paraphrases score about 0.9 with the static model,
 * memories on the same topic 0.5 to 0.6).
 */
export interface ModelDefaults {
  similarity: number;
  hybridWeight: number;
  nearDuplicate: number;
}

const MODEL_DEFAULTS: Record<string, ModelDefaults> = {
  [STATIC_MODEL]: { similarity: 0.4, hybridWeight: 0.3, nearDuplicate: 0.85 },
  // Not measurable here (no model hub): the usual cosines of this model, not tuned.
  [MINILM_MODEL]: { similarity: 0.35, hybridWeight: 0.3, nearDuplicate: 0.9 },
};
const FALLBACK_DEFAULTS: ModelDefaults = { similarity: 0.4, hybridWeight: 0.2, nearDuplicate: 0.9 };

export function modelDefaults(model: string | null): ModelDefaults {
  const base = model?.replace(/:[^:/]*$/, '') ?? '';
  return MODEL_DEFAULTS[base] ?? FALLBACK_DEFAULTS;
}
