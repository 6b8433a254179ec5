import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { answer, type ToolDeps } from './shared.js';

const weight = (field: string, fallback: number) =>
  z
    .number({ error: `${field} must be a number from 0 to 10` })
    .min(0, { error: `${field} must be 0 or more (0 leaves that side out)` })
    .max(10, { error: `${field} must be at most 10` })
    .optional()
    .describe(
      `Weight of ${field === 'stm_weight' ? 'memories' : 'vault notes'} (default ${fallback}).`,
    );

const hit = z.object({
  source: z
    .enum(['stm', 'ltm'])
    .describe('stm: a memory of the store; ltm: a note of the Obsidian vault.'),
  memory_id: z.string().optional().describe('The memory, for a memory or a promoted note.'),
  path: z.string().optional().describe('The note, relative to the vault.'),
  title: z.string(),
  content: z.string().describe('The text, as a person left it for a note; cut to 300 characters.'),
  score: z.number().describe('Relevance on one scale for both sides, times the weight.'),
});

export function registerSearchUnified(server: McpServer, { memory }: ToolDeps): void {
  server.registerTool(
    'search_unified',
    {
      title: 'Search memories and the Obsidian vault',
      description:
        'One ranked list over short-term memories (source "stm") and every note of the Obsidian vault (source "ltm"), ' +
        'including notes a person wrote or edited there. A memory and its own note are listed once. ' +
        'Use it when the answer may be in long-term notes; search_memory covers memories only.',
      inputSchema: {
        query: z
          .string({ error: 'query must be a string of words to look for' })
          .min(1, { error: 'query is empty: pass the words to look for' })
          .max(2000, { error: 'query is longer than 2,000 characters: ask with fewer words' })
          .describe('What to look for, in words.'),
        top_k: z
          .number({ error: 'top_k must be a whole number from 1 to 100' })
          .int({ error: 'top_k must be a whole number from 1 to 100' })
          .min(1, { error: 'top_k must be at least 1' })
          .max(100, { error: 'top_k must be at most 100' })
          .optional()
          .describe('How many results, 1 to 100 (default 10).'),
        stm_weight: weight('stm_weight', 1),
        ltm_weight: weight('ltm_weight', 0.7),
      },
      outputSchema: {
        results: z.array(hit),
        total: z.number().describe('How many memories and notes matched.'),
      },
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async (input) => {
      const found = await memory.searchUnified(input);
      const lines = found.results.map(
        (r, i) =>
          `${i + 1}. [${r.source}${r.path ? ` ${r.path}` : ''}${r.memory_id ? ` ${r.memory_id}` : ''}] ${r.title} (score ${r.score})`,
      );
      const text =
        found.results.length === 0
          ? 'Nothing matches.'
          : `${found.total} match${found.total === 1 ? '' : 'es'}:\n${lines.join('\n')}`;
      return answer(found, text);
    },
  );
}
