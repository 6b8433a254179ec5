import type { z } from 'zod';
import { oneMemory, statusOutput, type ToolContract, writes } from './shared.js';

export const archiveMemoryInput = oneMemory();

export type ArchiveMemoryInput = z.infer<typeof archiveMemoryInput>;
export type ArchiveMemoryOutput = z.infer<typeof statusOutput>;

export const archiveMemory: ToolContract<typeof archiveMemoryInput, typeof statusOutput> = {
  name: 'archive_memory',
  title: 'Archive a memory',
  description:
    'Moves a memory out of default searches without forgetting it; restore_memory brings it back.',
  guide:
    'An archived memory keeps its memory_id, content and uses; search_memory leaves it out unless its status filter includes archived, ' +
    'and gc never forgets one. ' +
    'Archiving an archived memory changes nothing.',
  input: archiveMemoryInput,
  output: statusOutput,
  annotations: writes({ idempotent: true }),
};
