import type { z } from 'zod';
import { supersededUndone } from './save-memory.js';
import { oneMemory, statusOutput, type ToolContract, writes } from './shared.js';

export const deleteMemoryInput = oneMemory();

export type DeleteMemoryInput = z.infer<typeof deleteMemoryInput>;
export const deleteMemoryOutput = statusOutput.extend({ superseded_undone: supersededUndone });

export type DeleteMemoryOutput = z.infer<typeof deleteMemoryOutput>;

export const deleteMemory: ToolContract<typeof deleteMemoryInput, typeof deleteMemoryOutput> = {
  name: 'delete_memory',
  title: 'Delete a memory',
  description: 'Forgets a memory; restore_memory can still bring it back.',
  guide:
    'Removes the memory (memory_id) from the store. A copy is kept among the forgotten, so restore_memory with the same memory_id can still bring it back.\n\n' +
    'When it had superseded older memories (save_memory saw it state a newer value), they are current again, named in superseded_undone; ' +
    'when a newer memory superseded it, that one now supersedes them instead. Restoring it later does not hide them again.',
  input: deleteMemoryInput,
  output: deleteMemoryOutput,
  annotations: writes({ idempotent: true, destructive: true }),
};
