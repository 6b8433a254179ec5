import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { RELATION_TYPES } from '../storage/records.js';
import { answer, JSON_OBJECT_LIMITS, jsonObject, memoryId, type ToolDeps } from './shared.js';

export function registerCreateRelation(server: McpServer, { memory }: ToolDeps): void {
  server.registerTool(
    'create_relation',
    {
      title: 'Relate two memories',
      description:
        'Records how one memory relates to another (related, causes, supports, contradicts, has_decision, consolidated_from). ' +
        'Relations come back with open_memories and become links between promoted notes. ' +
        `metadata is kept as given, ${JSON_OBJECT_LIMITS}.`,
      inputSchema: {
        from_memory_id: memoryId('from_memory_id').describe('The memory the relation starts from.'),
        to_memory_id: memoryId('to_memory_id').describe('The memory it points to.'),
        relation_type: z
          .enum(RELATION_TYPES, {
            error: `relation_type must be one of ${RELATION_TYPES.join(', ')}`,
          })
          .describe(`One of ${RELATION_TYPES.join(', ')}.`),
        strength: z
          .number({ error: 'strength must be a number from 0 to 1' })
          .min(0, { error: 'strength must be at least 0' })
          .max(1, { error: 'strength must be at most 1' })
          .optional()
          .describe('How strong the relation is, 0 to 1 (default 1).'),
        metadata: jsonObject('metadata')
          .optional()
          .describe(`Any extra JSON to keep with it: ${JSON_OBJECT_LIMITS}.`),
      },
      outputSchema: { relation_id: z.string() },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    async (input) => {
      const made = await memory.createRelation(input);
      return answer(
        made,
        `Related ${input.from_memory_id} -${input.relation_type}-> ${input.to_memory_id} (${made.relation_id}).`,
      );
    },
  );
}
