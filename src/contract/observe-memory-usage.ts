import { z } from 'zod';
import { memoryIds, type ToolContract, tags, writes } from './shared.js';

export const observeMemoryUsageInput = z.object({
  memory_ids: memoryIds(),
  context_tags: tags('context_tags').optional().describe('Tags of the current task.'),
});

export const observeMemoryUsageOutput = z.object({
  results: z.array(
    z.object({
      memory_id: z.string(),
      cross_domain: z.boolean(),
      use_count: z.number(),
      strength: z.number(),
      review_priority: z.number(),
    }),
  ),
  not_found: z.array(z.string()),
  reinforced: z.boolean().describe('False when MNEMO_AUTO_REINFORCE is off: nothing was written.'),
});

export type ObserveMemoryUsageInput = z.infer<typeof observeMemoryUsageInput>;
export type ObserveMemoryUsageOutput = z.infer<typeof observeMemoryUsageOutput>;

export const observeMemoryUsage: ToolContract<
  typeof observeMemoryUsageInput,
  typeof observeMemoryUsageOutput
> = {
  name: 'observe_memory_usage',
  title: 'Report used memories',
  description:
    'Report memories that helped answer: each is reinforced, more so when context_tags show use in a new domain.',
  guide:
    'Call it after memories from search_memory actually helped answer. Each is reinforced and counted as reviewed, ' +
    'so a review_candidate stays. When the current context_tags barely overlap its own tags, it was useful in a new domain ' +
    '(cross_domain: true), which strengthens it more.\n\n' +
    '- memory_ids: 1 to 100 ids; those not found are listed in not_found.\n' +
    '- context_tags: tags of the current task or conversation, as save_memory takes tags.\n\n' +
    'With MNEMO_AUTO_REINFORCE off nothing is written (reinforced: false).',
  input: observeMemoryUsageInput,
  output: observeMemoryUsageOutput,
  annotations: writes(),
};
