import { z } from 'zod';
import { oneMemory, type ToolContract, writes } from './shared.js';

export const restoreMemoryInput = oneMemory('restore');

export const restoreMemoryOutput = z.object({
  memory_id: z.string(),
  status: z
    .string()
    .describe('active, promoted (its note is still in the vault), or merged (into merged_into).'),
  merged_into: z
    .string()
    .optional()
    .describe('The live memory that holds the same content; the restored one was merged into it.'),
});

export type RestoreMemoryInput = z.infer<typeof restoreMemoryInput>;
export type RestoreMemoryOutput = z.infer<typeof restoreMemoryOutput>;

export const restoreMemory: ToolContract<typeof restoreMemoryInput, typeof restoreMemoryOutput> = {
  name: 'restore_memory',
  title: 'Restore a memory',
  description:
    'Brings back an archived memory, or one that gc or delete_memory forgot: as active, or as promoted when its note is still in the vault. ' +
    'When a live memory holds the same content (it was saved again meanwhile), the restored one is merged into it (uses added) instead of coming back as a second copy.',
  input: restoreMemoryInput,
  output: restoreMemoryOutput,
  annotations: writes({ idempotent: true }),
};
