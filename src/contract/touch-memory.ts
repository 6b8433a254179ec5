import { z } from 'zod';
import { MAX_STRENGTH, STRENGTH_STEP } from '../decay/index.js';
import { memoryId, type ToolContract, writes } from './shared.js';

export const touchMemoryInput = z.object({
  memory_id: memoryId().describe('The memory to reinforce.'),
  boost_strength: z
    .boolean({ error: 'boost_strength must be true or false' })
    .optional()
    .describe(`Also add ${STRENGTH_STEP} to its strength (default false).`),
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
  description:
    'Mark a memory as used now: its use count rises and its decay restarts, so it lives longer. ' +
    `boost_strength also makes it more durable (+${STRENGTH_STEP} strength, at most ${MAX_STRENGTH}).`,
  input: touchMemoryInput,
  output: touchMemoryOutput,
  annotations: writes(),
};
