import { z } from 'zod';
import { MAX_VERSIONS } from './limits.js';
import { memoryFields, supersededUndone } from './save-memory.js';
import { memoryId, type ToolContract, writes } from './shared.js';

/** The fields an update may change: at least one of them is given. */
export const UPDATABLE_FIELDS = ['content', 'tags', 'entities', 'meta'] as const;

export const updateMemoryInput = z.object({
  memory_id: memoryId(),
  content: memoryFields.content.optional(),
  tags: memoryFields.tags,
  entities: memoryFields.entities,
  meta: memoryFields.meta,
});

export const updateMemoryOutput = z.object({
  memory_id: z.string(),
  version: z
    .number()
    .describe(
      'The number of the state now current (1 was the original); open_memories lists the earlier ones.',
    ),
  note: z
    .object({
      path: z.string().describe("The promoted memory's note, relative to the vault."),
      body_updated: z
        .boolean()
        .describe(
          "False when a person had edited the note's text: their text stays, and search keeps matching it.",
        ),
    })
    .optional()
    .describe("Present when the memory is promoted and its note is in this mnemo's vault."),
  superseded_undone: supersededUndone,
});

export type UpdateMemoryInput = z.infer<typeof updateMemoryInput>;
export type UpdateMemoryOutput = z.infer<typeof updateMemoryOutput>;

export const updateMemory: ToolContract<typeof updateMemoryInput, typeof updateMemoryOutput> = {
  name: 'update_memory',
  title: 'Change a memory',
  description:
    "Replaces a memory's content, tags, entities or meta (those given, each whole); the old state is kept as a version.",
  guide:
    'Changes a memory (memory_id) in place: its content, tags, entities or meta (at least one; each one given replaces the old value whole). ' +
    'The fields take what save_memory takes, with the same limits. ' +
    `The state it replaces is kept as a version (the last ${MAX_VERSIONS}): open_memories lists them and restore_memory with a version brings one back. ` +
    'An update is not a use: it does not reinforce. Content equal to another memory is allowed (both stay).\n\n' +
    "A promoted memory's note gets the new text only while its text is still the memory's; a person's edit is never overwritten " +
    '(note.body_updated: false). ' +
    'Updating either side of a supersession undoes it (the older memory is current again; superseded_undone names it).',
  input: updateMemoryInput,
  output: updateMemoryOutput,
  annotations: writes({ idempotent: true }),
};
