import { z } from 'zod';
import { RELATION_TYPES } from '../storage/records.js';
import { JSON_OBJECT_LIMITS, jsonObject, memoryId, type ToolContract, writes } from './shared.js';

export const createRelationInput = z.object({
  from_memory_id: memoryId('from_memory_id').describe('The memory the relation starts from.'),
  to_memory_id: memoryId('to_memory_id').describe('The memory it points to.'),
  relation_type: z
    .enum(RELATION_TYPES, { error: `relation_type must be one of ${RELATION_TYPES.join(', ')}` })
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
});

export const createRelationOutput = z.object({ relation_id: z.string() });

export type CreateRelationInput = z.infer<typeof createRelationInput>;
export type CreateRelationOutput = z.infer<typeof createRelationOutput>;

export const createRelation: ToolContract<typeof createRelationInput, typeof createRelationOutput> =
  {
    name: 'create_relation',
    title: 'Relate two memories',
    description:
      `Records how one memory relates to another (${RELATION_TYPES.join(', ')}). ` +
      'Relations come back with open_memories and become links between promoted notes. ' +
      `metadata is kept as given, ${JSON_OBJECT_LIMITS}.`,
    input: createRelationInput,
    output: createRelationOutput,
    annotations: writes(),
  };
