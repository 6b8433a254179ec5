import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { progressReporter } from './progress.js';
import { answer, type ToolDeps } from './shared.js';

export const clusterInput = {
  threshold: z
    .number({ error: 'threshold must be a cosine, e.g. 0.83' })
    .min(0.5, {
      error: 'threshold must be at least 0.5: lower links memories that only share a topic',
    })
    .max(1, { error: 'threshold must be at most 1 (identical meaning)' })
    .optional()
    .describe('Cosine at or above which two memories are linked (default 0.83).'),
  max_cluster_size: z
    .number({ error: 'max_cluster_size must be a whole number from 2 to 100, e.g. 12' })
    .int({ error: 'max_cluster_size must be a whole number, e.g. 12' })
    .min(2, { error: 'max_cluster_size must be at least 2' })
    .max(100, { error: 'max_cluster_size must be at most 100' })
    .optional()
    .describe('No cluster grows beyond this many memories (default 12).'),
};

export const clusterShape = z.object({
  id: z.string().describe('Stable for the same members: pass it to consolidate_memories.'),
  memory_ids: z.array(z.string()),
  cohesion: z.number().describe('Mean cosine between the members, up to 1.'),
  suggested_action: z
    .enum(['auto-merge', 'review', 'keep-apart'])
    .describe('auto-merge: cohesion >= 0.9; review: >= 0.75; keep-apart: below.'),
});

export function registerClusterMemories(server: McpServer, { memory }: ToolDeps): void {
  server.registerTool(
    'cluster_memories',
    {
      title: 'Find groups of memories that say the same',
      description:
        'Groups active memories whose meanings are close (single linkage over the cosine of their embeddings, strongest links first, groups capped in size), ' +
        'each with its cohesion and a suggested action. Changes nothing: pass a cluster id to consolidate_memories to merge or link one. ' +
        'Needs embeddings (MNEMO_EMBEDDINGS auto or static). Long runs report progress when the call has a progressToken.',
      inputSchema: {
        ...clusterInput,
        find_duplicates: z
          .boolean()
          .optional()
          .describe('Only the clusters close enough to merge as they are (cohesion >= 0.9).'),
      },
      outputSchema: { clusters: z.array(clusterShape) },
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async (input, extra) => {
      const progress = progressReporter(extra);
      const clusters = await memory.cluster(input, progress.report);
      await progress.flush();
      const merge = clusters.filter((c) => c.suggested_action === 'auto-merge').length;
      return answer(
        { clusters },
        clusters.length === 0
          ? 'No memories close enough to group.'
          : `${clusters.length} clusters (${merge} to merge): ${clusters
              .slice(0, 5)
              .map((c) => `${c.id} ${c.memory_ids.length} memories, cohesion ${c.cohesion}`)
              .join('; ')}`,
      );
    },
  );
}
