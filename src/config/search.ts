// The settings of search: the embedding model, and how much meaning weighs against words.
import { z } from 'zod';
import { EMBEDDINGS_SETTINGS } from '../search/embeddings.js';
import { number, type Setting } from './rows.js';

/** The retriever's settings; the cosines are unset by default, each model has its own. */
export const SEARCH = {
  embeddings: {
    variable: 'MNEMO_EMBEDDINGS',
    default: 'auto',
    schema: z.enum(EMBEDDINGS_SETTINGS, {
      error:
        'MNEMO_EMBEDDINGS must be one of auto, minilm, static, off: auto uses all-MiniLM-L6-v2 when it loads, else the bundled static model',
    }),
    meaning:
      '`auto` (all-MiniLM-L6-v2 when `@huggingface/transformers` is installed and the model loads, else the shipped static model), `minilm`, `static` or `off` (words only)',
  },
  // Unset by default: each model has its own (a cosine means different things to different models).
  hybridWeight: {
    variable: 'MNEMO_HYBRID_WEIGHT',
    schema: number('MNEMO_HYBRID_WEIGHT', 'set e.g. 0.1')
      .refine((v) => v >= 0 && v <= 1, {
        message:
          'MNEMO_HYBRID_WEIGHT must be between 0 (words only) and 1 (meaning only), e.g. 0.1',
      })
      .optional(),
    meaning: 'share of relevance that comes from meaning, 0 (words only) to 1 (meaning only)',
  },
  similarityThreshold: {
    variable: 'MNEMO_SIMILARITY_THRESHOLD',
    schema: number('MNEMO_SIMILARITY_THRESHOLD', 'set a cosine, e.g. 0.5')
      .refine((v) => v > -1 && v < 1, {
        message: 'MNEMO_SIMILARITY_THRESHOLD must be a cosine between -1 and 1, e.g. 0.5',
      })
      .optional(),
    meaning: 'cosine from which a memory matches the query by meaning',
  },
  nearDuplicateThreshold: {
    variable: 'MNEMO_NEAR_DUPLICATE_THRESHOLD',
    schema: number('MNEMO_NEAR_DUPLICATE_THRESHOLD', 'set a cosine, e.g. 0.9')
      .refine((v) => v > 0 && v <= 1, {
        message: 'MNEMO_NEAR_DUPLICATE_THRESHOLD must be a cosine above 0 and at most 1, e.g. 0.9',
      })
      .optional(),
    meaning: 'cosine from which save_memory lists a memory under `similar_to`',
  },
} satisfies Record<string, Setting>;
