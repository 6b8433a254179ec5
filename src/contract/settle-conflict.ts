import { z } from 'zod';
import { memoryFields } from './save-memory.js';
import { memoryId, type ToolContract, writes } from './shared.js';

export const SETTLE_CHOICES = ['first', 'second', 'both', 'merge'] as const;

export const settleConflictInput = z.object({
  memory_id: memoryId('memory_id'),
  other_id: memoryId('other_id'),
  keep: z.enum(SETTLE_CHOICES, {
    error: 'keep must be first (memory_id holds), second (other_id holds), both or merge',
  }),
  content: memoryFields.content.optional().describe('With merge: the merged text.'),
});

export const settleConflictOutput = z.object({
  relation_id: z.string().describe('The conflict, now settled.'),
  keep: z.enum(SETTLE_CHOICES),
  kept: z.array(z.string()).describe('The memories current now.'),
  superseded: z.array(z.string()).describe('Superseded by the one kept (restore_memory undoes).'),
  archived: z.array(z.string()).describe('With merge: the two merged.'),
  memory_id: z.string().nullable().describe('With merge: the merged memory.'),
});

export type SettleConflictInput = z.infer<typeof settleConflictInput>;
export type SettleConflictOutput = z.infer<typeof settleConflictOutput>;

export const settleConflict: ToolContract<typeof settleConflictInput, typeof settleConflictOutput> =
  {
    name: 'settle_conflict',
    title: 'Settle a conflict',
    description: 'Settles two contradicting memories (mnemo://review): keep one, both, or merge.',
    guide:
      'save_memory lists under conflicts the memories a new one seems to contradict without being clearly newer; ' +
      'both stay current and the pair waits in the review queue (mnemo://review, the review prompt) until settled here.\n\n' +
      '- memory_id, other_id: the two sides, in either order.\n' +
      '- keep: first (memory_id holds: other_id becomes superseded by it, out of search; restore_memory undoes), ' +
      'second (the other way round), both (both hold: the pair leaves the queue, nothing changes), ' +
      'or merge (one new memory of both, as consolidate_memories merges; the two are archived).\n' +
      '- content: with merge, the merged text (default: both texts, sentences said twice once).\n\n' +
      'Example: {"memory_id": "…", "other_id": "…", "keep": "first"}',
    input: settleConflictInput,
    output: settleConflictOutput,
    annotations: writes(),
  };
