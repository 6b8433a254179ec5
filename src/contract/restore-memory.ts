import { z } from 'zod';
import { supersededUndone } from './save-memory.js';
import { memoryId, type ToolContract, writes } from './shared.js';

export const restoreMemoryInput = z.object({
  memory_id: memoryId(),
  version: z
    .number({ error: 'version must be a whole number, one of the versions open_memories lists' })
    .int({ error: 'version must be a whole number, one of the versions open_memories lists' })
    .min(1, { error: 'version must be at least 1 (the original)' })
    .optional()
    .describe('From open_memories.'),
});

export const restoreMemoryOutput = z.object({
  memory_id: z.string(),
  status: z
    .string()
    .describe(
      'active, promoted (its note is still in the vault), merged (into merged_into), or superseded (with version).',
    ),
  merged_into: z
    .string()
    .optional()
    .describe('The live memory that holds the same content; the restored one was merged into it.'),
  version: z
    .number()
    .optional()
    .describe('With version: the number of the state now current (it holds the restored one).'),
  note: z
    .object({ path: z.string(), body_updated: z.boolean() })
    .optional()
    .describe(
      "With version, for a promoted memory: its note, and whether its text followed (not over a person's edit).",
    ),
  superseded_undone: supersededUndone,
});

export type RestoreMemoryInput = z.infer<typeof restoreMemoryInput>;
export type RestoreMemoryOutput = z.infer<typeof restoreMemoryOutput>;

export const restoreMemory: ToolContract<typeof restoreMemoryInput, typeof restoreMemoryOutput> = {
  name: 'restore_memory',
  title: 'Restore a memory',
  description:
    'Brings back an archived, forgotten or superseded memory; with version, an earlier version of a live one.',
  guide:
    'Brings back an archived memory, or one that gc or delete_memory forgot, by its memory_id: ' +
    'as active, or as promoted when its note is still in the vault. ' +
    'When a live memory holds the same content (it was saved again meanwhile), the restored one is merged into it (uses added) ' +
    'instead of coming back as a second copy: status is merged and merged_into names it. ' +
    'A superseded memory (save_memory saw a newer value of its fact) is current again: the link to the newer one is undone, and superseded_undone names it.\n\n' +
    '- version: bring back this earlier version of a live memory (open_memories lists them; update_memory makes them): ' +
    'its content, tags, entities and meta become current, the current state is kept as a version, and its status stays as it is.',
  input: restoreMemoryInput,
  output: restoreMemoryOutput,
  annotations: writes({ idempotent: true }),
};
