import { z } from 'zod';
import { memoryId, type ToolContract, writes } from './shared.js';

export const promoteMemoryInput = z.object({
  memory_id: memoryId().optional().describe('The memory to promote.'),
  auto_detect: z
    .boolean({ error: 'auto_detect must be true or false' })
    .optional()
    .describe('Promote every memory that qualifies (default false).'),
  dry_run: z
    .boolean({ error: 'dry_run must be true or false' })
    .optional()
    .describe('Only list candidates (default false).'),
  force: z
    .boolean({ error: 'force must be true or false' })
    .optional()
    .describe('Promote memory_id even if it does not qualify (default false).'),
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
  title: 'Promote durable memories to long-term notes',
  description:
    'Graduates a memory that proved durable (high score after repeated use, or many uses soon after it was made) ' +
    'into a Markdown note of the Obsidian vault, where a person can read and edit it; search keeps finding it, as edited. ' +
    'Pass memory_id for one memory, or auto_detect: true for every candidate; ' +
    'dry_run lists candidates and why each qualifies; force promotes one that does not qualify yet. ' +
    'Promoting a memory that has a note already refreshes only its use counts and dates in that note.',
  input: promoteMemoryInput,
  output: promoteMemoryOutput,
  annotations: writes({ idempotent: true }),
};
