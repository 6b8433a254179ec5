import { z } from 'zod';
import { MEMORY_STATUSES, RELATION_TYPES } from '../storage/records.js';
import { memoryRelation } from './open-memories.js';
import { count, READS, statusList, type ToolContract, tags } from './shared.js';

/** Memories a page holds unless told otherwise, and at most. */
export const GRAPH_DEFAULT_LIMIT = 50;
export const GRAPH_MAX_LIMIT = 200;
/** Characters of JSON a page holds unless told otherwise, and the bounds of what may be asked. */
export const GRAPH_DEFAULT_CHARS = 20_000;
export const GRAPH_MIN_CHARS = 1_000;
export const GRAPH_MAX_CHARS = 200_000;
/** Characters of a memory's content a page shows; open_memories has the rest. */
export const GRAPH_PREVIEW = 1_000;

export const readGraphInput = z.object({
  cursor: z
    .string({ error: 'cursor must be the next_cursor string of the previous read_graph page' })
    .max(2_000, {
      error: 'cursor is too long to be a read_graph cursor: pass next_cursor as given',
    })
    .optional(),
  limit: z
    .number({ error: `limit must be a whole number from 1 to ${GRAPH_MAX_LIMIT}` })
    .int({ error: `limit must be a whole number from 1 to ${GRAPH_MAX_LIMIT}` })
    .min(1, { error: 'limit must be at least 1' })
    .max(GRAPH_MAX_LIMIT, {
      error: `limit must be at most ${GRAPH_MAX_LIMIT}: page through with next_cursor`,
    })
    .optional()
    .meta({ default: GRAPH_DEFAULT_LIMIT }),
  tags: tags().optional().describe('Any of these.'),
  status: statusList.optional(),
  relation_types: z
    .array(
      z.enum(RELATION_TYPES, {
        error: `relation_types must list of ${RELATION_TYPES.join(', ')}`,
      }),
    )
    .min(1, { error: 'relation_types is empty: leave it out for every type' })
    .max(RELATION_TYPES.length, {
      error: `relation_types lists more than ${RELATION_TYPES.length} types: name each once`,
    })
    .optional(),
  max_chars: z
    .number({
      error: `max_chars must be a whole number from ${count(GRAPH_MIN_CHARS)} to ${count(GRAPH_MAX_CHARS)}`,
    })
    .int({
      error: `max_chars must be a whole number from ${count(GRAPH_MIN_CHARS)} to ${count(GRAPH_MAX_CHARS)}`,
    })
    .min(GRAPH_MIN_CHARS, { error: `max_chars must be at least ${count(GRAPH_MIN_CHARS)}` })
    .max(GRAPH_MAX_CHARS, {
      error: `max_chars must be at most ${count(GRAPH_MAX_CHARS)}: page through with next_cursor`,
    })
    .optional()
    .meta({ default: GRAPH_DEFAULT_CHARS }),
});

export const graphMemory = z.object({
  id: z.string(),
  content: z
    .string()
    .describe(`The text, cut at ${count(GRAPH_PREVIEW)} characters (… marks a cut).`),
  content_chars: z.number().describe("The whole text's length: open_memories has it all."),
  tags: z.array(z.string()),
  entities: z.array(z.string()),
  status: z.enum(MEMORY_STATUSES),
  created_at: z.number(),
  last_used: z.number(),
  use_count: z.number(),
  score: z.number(),
});

export const readGraphOutput = z.object({
  memories: z.array(graphMemory).describe('In the order of their ids.'),
  relations: z
    .array(memoryRelation)
    .describe('The relations from the memories of this page to any memory of the listing.'),
  next_cursor: z
    .string()
    .nullable()
    .describe('Pass it as cursor for the next page; null on the last page.'),
});

export type ReadGraphInput = z.infer<typeof readGraphInput>;
export type ReadGraphOutput = z.infer<typeof readGraphOutput>;
export type GraphMemory = z.infer<typeof graphMemory>;

export const readGraph: ToolContract<typeof readGraphInput, typeof readGraphOutput> = {
  name: 'read_graph',
  title: 'Read the memory graph',
  description:
    'Lists every memory and relation, a page at a time: pass next_cursor as cursor until it is null.',
  guide:
    'Memories come in the order of their ids, and the pages together hold each memory once; ' +
    'leave cursor out for the first page, then pass the next_cursor of each page. ' +
    'Each relation is listed once, on the page of the memory it starts from (from_memory_id), when the memory it points to is in the listing too (on this page or another). ' +
    `Contents longer than ${count(GRAPH_PREVIEW)} characters are cut (open_memories has them whole). Reading is not a use.\n\n` +
    `- limit: memories a page holds at most, 1 to ${GRAPH_MAX_LIMIT} (default ${GRAPH_DEFAULT_LIMIT}).\n` +
    `- max_chars: about how many characters of JSON a page may hold, ${count(GRAPH_MIN_CHARS)} to ${count(GRAPH_MAX_CHARS)} (default ${count(GRAPH_DEFAULT_CHARS)}): ` +
    'the page ends before the memory that would pass it, and always holds one.\n' +
    '- tags (any of them, case aside), status (default all of active, promoted, archived) and relation_types ' +
    `(default every one of ${RELATION_TYPES.join(', ')}) filter; a cursor works only with the filters it was made with.\n\n` +
    'Memories saved while paging may be missed (ids are random): start over for a complete picture.',
  input: readGraphInput,
  output: readGraphOutput,
  annotations: READS,
};
