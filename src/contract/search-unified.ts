import { z } from 'zod';
import {
  count,
  DEFAULT_PREVIEW,
  DEFAULT_TOP_K,
  includeSuperseded,
  MAX_PAGE,
  MAX_QUERY,
  READS,
  type ToolContract,
} from './shared.js';
import { neighboursInput, whenWhere } from './when-where.js';

/** How much each side counts unless told otherwise: memories fully, the vault's notes less. */
export const DEFAULT_STM_WEIGHT = 1;
export const DEFAULT_LTM_WEIGHT = 0.7;

const weight = (field: string, fallback: number) =>
  z
    .number({ error: `${field} must be a number from 0 to 10` })
    .min(0, { error: `${field} must be 0 or more (0 leaves that side out)` })
    .max(10, { error: `${field} must be at most 10` })
    .optional()
    .meta({ default: fallback });

export const searchUnifiedInput = z.object({
  query: z
    .string({ error: 'query must be a string of words to look for' })
    .min(1, { error: 'query is empty: pass the words to look for' })
    .max(MAX_QUERY, {
      error: `query is longer than ${count(MAX_QUERY)} characters: ask with fewer words`,
    }),
  top_k: z
    .number({ error: `top_k must be a whole number from 1 to ${MAX_PAGE}` })
    .int({ error: `top_k must be a whole number from 1 to ${MAX_PAGE}` })
    .min(1, { error: 'top_k must be at least 1' })
    .max(MAX_PAGE, { error: `top_k must be at most ${MAX_PAGE}` })
    .optional()
    .meta({ default: DEFAULT_TOP_K }),
  stm_weight: weight('stm_weight', DEFAULT_STM_WEIGHT),
  ltm_weight: weight('ltm_weight', DEFAULT_LTM_WEIGHT),
  include_superseded: includeSuperseded,
  neighbours: neighboursInput(),
});

export const unifiedHit = z.object({
  source: z
    .enum(['stm', 'ltm'])
    .describe('stm: a memory of the store; ltm: a note of the Obsidian vault.'),
  memory_id: z.string().optional().describe('The memory, for a memory or a promoted note.'),
  path: z.string().optional().describe('The note, relative to the vault.'),
  title: z.string(),
  content: z
    .string()
    .describe(`The text, as a person left it for a note; cut to ${DEFAULT_PREVIEW} characters.`),
  score: z.number().describe('Relevance on one scale for both sides, times the weight.'),
  date: whenWhere.date.optional().describe('For a memory: the day it was saved.'),
  ago: whenWhere.ago.optional(),
  meta_source: whenWhere.source.describe("A memory's meta.source (source above says stm or ltm)."),
  meta_context: whenWhere.context,
  neighbours: whenWhere.neighbours,
});

export const searchUnifiedOutput = z.object({
  results: z.array(unifiedHit),
  total: z.number().describe('How many memories and notes matched.'),
});

export type SearchUnifiedInput = z.infer<typeof searchUnifiedInput>;
export type SearchUnifiedOutput = z.infer<typeof searchUnifiedOutput>;
export type UnifiedHit = z.infer<typeof unifiedHit>;

export const searchUnified: ToolContract<typeof searchUnifiedInput, typeof searchUnifiedOutput> = {
  name: 'search_unified',
  title: 'Search memories and notes',
  description:
    'Searches memories (stm) and every note of the Obsidian vault (ltm) in one ranked list.',
  guide:
    'One ranked list for query over short-term memories (source "stm") and every note of the Obsidian vault (source "ltm"), ' +
    'including notes a person wrote or edited there. A memory and its own note are listed once. ' +
    'Use it when the answer may be in long-term notes; search_memory covers memories only.\n\n' +
    `- top_k: 1 to ${MAX_PAGE} results (default ${DEFAULT_TOP_K}).\n` +
    `- stm_weight (default ${DEFAULT_STM_WEIGHT}) and ltm_weight (default ${DEFAULT_LTM_WEIGHT}): 0 to 10, how much memories and notes count; 0 leaves that side out.\n` +
    '- include_superseded: true adds memories a newer one superseded (left out by default).\n' +
    `- Contents are cut to ${DEFAULT_PREVIEW} characters: open_memories or the resource mnemo://vault/{path} has the whole text.\n` +
    "- A memory (stm, or a note that is a memory's) says when it was saved (date, ago), its meta_source and meta_context; " +
    'neighbours (0 to 10) lists the memories saved next to it with the same source and context, as in search_memory.',
  input: searchUnifiedInput,
  output: searchUnifiedOutput,
  annotations: READS,
};
