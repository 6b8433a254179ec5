import { z } from 'zod';
import { MAX_STRENGTH, STRENGTH_STEP } from '../decay/index.js';
import { memoryId, type ToolContract, writes } from './shared.js';

export const touchMemoryInput = z.object({
  memory_id: memoryId(),
  boost_strength: z
    .boolean({ error: 'boost_strength must be true or false' })
    .optional()
    .describe(`Also add ${STRENGTH_STEP} strength.`),
});

export const touchMemoryOutput = z.object({
  memory_id: z.string(),
  old_score: z.number(),
  new_score: z.number(),
  use_count: z.number(),
  strength: z.number(),
});

export type TouchMemoryInput = z.infer<typeof touchMemoryInput>;
export type TouchMemoryOutput = z.infer<typeof touchMemoryOutput>;

export const touchMemory: ToolContract<typeof touchMemoryInput, typeof touchMemoryOutput> = {
  name: 'touch_memory',
  title: 'Reinforce a memory',
  description: 'Mark a memory used now: its use count rises and its decay restarts.',
  guide:
    'Pass the memory_id of a memory that helped, so it lives longer; observe_memory_usage does the same for several at once and counts them as reviewed. ' +
    `boost_strength also makes it more durable: +${STRENGTH_STEP} strength, at most ${MAX_STRENGTH} (default false). ` +
    'The answer has its score before and after.',
  input: touchMemoryInput,
  output: touchMemoryOutput,
  annotations: writes(),
};
