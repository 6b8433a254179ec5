import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { answer, memoryId, type ToolDeps } from './shared.js';

export function registerPromoteMemory(server: McpServer, { memory }: ToolDeps): void {
  server.registerTool(
    'promote_memory',
    {
      title: 'Promote durable memories to long-term notes',
      description:
        'Graduates a memory that proved durable (high score after repeated use, or many uses soon after it was made) ' +
        'into a Markdown note of the Obsidian vault, where a person can read and edit it; search keeps finding it, as edited. ' +
        'Pass memory_id for one memory, or auto_detect: true for every candidate; ' +
        'dry_run lists candidates and why each qualifies; force promotes one that does not qualify yet. ' +
        'Promoting a memory that has a note already refreshes only its use counts and dates in that note.',
      inputSchema: {
        memory_id: memoryId().optional().describe('The memory to promote.'),
        auto_detect: z
          .boolean()
          .optional()
          .describe('Promote every memory that qualifies (default false).'),
        dry_run: z.boolean().optional().describe('Only list candidates (default false).'),
        force: z
          .boolean()
          .optional()
          .describe('Promote memory_id even if it does not qualify (default false).'),
      },
      outputSchema: {
        candidates_found: z.number(),
        promoted_count: z.number(),
        promoted: z.array(
          z.object({
            memory_id: z.string(),
            path: z.string().describe('The note, relative to the vault'),
          }),
        ),
        failed: z.array(z.object({ memory_id: z.string(), error: z.string() })),
        candidates: z.array(
          z.object({
            memory_id: z.string(),
            score: z.number(),
            use_count: z.number(),
            age_days: z.number(),
            reason: z.string(),
            preview: z.string(),
          }),
        ),
        dry_run: z.boolean(),
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async (input) => {
      const done = await memory.promote(input);
      const text = done.dry_run
        ? `${done.candidates_found} candidate${done.candidates_found === 1 ? '' : 's'}:\n` +
          done.candidates.map((c) => `- ${c.memory_id}: ${c.reason}`).join('\n')
        : `Promoted ${done.promoted_count}:\n${done.promoted.map((p) => `- ${p.memory_id} -> ${p.path}`).join('\n')}` +
          done.failed.map((f) => `\n- ${f.memory_id} failed: ${f.error}`).join('');
      return answer(done, text);
    },
  );
}
