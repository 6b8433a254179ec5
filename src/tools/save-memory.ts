import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { contentProblem } from '../memory/input-rules.js';
import {
  answer,
  JSON_OBJECT_LIMITS,
  jsonObject,
  MAX_CONTENT,
  type ToolDeps,
  tags,
} from './shared.js';

export function registerSaveMemory(server: McpServer, { memory }: ToolDeps): void {
  server.registerTool(
    'save_memory',
    {
      title: 'Save a memory',
      description:
        'Remember one fact, decision, preference or event for later. Write it so it makes sense on its own, months from now. ' +
        'Saving the same content again reinforces the existing memory instead of duplicating it (deduplicated: true). ' +
        'Memories close in meaning are listed under similar_to and both are kept: open or consolidate them if they say the same. ' +
        'Memories fade unless used; use touch_memory or observe_memory_usage when one helps. ' +
        `meta is kept as given, ${JSON_OBJECT_LIMITS}.`,
      inputSchema: {
        content: z
          .string({ error: 'content must be a string: the text to remember' })
          .min(1, { error: 'content is empty: pass the text to remember (1 to 50,000 characters)' })
          .max(MAX_CONTENT, {
            error: `content is longer than ${MAX_CONTENT.toLocaleString('en-US')} characters: shorten it or split it into several memories`,
          })
          .refine((s) => contentProblem(s) === undefined, {
            error: (issue) => contentProblem(issue.input as string),
          })
          .describe(
            'The text to remember, 1 to 50,000 characters, not only white space or invisible characters.',
          ),
        tags: tags()
          .optional()
          .describe(
            'Up to 50 tags of A-Z a-z 0-9 _ / - (e.g. "project/mnemo"), used to filter searches and detect cross-domain use.',
          ),
        entities: z
          .array(z.string().min(1).max(200), { error: 'entities must be a list of names' })
          .max(100, { error: 'entities has more than 100 names: keep the ones that matter' })
          .optional()
          .describe('People, projects, places or things the memory is about; they are searchable.'),
        source: z
          .string()
          .max(500)
          .optional()
          .describe('Where this came from (a URL, a file, a conversation).'),
        context: z
          .string()
          .max(2000)
          .optional()
          .describe('What was going on when this was learned.'),
        meta: jsonObject('meta')
          .optional()
          .describe(`Any extra JSON fields to keep with the memory: ${JSON_OBJECT_LIMITS}.`),
        strength: z
          .number({
            error: 'strength must be a number from 1 to 2 (1 is normal, 2 is twice as durable)',
          })
          .min(1, { error: 'strength must be at least 1: use 1 for a normal memory' })
          .max(2, { error: 'strength must be at most 2: use 2 for the most durable memory' })
          .optional()
          .describe('How durable the memory is, 1 (default) to 2.'),
      },
      outputSchema: {
        memory_id: z
          .string()
          .describe('The id of the memory (the existing one when deduplicated).'),
        deduplicated: z
          .boolean()
          .describe('True when the same content existed and was reinforced instead.'),
        similar_to: z
          .array(
            z.object({
              memory_id: z.string(),
              similarity: z.number().describe('Cosine of the two meanings, up to 1.'),
              preview: z.string(),
            }),
          )
          .describe(
            'Other memories that say nearly the same (by meaning, embeddings on); empty otherwise. Nothing was merged.',
          ),
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    async (input) => {
      const saved = await memory.save(input);
      const similar = saved.similar_to.map((m) => `${m.memory_id} (${m.similarity})`).join(', ');
      return answer(
        { ...saved },
        (saved.deduplicated
          ? `Already remembered as ${saved.memory_id}; reinforced it.`
          : `Saved as ${saved.memory_id}.`) + (similar ? ` Close in meaning: ${similar}.` : ''),
      );
    },
  );
}
