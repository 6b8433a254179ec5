import { z } from 'zod';
import { type ToolContract, writes } from './shared.js';

export const deleteRelationInput = z.object({
  relation_id: z
    .string({
      error: 'relation_id must be a relation id string, as create_relation or read_graph return',
    })
    .min(1, {
      error:
        'relation_id is empty: pass a relation id from create_relation, open_memories or read_graph',
    })
    .max(200, { error: 'relation_id is too long to be a relation id' }),
});

export const deleteRelationOutput = z.object({
  relation_id: z.string(),
  deleted: z.literal(true).describe('Always true: an unknown relation is an error instead.'),
});

export type DeleteRelationInput = z.infer<typeof deleteRelationInput>;
export type DeleteRelationOutput = z.infer<typeof deleteRelationOutput>;

export const deleteRelation: ToolContract<typeof deleteRelationInput, typeof deleteRelationOutput> =
  {
    name: 'delete_relation',
    title: 'Delete a relation',
    description: 'Deletes one relation, not recoverably; the memories stay.',
    guide:
      'relation_id comes from create_relation, open_memories or read_graph. The relation is not kept among the forgotten: ' +
      'create_relation makes it again. An unknown relation_id (or one of another namespace) is an error.',
    input: deleteRelationInput,
    output: deleteRelationOutput,
    annotations: writes({ destructive: true }),
  };
