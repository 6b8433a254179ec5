import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { answer, memoryId, type ToolDeps } from './shared.js';

export function registerTouchMemory(server: McpServer, { memory }: ToolDeps): void {
  server.registerTool(
    'touch_memory',
    {
      title: 'Reinforce a memory',
      description:
        'Mark a memory as used now: its use count rises and its decay restarts, so it lives longer. ' +
        'boost_strength also makes it more durable (+0.1 strength, at most 2).',
      inputSchema: {
        memory_id: memoryId().describe('The memory to reinforce.'),
        boost_strength: z
          .boolean()
          .optional()
          .describe('Also add 0.1 to its strength (default false).'),
      },
      outputSchema: {
        memory_id: z.string(),
        old_score: z.number(),
        new_score: z.number(),
        use_count: z.number(),
        strength: z.number(),
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    async ({ memory_id, boost_strength }) => {
      const touched = await memory.touch(memory_id, boost_strength ?? false);
      return answer(
        touched,
        `Reinforced ${touched.memory_id}: score ${touched.old_score} -> ${touched.new_score}, ${touched.use_count} uses, strength ${touched.strength}.`,
      );
    },
  );
}
