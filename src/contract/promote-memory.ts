import { z } from 'zod';
import { memoryId, type ToolContract, writes } from './shared.js';

export const promoteMemoryInput = z.object({
  memory_id: memoryId().optional(),
  auto_detect: z.boolean({ error: 'auto_detect must be true or false' }).optional(),
  dry_run: z
    .boolean({ error: 'dry_run must be true or false' })
    .optional()
    .describe('Only list candidates.'),
  force: z
    .boolean({ error: 'force must be true or false' })
    .optional()
    .describe('Even if memory_id does not qualify.'),
});

export const promotionCandidate = z.object({
  memory_id: z.string(),
  score: z.number(),
  use_count: z.number(),
  age_days: z.number(),
  reason: z.string(),
  preview: z.string(),
});

export const promoteMemoryOutput = z.object({
  candidates_found: z.number(),
  promoted_count: z.number(),
  promoted: z.array(
    z.object({
      memory_id: z.string(),
      path: z.string().describe('The note, relative to the vault'),
    }),
  ),
  failed: z.array(z.object({ memory_id: z.string(), error: z.string() })),
  candidates: z.array(promotionCandidate),
  dry_run: z.boolean(),
});

export type PromoteMemoryInput = z.infer<typeof promoteMemoryInput>;
export type PromoteMemoryOutput = z.infer<typeof promoteMemoryOutput>;
export type PromotionCandidate = z.infer<typeof promotionCandidate>;

export const promoteMemory: ToolContract<typeof promoteMemoryInput, typeof promoteMemoryOutput> = {
  name: 'promote_memory',
  title: 'Promote memories to notes',
  description:
    'Turns a durable memory (memory_id), or every one that qualifies (auto_detect), into a Markdown note of the Obsidian vault.',
  guide:
    'Graduates a memory that proved durable (high score after repeated use, or many uses soon after it was made) ' +
    'into a Markdown note of the Obsidian vault, where a person can read and edit it; search keeps finding it, as edited.\n\n' +
    '- memory_id: one memory; or auto_detect: true for every candidate.\n' +
    '- dry_run: true lists the candidates and why each qualifies, and promotes nothing.\n' +
    '- force: true promotes memory_id even if it does not qualify yet.\n\n' +
    'Each flag defaults to false. Promoting a memory that has a note already refreshes only its use counts and dates in that note.',
  input: promoteMemoryInput,
  output: promoteMemoryOutput,
  annotations: writes({ idempotent: true }),
};
