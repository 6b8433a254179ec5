import { z } from 'zod';
import {
  AUTO_MERGE_COHESION,
  DEFAULT_CLUSTER_OPTIONS,
  REVIEW_COHESION,
} from '../search/clustering.js';
import { READS, type ToolContract } from './shared.js';

/** The clustering settings cluster_memories and consolidate_memories both take. */
export const clusterSettings = {
  threshold: z
    .number({ error: 'threshold must be a cosine, e.g. 0.83' })
    .min(0.5, {
      error: 'threshold must be at least 0.5: lower links memories that only share a topic',
    })
    .max(1, { error: 'threshold must be at most 1 (identical meaning)' })
    .optional()
    .meta({ default: DEFAULT_CLUSTER_OPTIONS.threshold }),
  max_cluster_size: z
    .number({ error: 'max_cluster_size must be a whole number from 2 to 100, e.g. 12' })
    .int({ error: 'max_cluster_size must be a whole number, e.g. 12' })
    .min(2, { error: 'max_cluster_size must be at least 2' })
    .max(100, { error: 'max_cluster_size must be at most 100' })
    .optional()
    .meta({ default: DEFAULT_CLUSTER_OPTIONS.maxClusterSize }),
};

export const clusterMemoriesInput = z.object({
  ...clusterSettings,
  find_duplicates: z
    .boolean({ error: 'find_duplicates must be true or false' })
    .optional()
    .describe('Only clusters to auto-merge.'),
});

export const cluster = z.object({
  id: z.string().describe('Stable for the same members: pass it to consolidate_memories.'),
  memory_ids: z.array(z.string()),
  cohesion: z.number().describe('Mean cosine between the members, up to 1.'),
  suggested_action: z
    .enum(['auto-merge', 'review', 'keep-apart'])
    .describe(
      `auto-merge: cohesion >= ${AUTO_MERGE_COHESION}; review: >= ${REVIEW_COHESION}; keep-apart: below.`,
    ),
});

export const clusterMemoriesOutput = z.object({ clusters: z.array(cluster) });

export type ClusterMemoriesInput = z.infer<typeof clusterMemoriesInput>;
export type ClusterMemoriesOutput = z.infer<typeof clusterMemoriesOutput>;

export const clusterMemories: ToolContract<
  typeof clusterMemoriesInput,
  typeof clusterMemoriesOutput
> = {
  name: 'cluster_memories',
  title: 'Find similar memories',
  description:
    'Groups active memories close in meaning, each with a suggested action; changes nothing. Needs embeddings.',
  guide:
    'Groups active memories whose meanings are close (single linkage over the cosine of their embeddings, strongest links first, groups capped in size), ' +
    `each with its cohesion (mean cosine) and a suggested action: auto-merge at cohesion ${AUTO_MERGE_COHESION} or more, review at ${REVIEW_COHESION} or more, else keep-apart. ` +
    'Changes nothing: pass a cluster id to consolidate_memories, with the same threshold and max_cluster_size, to merge or link one.\n\n' +
    `- threshold: the cosine, 0.5 to 1, at or above which two memories are linked (default ${DEFAULT_CLUSTER_OPTIONS.threshold}).\n` +
    `- max_cluster_size: no cluster grows beyond this many memories, 2 to 100 (default ${DEFAULT_CLUSTER_OPTIONS.maxClusterSize}).\n` +
    `- find_duplicates: only the clusters close enough to merge as they are (cohesion ${AUTO_MERGE_COHESION} or more).\n\n` +
    'Needs embeddings (MNEMO_EMBEDDINGS auto or static). Long runs report progress when the call has a progressToken.',
  input: clusterMemoriesInput,
  output: clusterMemoriesOutput,
  annotations: READS,
};
