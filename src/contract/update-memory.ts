import { z } from 'zod';
import { MAX_VERSIONS } from '../memory/versions.js';
import { saveMemoryInput } from './save-memory.js';
import { JSON_OBJECT_LIMITS, memoryId, type ToolContract, writes } from './shared.js';

const save = saveMemoryInput.shape;

/** The fields an update may change: at least one of them is given. */
export const UPDATABLE_FIELDS = ['content', 'tags', 'entities', 'meta'] as const;

export const updateMemoryInput = z.object({
  memory_id: memoryId().describe('The memory to change.'),
  content: save.content
    .optional()
    .describe('Its new text (as save_memory: 1 to 50,000 characters).'),
  tags: save.tags.describe('Its new tags, replacing the old ones (as save_memory).'),
  entities: save.entities.describe('Its new entities, replacing the old ones (as save_memory).'),
  meta: save.meta.describe(`Its new free-form meta, replacing the old one: ${JSON_OBJECT_LIMITS}.`),
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
});

export type UpdateMemoryInput = z.infer<typeof updateMemoryInput>;
export type UpdateMemoryOutput = z.infer<typeof updateMemoryOutput>;

export const updateMemory: ToolContract<typeof updateMemoryInput, typeof updateMemoryOutput> = {
  name: 'update_memory',
  title: 'Change a memory',
  description:
    'Changes a memory in place: its content, tags, entities or meta (at least one; each one given replaces the old value whole). ' +
    `The state it replaces is kept as a version (the last ${MAX_VERSIONS}): open_memories lists them and restore_memory with a version brings one back. ` +
    'An update is not a use: it does not reinforce. Content equal to another memory is allowed (both stay). ' +
    "A promoted memory's note gets the new text only while its text is still the memory's; a person's edit is never overwritten.",
  input: updateMemoryInput,
  output: updateMemoryOutput,
  annotations: writes({ idempotent: true }),
};
