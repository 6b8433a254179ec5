import { z } from 'zod';
import { MAX_STRENGTH, MIN_STRENGTH } from '../decay/index.js';
import { contentProblem } from './rules.js';
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

/** What a memory holds that update_memory changes too: the same checks, no descriptions. */
export const memoryFields = {
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
    }),
  tags: tags().optional(),
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
    .optional(),
  meta: jsonObject('meta').optional(),
};

export const saveMemoryInput = z.object({
  content: memoryFields.content,
  tags: memoryFields.tags,
  entities: memoryFields.entities,
  source: z
    .string()
    .max(500, { error: 'source is longer than 500 characters: give a URL, a file or a short name' })
    .optional()
    .describe('A URL, a file, a chat.'),
  context: z
    .string()
    .max(2000, {
      error: 'context is longer than 2,000 characters: say it briefly, or save it as a memory',
    })
    .optional()
    .describe('What was going on.'),
  meta: memoryFields.meta.describe('Extra JSON, kept as given.'),
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
    .meta({ default: MIN_STRENGTH }),
});

export const similarMemory = z.object({
  memory_id: z.string(),
  similarity: z.number().describe('Cosine of the two meanings, up to 1.'),
  preview: z.string(),
});

/** Another memory a save, an open or the review queue names, with the start of its text. */
export const linkedMemory = z.object({
  memory_id: z.string(),
  content: z.string().describe('Its text, cut at 200 characters.'),
});

/** What restore_memory and update_memory answer when they undid a supersession. */
export const supersededUndone = z
  .array(linkedMemory)
  .optional()
  .describe('A supersession undone: these memories are current again (in search).');

/** What the person may answer when asked which of two contradicting memories holds. */
export const ASKED_KEEPS = ['new', 'old', 'both', 'merge'] as const;

/** What the person answered when the save asked them about its conflicts (elicitation). */
export const askedPerson = z
  .object({
    answer: z
      .enum(['settled', 'declined', 'unanswered'])
      .describe('declined: they would not say; unanswered: no answer in time, or asking failed.'),
    settled: z.array(
      z.object({
        memory_id: z.string().describe('The earlier memory of the pair.'),
        keep: z.enum(ASKED_KEEPS),
        merged_id: z.string().nullable().describe('With merge: the merged memory.'),
      }),
    ),
  })
  .describe('Present when the person was asked which holds; pairs not settled stay in the queue.');

export type AskedPerson = z.infer<typeof askedPerson>;

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
  supersedes: z
    .array(linkedMemory)
    .describe(
      'Memories this one states a newer value of: now superseded, out of search (restore_memory undoes it).',
    ),
  conflicts: z
    .array(linkedMemory)
    .describe(
      'Memories it seems to contradict, not clearly as an update: both kept, in the review queue until settle_conflict.',
    ),
  asked: askedPerson.optional(),
});

export type SaveMemoryInput = z.infer<typeof saveMemoryInput>;
export type SaveMemoryOutput = z.infer<typeof saveMemoryOutput>;

export const saveMemory: ToolContract<typeof saveMemoryInput, typeof saveMemoryOutput> = {
  name: 'save_memory',
  title: 'Save a memory',
  description:
    'Remember a fact, decision, preference or event, worded to stand alone. Saving the same content again reinforces it; ' +
    'similar_to lists memories close in meaning.',
  guide:
    'Word the content so it makes sense on its own, months from now, without the conversation. ' +
    'Saving the same content again (the same text after folding case and white space) reinforces the existing memory instead of duplicating it: ' +
    'deduplicated is true and memory_id is the existing one. ' +
    'Memories close in meaning (with embeddings on) are listed under similar_to and both are kept: ' +
    'open_memories shows them whole, and cluster_memories then consolidate_memories merge them if they say the same. ' +
    'Memories fade unless used: touch_memory or observe_memory_usage when one helps.\n\n' +
    'When the new memory states a newer value of a fact a live memory states (where someone lives or works, a preference, a number, a date), ' +
    'the older one becomes superseded: listed under supersedes, kept, but out of search_memory unless include_superseded is true; ' +
    'open_memories shows the chain both ways, and restore_memory (or update_memory of either) undoes it. ' +
    'When they seem to contradict but the new one is not clearly newer, nothing is hidden: they are listed under conflicts and wait in the review queue (mnemo://review) until settle_conflict. ' +
    'A client with elicitation (form) has the person asked which holds; asked tells what they chose. ' +
    'Saving the same content again is never a supersession.\n\n' +
    `- content: 1 to ${count(MAX_CONTENT)} characters, not only white space or invisible characters; split longer text into several memories.\n` +
    `- tags: up to ${MAX_TAGS}, each 1 to 64 of A-Z a-z 0-9 _ / - (no spaces), e.g. "project/mnemo"; they filter searches, and observe_memory_usage compares them with its context_tags to find use in a new domain.\n` +
    '- entities: up to 100 names (people, projects, places, things) of at most 200 characters; searchable.\n' +
    '- source: where it came from (a URL, a file, a conversation), at most 500 characters.\n' +
    '- context: what was going on when it was learned, at most 2,000 characters.\n' +
    `- meta: any JSON object, kept as given: ${JSON_OBJECT_LIMITS}.\n` +
    `- strength: how durable, from ${MIN_STRENGTH} (normal, the default) to ${MAX_STRENGTH} (twice as durable).\n\n` +
    'Example: {"content": "Alice prefers tea to coffee in the morning.", "tags": ["people/alice"], "entities": ["Alice"]}',
  input: saveMemoryInput,
  output: saveMemoryOutput,
  annotations: writes(),
};
