import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { answer, memoryIds, type ToolDeps, tags } from './shared.js';

export function registerObserveMemoryUsage(server: McpServer, { memory }: ToolDeps): void {
  server.registerTool(
    'observe_memory_usage',
    {
      title: 'Report memories that were used',
      description:
        'Call after memories from search_memory actually helped answer. Each is reinforced and counted as reviewed; ' +
        'when the current context_tags barely overlap its own tags it was useful in a new domain, which strengthens it more.',
      inputSchema: {
        memory_ids: memoryIds().describe('The memories that were used.'),
        context_tags: tags('context_tags')
          .optional()
          .describe('Tags describing the current task or conversation.'),
      },
      outputSchema: {
        results: z.array(
          z.object({
            memory_id: z.string(),
            cross_domain: z.boolean(),
            use_count: z.number(),
            strength: z.number(),
            review_priority: z.number(),
          }),
        ),
        not_found: z.array(z.string()),
        reinforced: z
          .boolean()
          .describe('False when MNEMO_AUTO_REINFORCE is off: nothing was written.'),
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    async ({ memory_ids, context_tags }) => {
      const observed = await memory.observe(memory_ids, context_tags ?? []);
      const cross = observed.results.filter((r) => r.cross_domain).length;
      const text =
        `${observed.reinforced ? 'Reinforced' : 'Observed (auto-reinforce is off)'} ${observed.results.length} memor${observed.results.length === 1 ? 'y' : 'ies'}` +
        `${cross ? `, ${cross} in a new domain` : ''}` +
        `${observed.not_found.length ? `; not found: ${observed.not_found.join(', ')}` : ''}.`;
      return answer(observed, text);
    },
  );
}
