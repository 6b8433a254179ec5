import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { answer, statusList, type ToolDeps, tags } from './shared.js';

const hit = z.object({
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

const pageNumber = (field: string, max: number) =>
  z
    .number({ error: `${field} must be a whole number from 1 to ${max}` })
    .int({ error: `${field} must be a whole number from 1 to ${max}` })
    .min(1, { error: `${field} must be at least 1` })
    .max(max, { error: `${field} must be at most ${max}: page through results with page instead` });

export function registerSearchMemory(server: McpServer, { memory }: ToolDeps): void {
  server.registerTool(
    'search_memory',
    {
      title: 'Search memories',
      description:
        'Find memories by their words (content, tags and entities; case, punctuation and word endings do not matter). ' +
        'Results rank by relevance combined with how alive each memory is. A few memories that are about to be forgotten ' +
        'but match the query are blended in, marked review_candidate: true; if one helped, call observe_memory_usage so it stays. ' +
        'Searching never reinforces. Without a query, lists memories by decay score.',
      inputSchema: {
        query: z
          .string()
          .max(2000, { error: 'query is longer than 2,000 characters: ask with fewer words' })
          .optional()
          .describe('What to look for, in words.'),
        tags: tags().optional().describe('Only memories with at least one of these tags.'),
        status: statusList
          .optional()
          .describe('Statuses to include (default active and promoted).'),
        top_k: pageNumber('top_k', 100)
          .optional()
          .describe('How many results, 1 to 100 (default 10).'),
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
          .boolean()
          .optional()
          .describe('Blend in memories due for review (default true).'),
        page: z
          .number()
          .int()
          .min(1, { error: 'page must be 1 or more' })
          .optional()
          .describe('Page number, from 1.'),
        page_size: pageNumber('page_size', 100)
          .optional()
          .describe('Results per page (default top_k).'),
        preview_length: z
          .number()
          .int()
          .min(20, { error: 'preview_length must be at least 20' })
          .max(50_000)
          .optional()
          .describe('Characters of content to return per result (default 300).'),
      },
      outputSchema: {
        results: z.array(hit),
        total: z.number().describe('How many memories matched, over all pages.'),
        page: z.number(),
      },
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async (input) => {
      const found = await memory.search(input);
      const lines = found.results.map(
        (r, i) =>
          `${i + 1}. [${r.memory_id}] ${r.content.replace(/\s+/g, ' ').slice(0, 160)} (score ${r.score}, relevance ${r.relevance}${r.review_candidate ? ', review' : ''})`,
      );
      const text =
        found.results.length === 0
          ? 'No memory matches.'
          : `${found.total} match${found.total === 1 ? '' : 'es'}, page ${found.page}:\n${lines.join('\n')}`;
      return answer(found, text);
    },
  );
}
