import { z } from 'zod';
import { AUTO_MERGE_COHESION } from '../search/clustering.js';
import { clusterSettings } from './cluster-memories.js';
import { type ToolContract, writes } from './shared.js';

const CONSOLIDATE_MODES = ['preview', 'apply', 'link'] as const;
export const consolidateMemoriesInput = z.object({
  cluster_id: z
    .string({ error: 'cluster_id must be an id from cluster_memories, e.g. c-1a2b3c4d5e6f' })
    .regex(/^c-[0-9a-f]{12}$/, {
      error: 'cluster_id must be an id from cluster_memories, e.g. c-1a2b3c4d5e6f',
    })
    .optional(),
  auto_detect: z
    .boolean({ error: 'auto_detect must be true or false' })
    .optional()
    .describe('Every auto-merge cluster.'),
  mode: z
    .enum(CONSOLIDATE_MODES, { error: 'mode must be preview, apply or link' })
    .optional()
    .meta({ default: 'preview' }),
  ...clusterSettings,
});

export const clusterConsolidation = z.object({
  cluster_id: z.string(),
  member_ids: z.array(z.string()),
  cohesion: z.number(),
  memory_id: z
    .string()
    .nullable()
    .describe('The merged memory (apply); null in a preview or with link.'),
  merged: z.object({
    content: z.string(),
    tags: z.array(z.string()),
    entities: z.array(z.string()),
    use_count: z.number(),
    strength: z.number(),
    created_at: z.number(),
    last_used: z.number(),
    source: z.string().nullable(),
    context: z.string().nullable(),
  }),
  relation_ids: z.array(z.string()),
  archived_ids: z.array(z.string()),
});

export const consolidateMemoriesOutput = z.object({
  mode: z.enum(CONSOLIDATE_MODES),
  consolidations: z.array(clusterConsolidation),
});

export type ConsolidateMemoriesInput = z.infer<typeof consolidateMemoriesInput>;
export type ConsolidateMemoriesOutput = z.infer<typeof consolidateMemoriesOutput>;
export type ClusterConsolidation = z.infer<typeof clusterConsolidation>;

export const consolidateMemories: ToolContract<
  typeof consolidateMemoriesInput,
  typeof consolidateMemoriesOutput
> = {
  name: 'consolidate_memories',
  title: 'Merge or link a cluster',
  description:
    'Merges (mode apply) or links (mode link) the memories of a cluster from cluster_memories.',
  guide:
    'Acts on a cluster that cluster_memories returned: pass the same threshold and max_cluster_size, so the cluster is found again. ' +
    `auto_detect: true takes every cluster whose suggested action is auto-merge (cohesion ${AUTO_MERGE_COHESION} or more) instead of one cluster_id.\n\n` +
    '- mode preview (the default) shows the merged memory and changes nothing.\n' +
    "- mode apply saves one memory with the members' content (repeated sentences once), tags and entities united and use counts summed, " +
    'links it to each member (consolidated_from) and archives the members (restore_memory brings one back; nothing is deleted).\n' +
    '- mode link relates each member to the most central one (related) and merges nothing.',
  input: consolidateMemoriesInput,
  output: consolidateMemoriesOutput,
  annotations: writes(),
};
