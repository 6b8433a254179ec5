import { z } from 'zod';
import { memoryIds, type ToolContract, tags, writes } from './shared.js';

export const observeMemoryUsageInput = z.object({
  memory_ids: memoryIds().describe('The memories that were used.'),
  context_tags: tags('context_tags')
    .optional()
    .describe('Tags describing the current task or conversation.'),
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
  title: 'Report memories that were used',
  description:
    'Call after memories from search_memory actually helped answer. Each is reinforced and counted as reviewed; ' +
    'when the current context_tags barely overlap its own tags it was useful in a new domain, which strengthens it more.',
  input: observeMemoryUsageInput,
  output: observeMemoryUsageOutput,
  annotations: writes(),
};
