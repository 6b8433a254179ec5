import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { answer, type ToolDeps } from './shared.js';

export function registerGc(server: McpServer, { memory }: ToolDeps): void {
  server.registerTool(
    'gc',
    {
      title: 'Forget faded memories',
      description:
        'Finds active memories whose score fell below the forget threshold. A dry run (the default) only lists them. ' +
        'With dry_run false they are forgotten recoverably (copied to forgotten.jsonl; restore_memory brings one back), ' +
        'or archived with archive_instead.',
      inputSchema: {
        dry_run: z.boolean().optional().describe('Only report what would happen (default true).'),
        archive_instead: z
          .boolean()
          .optional()
          .describe('Archive instead of forgetting (default false).'),
        limit: z
          .number({ error: 'limit must be a whole number of memories' })
          .int()
          .min(1, { error: 'limit must be at least 1' })
          .max(100_000)
          .optional()
          .describe('At most this many, weakest first.'),
      },
      outputSchema: {
        dry_run: z.boolean(),
        removed_count: z.number(),
        archived_count: z.number(),
        total_affected: z.number(),
        memory_ids: z.array(z.string()),
        candidates: z
          .array(
            z.object({
              memory_id: z.string(),
              score: z.number(),
              age_days: z.number(),
              last_used: z.number(),
              use_count: z.number(),
              preview: z.string(),
              action: z.enum(['forget', 'archive']),
            }),
          )
          .describe('Each affected memory, weakest first.'),
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    async (input) => {
      const done = await memory.gc(input);
      const verb = done.dry_run ? 'Would' : 'Did';
      const what = done.archived_count
        ? `archive ${done.archived_count}`
        : `forget ${done.removed_count}`;
      return answer(done, `${verb} ${what} memor${done.total_affected === 1 ? 'y' : 'ies'}.`);
    },
  );
}
