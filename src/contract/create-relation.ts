import { z } from 'zod';
import { RELATION_TYPES } from '../storage/records.js';
import { JSON_OBJECT_LIMITS, jsonObject, memoryId, type ToolContract, writes } from './shared.js';

export const createRelationInput = z.object({
  from_memory_id: memoryId('from_memory_id'),
  to_memory_id: memoryId('to_memory_id'),
  relation_type: z.enum(RELATION_TYPES, {
    error: `relation_type must be one of ${RELATION_TYPES.join(', ')}`,
  }),
  strength: z
    .number({ error: 'strength must be a number from 0 to 1' })
    .min(0, { error: 'strength must be at least 0' })
    .max(1, { error: 'strength must be at most 1' })
    .optional()
    .meta({ default: 1 }),
  metadata: jsonObject('metadata').optional().describe('Extra JSON, kept as given.'),
});

export const createRelationOutput = z.object({ relation_id: z.string() });

export type CreateRelationInput = z.infer<typeof createRelationInput>;
export type CreateRelationOutput = z.infer<typeof createRelationOutput>;

export const createRelation: ToolContract<typeof createRelationInput, typeof createRelationOutput> =
  {
    name: 'create_relation',
    title: 'Relate two memories',
    description: 'Records how one memory relates to another.',
    guide:
      `Records how one memory (from_memory_id) relates to another (to_memory_id), as one of ${RELATION_TYPES.join(', ')}. ` +
      'Relations come back with open_memories and read_graph, and become links between promoted notes; ' +
      'delete_relation removes one.\n\n' +
      '- strength: how strong the relation is, 0 to 1 (default 1).\n' +
      `- metadata: any JSON object, kept as given: ${JSON_OBJECT_LIMITS}.\n\n` +
      'Example: {"from_memory_id": "…", "to_memory_id": "…", "relation_type": "supports"}',
    input: createRelationInput,
    output: createRelationOutput,
    annotations: writes(),
  };
