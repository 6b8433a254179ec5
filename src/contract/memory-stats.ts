import { z } from 'zod';
import { READS, type ToolContract } from './shared.js';

export const memoryStatsInput = z.object({});

export const memoryStatsOutput = z.object({
  total: z.number(),
  by_status: z.object({
    active: z.number(),
    promoted: z.number(),
    archived: z.number(),
    superseded: z.number(),
  }),
  score_quantiles: z
    .object({
      p10: z.number(),
      p25: z.number(),
      p50: z.number(),
      p75: z.number(),
      p90: z.number(),
    })
    .nullable()
    .describe('Decay scores of active and promoted memories; null when there are none.'),
  danger_zone_count: z.number(),
  gc_candidates: z.number(),
  promotion_candidates: z.number(),
  relations: z.number(),
  store_bytes: z.record(z.string(), z.number()),
  embeddings: z
    .object({
      state: z.enum(['loading', 'ready', 'off']),
      model: z.string().nullable(),
      vectors: z.number(),
      backlog: z.number(),
      ann: z
        .object({ state: z.enum(['exact', 'building', 'ready']), indexed: z.number() })
        .optional()
        .describe(
          'The approximate index of a large store (vectors.ann): ready once built, with the vectors it holds; search is exact until then.',
        ),
    })
    .describe(
      'The embedding model (MNEMO_EMBEDDINGS) and how many memories have vectors; while loading, search is by words only.',
    ),
});

export type MemoryStatsOutput = z.infer<typeof memoryStatsOutput>;

export const memoryStats: ToolContract<typeof memoryStatsInput, typeof memoryStatsOutput> = {
  name: 'memory_stats',
  title: 'Memory statistics',
  description:
    'Counts by status, decay score spread, memories due for review, gc and promotion candidates, store size.',
  guide:
    'Counts by status, the spread of decay scores (score_quantiles), how many memories are in the review danger zone, ' +
    'how many gc would forget and how many qualify for promotion, the number of relations, the size of the store, ' +
    'and the embedding model with how many memories have vectors (while it loads, search is by words only). ' +
    'The resource mnemo://stats holds the same.',
  input: memoryStatsInput,
  output: memoryStatsOutput,
  annotations: READS,
};
