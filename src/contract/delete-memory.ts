import type { z } from 'zod';
import { oneMemory, statusOutput, type ToolContract, writes } from './shared.js';

export const deleteMemoryInput = oneMemory();

export type DeleteMemoryInput = z.infer<typeof deleteMemoryInput>;
export type DeleteMemoryOutput = z.infer<typeof statusOutput>;

export const deleteMemory: ToolContract<typeof deleteMemoryInput, typeof statusOutput> = {
  name: 'delete_memory',
  title: 'Delete a memory',
  description: 'Forgets a memory; restore_memory can still bring it back.',
  guide:
    'Removes the memory (memory_id) from the store. A copy is kept among the forgotten, so restore_memory with the same memory_id can still bring it back.',
  input: deleteMemoryInput,
  output: statusOutput,
  annotations: writes({ idempotent: true, destructive: true }),
};
