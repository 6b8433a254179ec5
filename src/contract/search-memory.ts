import { z } from 'zod';
import {
  count,
  DEFAULT_PREVIEW,
  DEFAULT_TOP_K,
  MAX_PAGE,
  MAX_QUERY,
  pageNumber,
  READS,
  statusList,
  type ToolContract,
  tags,
} from './shared.js';

export const searchMemoryInput = z.object({
  query: z
    .string()
    .max(MAX_QUERY, {
      error: `query is longer than ${count(MAX_QUERY)} characters: ask with fewer words`,
    })
    .optional()
    .describe('What to look for, in words.'),
  tags: tags().optional().describe('Only memories with at least one of these tags.'),
  status: statusList.optional().describe('Statuses to include (default active and promoted).'),
  top_k: pageNumber('top_k', MAX_PAGE)
    .optional()
    .describe(`How many results, 1 to ${MAX_PAGE} (default ${DEFAULT_TOP_K}).`),
  window_days: z
    .number({ error: 'window_days must be a number of days' })
    .positive({ error: 'window_days must be above 0' })
    .optional()
    .describe('Only memories used within this many days.'),
  min_score: z
    .number({ error: 'min_score must be a number' })
    .min(0, { error: 'min_score must be 0 or more' })
    .optional()
    .describe('Only memories whose decay score is at least this.'),
  include_review_candidates: z
    .boolean({ error: 'include_review_candidates must be true or false' })
    .optional()
    .describe('Blend in memories due for review (default true).'),
  page: z
    .number({ error: 'page must be a whole number, from 1' })
    .int({ error: 'page must be a whole number, from 1' })
    .min(1, { error: 'page must be 1 or more' })
    .optional()
    .describe('Page number, from 1.'),
  page_size: pageNumber('page_size', MAX_PAGE)
    .optional()
    .describe('Results per page (default top_k).'),
  preview_length: z
    .number({ error: 'preview_length must be a whole number of characters' })
    .int({ error: 'preview_length must be a whole number of characters' })
    .min(20, { error: 'preview_length must be at least 20' })
    .max(50_000, { error: 'preview_length must be at most 50,000 (the longest content)' })
    .optional()
    .describe(`Characters of content to return per result (default ${DEFAULT_PREVIEW}).`),
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
    'Find memories by their words (content, tags and entities; case, punctuation and word endings do not matter). ' +
    'Results rank by relevance combined with how alive each memory is. A few memories that are about to be forgotten ' +
    'but match the query are blended in, marked review_candidate: true; if one helped, call observe_memory_usage so it stays. ' +
    'Searching never reinforces. Without a query, lists memories by decay score.',
  input: searchMemoryInput,
  output: searchMemoryOutput,
  annotations: READS,
};
