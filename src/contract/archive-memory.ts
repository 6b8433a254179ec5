import type { z } from 'zod';
import { supersededUndone } from './save-memory.js';
import { oneMemory, statusOutput, type ToolContract, writes } from './shared.js';

export const archiveMemoryInput = oneMemory();

export type ArchiveMemoryInput = z.infer<typeof archiveMemoryInput>;
export const archiveMemoryOutput = statusOutput.extend({ superseded_undone: supersededUndone });

export type ArchiveMemoryOutput = z.infer<typeof archiveMemoryOutput>;

export const archiveMemory: ToolContract<typeof archiveMemoryInput, typeof archiveMemoryOutput> = {
  name: 'archive_memory',
  title: 'Archive a memory',
  description:
    'Moves a memory out of default searches without forgetting it; restore_memory brings it back.',
  guide:
    'An archived memory keeps its memory_id, content and uses; search_memory leaves it out unless its status filter includes archived, ' +
    'and gc never forgets one. ' +
    'Archiving an archived memory changes nothing. ' +
    'An archived memory supersedes nothing: the memories it had superseded are current again (superseded_undone names them), ' +
    'or superseded by the memory that superseded it.',
  input: archiveMemoryInput,
  output: archiveMemoryOutput,
  annotations: writes({ idempotent: true }),
};
