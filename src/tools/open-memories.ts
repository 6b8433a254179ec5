import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { answer, memoryIds, type ToolDeps } from './shared.js';

const relation = z.object({
  id: z.string(),
  from_memory_id: z.string(),
  to_memory_id: z.string(),
  relation_type: z.string(),
  strength: z.number(),
  created_at: z.number(),
  metadata: z.record(z.string(), z.unknown()),
});

const fullMemory = z.object({
  id: z.string(),
  content: z.string(),
  meta: z.object({
    tags: z.array(z.string()),
    source: z.string().nullable(),
    context: z.string().nullable(),
    extra: z.record(z.string(), z.unknown()),
  }),
  entities: z.array(z.string()),
  created_at: z.number(),
  last_used: z.number(),
  use_count: z.number(),
  strength: z.number(),
  status: z.enum(['active', 'promoted', 'archived']),
  promoted_at: z.number().nullable(),
  promoted_to: z.string().nullable(),
  review_count: z.number(),
  last_review_at: z.number().nullable(),
  cross_domain_count: z.number(),
  score: z.number(),
  review_priority: z.number(),
  relations: z.array(relation),
});

export function registerOpenMemories(server: McpServer, { memory }: ToolDeps): void {
  server.registerTool(
    'open_memories',
    {
      title: 'Open memories in full',
      description:
        'Returns whole memories by id: full content, metadata, current score and review priority, and their relations. ' +
        'Opening does not reinforce.',
      inputSchema: { memory_ids: memoryIds().describe('The memories to open (1 to 100 ids).') },
      outputSchema: { memories: z.array(fullMemory), not_found: z.array(z.string()) },
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async ({ memory_ids }) => {
      const opened = await memory.open(memory_ids);
      const text = [
        ...opened.memories.map((m) => `[${m.id}] (${m.status}, score ${m.score})\n${m.content}`),
        ...(opened.not_found.length ? [`Not found: ${opened.not_found.join(', ')}`] : []),
      ].join('\n\n');
      return answer(opened, text || 'Nothing to open.');
    },
  );
}
