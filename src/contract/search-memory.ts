import { z } from 'zod';
import { MAX_NEIGHBOURS, NEIGHBOUR_BUDGET } from './limits.js';
import {
  count,
  DEFAULT_PREVIEW,
  DEFAULT_TOP_K,
  includeSuperseded,
  MAX_PAGE,
  MAX_QUERY,
  pageNumber,
  READS,
  statusList,
  type ToolContract,
  tags,
} from './shared.js';
import { neighboursInput, TIME_GUIDE, whenWhere } from './when-where.js';

export const searchMemoryInput = z.object({
  query: z
    .string()
    .max(MAX_QUERY, {
      error: `query is longer than ${count(MAX_QUERY)} characters: ask with fewer words`,
    })
    .optional()
    .describe('Leave it out to list by decay score.'),
  tags: tags().optional().describe('Any of these.'),
  status: statusList.optional().meta({ default: ['active', 'promoted'] }),
  include_superseded: includeSuperseded,
  top_k: pageNumber('top_k', MAX_PAGE).optional().meta({ default: DEFAULT_TOP_K }),
  window_days: z
    .number({ error: 'window_days must be a number of days' })
    .positive({ error: 'window_days must be above 0' })
    .optional()
    .describe('Used within this many days.'),
  min_score: z
    .number({ error: 'min_score must be a number' })
    .min(0, { error: 'min_score must be 0 or more' })
    .optional()
    .describe('Lowest decay score.'),
  include_review_candidates: z
    .boolean({ error: 'include_review_candidates must be true or false' })
    .optional()
    .meta({ default: true }),
  page: z
    .number({ error: 'page must be a whole number, from 1' })
    .int({ error: 'page must be a whole number, from 1' })
    .min(1, { error: 'page must be 1 or more' })
    .optional(),
  page_size: pageNumber('page_size', MAX_PAGE).optional().describe('Default top_k.'),
  preview_length: z
    .number({ error: 'preview_length must be a whole number of characters' })
    .int({ error: 'preview_length must be a whole number of characters' })
    .min(20, { error: 'preview_length must be at least 20' })
    .max(50_000, { error: 'preview_length must be at most 50,000 (the longest content)' })
    .optional()
    .meta({ default: DEFAULT_PREVIEW }),
  neighbours: neighboursInput(),
  time_filter: z
    .boolean({ error: 'time_filter must be true or false' })
    .optional()
    .describe('Only those saved when the query says.'),
});

export const searchHit = z.object({
  memory_id: z.string(),
  content: z.string().describe('The content, cut to preview_length characters.'),
  tags: z.array(z.string()),
  score: z
    .number()
    .describe('Decay score now: (use_count + 1)^beta * decay(time since last use) * strength.'),
  relevance: z.number().describe('How well it matches the query, 0 to 1 (1 is the best match).'),
  use_count: z.number(),
  last_used: z.number().describe('Epoch seconds.'),
  age_days: z.number(),
  review_priority: z
    .number()
    .describe('0 outside the danger zone; up to 1 when about to be forgotten.'),
  review_candidate: z
    .boolean()
    .describe('True when blended in for review: about to be forgotten, still relevant.'),
  superseded_by: z.string().optional().describe('The newer memory, when this one is superseded.'),
  ...whenWhere,
});

export const searchMemoryOutput = z.object({
  results: z.array(searchHit),
  total: z.number().describe('How many memories matched, over all pages.'),
  page: z.number(),
});

export type SearchMemoryInput = z.infer<typeof searchMemoryInput>;
export type SearchMemoryOutput = z.infer<typeof searchMemoryOutput>;
export type SearchHit = z.infer<typeof searchHit>;

export const searchMemory: ToolContract<typeof searchMemoryInput, typeof searchMemoryOutput> = {
  name: 'search_memory',
  title: 'Search memories',
  description:
    'Find memories by words, ranked by relevance and liveliness. Results marked review_candidate are about to be forgotten: ' +
    'if one helps, call observe_memory_usage.',
  guide:
    'The query matches the content, tags and entities of memories; case, punctuation and word endings do not matter ' +
    '(with embeddings on, meaning counts too). Results rank by relevance combined with how alive each memory is (its decay score). ' +
    'Without a query, memories are listed by decay score. Searching never reinforces.\n\n' +
    'A few memories that are about to be forgotten but match the query are blended in, marked review_candidate: true; ' +
    'if one helped, call observe_memory_usage so it stays.\n\n' +
    `- top_k: 1 to ${MAX_PAGE} results (default ${DEFAULT_TOP_K}); page (from 1) and page_size (default top_k) page through them; total counts every match.\n` +
    '- tags: only memories with at least one of them (case aside).\n' +
    '- status: which of active, promoted, archived and superseded to include (default active and promoted).\n' +
    '- include_superseded: true adds memories a newer one superseded (save_memory lists them under supersedes).\n' +
    '- window_days: only memories used within that many days; min_score: only memories whose decay score is at least that.\n' +
    '- include_review_candidates: false leaves the review candidates out (default true).\n' +
    `- preview_length: 20 to ${count(50_000)} characters of content per result (default ${DEFAULT_PREVIEW}); open_memories has the whole memory.\n` +
    `- neighbours: 0 to ${MAX_NEIGHBOURS}: each result also lists the memories saved just before and after it with the same source and context (nearest first; without either, those also without either saved within 6 hours), ${count(NEIGHBOUR_BUDGET)} characters of their content in all, a cut marked by …\n\n` +
    TIME_GUIDE +
    '\n\n' +
    'Example: {"query": "where is the cabin key", "tags": ["home"], "top_k": 5}',
  input: searchMemoryInput,
  output: searchMemoryOutput,
  annotations: READS,
};
