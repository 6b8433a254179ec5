import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { clusterInput } from './cluster-memories.js';
import { progressReporter } from './progress.js';
import { answer, type ToolDeps } from './shared.js';

export function registerConsolidateMemories(server: McpServer, { memory }: ToolDeps): void {
  server.registerTool(
    'consolidate_memories',
    {
      title: 'Merge or link a cluster of memories',
      description:
        'Acts on a cluster that cluster_memories returned (same threshold and max_cluster_size). ' +
        'mode preview (default) shows the merged memory and changes nothing; ' +
        "apply saves one memory with the members' content (repeated sentences once), tags and entities united and use counts summed, " +
        'links it to each member (consolidated_from) and archives the members (restore_memory brings one back; nothing is deleted); ' +
        'link relates each member to the most central one (related) and merges nothing. ' +
        'auto_detect: true takes every cluster whose suggested action is auto-merge.',
      inputSchema: {
        cluster_id: z
          .string({ error: 'cluster_id must be an id from cluster_memories, e.g. c-1a2b3c4d5e6f' })
          .regex(/^c-[0-9a-f]{12}$/, {
            error: 'cluster_id must be an id from cluster_memories, e.g. c-1a2b3c4d5e6f',
          })
          .optional()
          .describe('The cluster to act on, as cluster_memories returned it.'),
        auto_detect: z
          .boolean()
          .optional()
          .describe('Act on every cluster suggested for auto-merge (cohesion >= 0.9).'),
        mode: z
          .enum(['preview', 'apply', 'link'], {
            error: 'mode must be preview, apply or link',
          })
          .optional()
          .describe('preview (default): show only; apply: merge and archive; link: relate only.'),
        ...clusterInput,
      },
      outputSchema: {
        mode: z.enum(['preview', 'apply', 'link']),
        consolidations: z.array(
          z.object({
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
          }),
        ),
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    async (input, extra) => {
      const progress = progressReporter(extra);
      const result = await memory.consolidate(input, progress.report);
      await progress.flush();
      const n = result.consolidations.length;
      const text =
        n === 0
          ? 'No cluster to consolidate.'
          : result.mode === 'preview'
            ? `Preview of ${n} merge(s); nothing changed. Call again with mode: "apply" to merge.`
            : result.mode === 'link'
              ? `Linked the members of ${n} cluster(s).`
              : `Merged ${n} cluster(s) into ${result.consolidations.map((c) => c.memory_id).join(', ')}; members archived.`;
      return answer(result, text);
    },
  );
}
