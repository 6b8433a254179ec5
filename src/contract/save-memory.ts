import { z } from 'zod';
import { MAX_STRENGTH, MIN_STRENGTH } from '../decay/index.js';
import { contentProblem } from '../memory/input-rules.js';
import {
  count,
  JSON_OBJECT_LIMITS,
  jsonObject,
  MAX_CONTENT,
  MAX_TAGS,
  type ToolContract,
  tags,
  writes,
} from './shared.js';

export const saveMemoryInput = z.object({
  content: z
    .string({ error: 'content must be a string: the text to remember' })
    .min(1, {
      error: `content is empty: pass the text to remember (1 to ${count(MAX_CONTENT)} characters)`,
    })
    .max(MAX_CONTENT, {
      error: `content is longer than ${count(MAX_CONTENT)} characters: shorten it or split it into several memories`,
    })
    .refine((s) => contentProblem(s) === undefined, {
      error: (issue) => contentProblem(issue.input as string),
    })
    .describe(
      `The text to remember, 1 to ${count(MAX_CONTENT)} characters, not only white space or invisible characters.`,
    ),
  tags: tags()
    .optional()
    .describe(
      `Up to ${MAX_TAGS} tags of A-Z a-z 0-9 _ / - (e.g. "project/mnemo"), used to filter searches and detect cross-domain use.`,
    ),
  entities: z
    .array(
      z
        .string({ error: 'entities must be a list of names' })
        .min(1, { error: 'entities has an empty name: leave it out' })
        .max(200, {
          error:
            'entities has a name longer than 200 characters: name the thing, do not describe it',
        }),
      { error: 'entities must be a list of names' },
    )
    .max(100, { error: 'entities has more than 100 names: keep the ones that matter' })
    .optional()
    .describe('People, projects, places or things the memory is about; they are searchable.'),
  source: z
    .string()
    .max(500, { error: 'source is longer than 500 characters: give a URL, a file or a short name' })
    .optional()
    .describe('Where this came from (a URL, a file, a conversation).'),
  context: z
    .string()
    .max(2000, {
      error: 'context is longer than 2,000 characters: say it briefly, or save it as a memory',
    })
    .optional()
    .describe('What was going on when this was learned.'),
  meta: jsonObject('meta')
    .optional()
    .describe(`Any extra JSON fields to keep with the memory: ${JSON_OBJECT_LIMITS}.`),
  strength: z
    .number({
      error: `strength must be a number from ${MIN_STRENGTH} to ${MAX_STRENGTH} (${MIN_STRENGTH} is normal, ${MAX_STRENGTH} is twice as durable)`,
    })
    .min(MIN_STRENGTH, {
      error: `strength must be at least ${MIN_STRENGTH}: use ${MIN_STRENGTH} for a normal memory`,
    })
    .max(MAX_STRENGTH, {
      error: `strength must be at most ${MAX_STRENGTH}: use ${MAX_STRENGTH} for the most durable memory`,
    })
    .optional()
    .describe(`How durable the memory is, ${MIN_STRENGTH} (default) to ${MAX_STRENGTH}.`),
});

export const similarMemory = z.object({
  memory_id: z.string(),
  similarity: z.number().describe('Cosine of the two meanings, up to 1.'),
  preview: z.string(),
});

export const saveMemoryOutput = z.object({
  memory_id: z.string().describe('The id of the memory (the existing one when deduplicated).'),
  deduplicated: z
    .boolean()
    .describe('True when the same content existed and was reinforced instead.'),
  similar_to: z
    .array(similarMemory)
    .describe(
      'Other memories that say nearly the same (by meaning, embeddings on); empty otherwise. Nothing was merged.',
    ),
});

export type SaveMemoryInput = z.infer<typeof saveMemoryInput>;
export type SaveMemoryOutput = z.infer<typeof saveMemoryOutput>;

export const saveMemory: ToolContract<typeof saveMemoryInput, typeof saveMemoryOutput> = {
  name: 'save_memory',
  title: 'Save a memory',
  description:
    'Remember one fact, decision, preference or event for later. Write it so it makes sense on its own, months from now. ' +
    'Saving the same content again reinforces the existing memory instead of duplicating it (deduplicated: true). ' +
    'Memories close in meaning are listed under similar_to and both are kept: open or consolidate them if they say the same. ' +
    'Memories fade unless used; use touch_memory or observe_memory_usage when one helps. ' +
    `meta is kept as given, ${JSON_OBJECT_LIMITS}.`,
  input: saveMemoryInput,
  output: saveMemoryOutput,
  annotations: writes(),
};
