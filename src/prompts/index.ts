// The prompts: `recall`, the context pack as a user message, and `review`, a walk through the
// memories about to be forgotten that asks the agent to reinforce what is still true.
import type { GetPromptResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { OpenConflict } from '../memory/conflicts.js';
import {
  buildContextPack,
  DEFAULT_PACK_TOKENS,
  MAX_PACK_TOKENS,
  MIN_PACK_TOKENS,
  oneLine,
} from '../memory/context-pack.js';
import { preview } from '../memory/present.js';
import { protocolError, type ReadDeps } from '../resources/read.js';

const DEFAULT_REVIEW = 10;
const MAX_REVIEW = 50;

/** A whole number from a prompt argument (prompt arguments are strings). */
const wholeNumber = (what: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `${what} must be a whole number from ${min} to ${max}`)
    .refine((s) => Number(s) >= min && Number(s) <= max, {
      message: `${what} must be a whole number from ${min} to ${max}`,
    })
    .optional();

export function registerPrompts(server: McpServer, deps: ReadDeps): void {
  const { memory, logger } = deps;
  server.registerPrompt(
    'recall',
    {
      title: 'Recall: the context pack',
      description:
        'What to know before starting: the anchor (the person’s own notes), the memories most relevant to the topic, and those due for review, within a token budget. The same as the resource mnemo://context{?topic,max_tokens}.',
      argsSchema: z.object({
        topic: z
          .string()
          .max(2000)
          .optional()
          .describe(
            'What the work is about, in a few words (searched as search_memory does); leave it out for the liveliest memories',
          ),
        max_tokens: wholeNumber('max_tokens', MIN_PACK_TOKENS, MAX_PACK_TOKENS).describe(
          `The most the pack may take, in tokens of ~4 characters (default ${DEFAULT_PACK_TOKENS})`,
        ),
      }),
    },
    async ({ topic, max_tokens }): Promise<GetPromptResult> => {
      try {
        const pack = await buildContextPack(memory, {
          topic,
          maxTokens: max_tokens === undefined ? undefined : Number(max_tokens),
          anchorFile: deps.anchorFile,
        });
        return {
          description: topic ? `Context pack for "${preview(topic, 80)}"` : 'Context pack',
          messages: [{ role: 'user', content: { type: 'text', text: pack.text } }],
        };
      } catch (error) {
        throw protocolError(error, logger, 'mnemo://context');
      }
    },
  );
  server.registerPrompt(
    'review',
    {
      title: 'Review: memories about to be forgotten',
      description:
        'Walks the memories in the danger zone, most urgent first, and asks which are still true: reinforce those with observe_memory_usage (or touch_memory), leave the rest to fade.',
      argsSchema: z.object({
        limit: wholeNumber('limit', 1, MAX_REVIEW).describe(
          `How many memories to review, most urgent first (default ${DEFAULT_REVIEW}, at most ${MAX_REVIEW})`,
        ),
      }),
    },
    async ({ limit }): Promise<GetPromptResult> => {
      try {
        const count = limit === undefined ? DEFAULT_REVIEW : Number(limit);
        const items = await memory.overview.reviewQueue(count);
        const conflicts = await memory.conflicts.open(count);
        const fading =
          items.length === 0 && conflicts.length > 0
            ? []
            : items.length === 0
              ? [
                  'Nothing is due for review: no memory is in the danger zone. There is nothing to do.',
                ]
              : [
                  `These ${items.length} memories are fading and will be forgotten unless they are used. For each, decide whether it is still true and useful:`,
                  '',
                  ...items.map(
                    (item, i) =>
                      `${i + 1}. ${preview(oneLine(item.record.content), 400)}\n   (id ${oneLine(item.record.id)}; score ${item.score}; review priority ${item.review_priority}; used ${item.record.use_count} times)`,
                  ),
                  '',
                  'Call observe_memory_usage with the ids of those still true (one call, memory_ids: [...]), or touch_memory for one. Leave the others: they fade and gc forgets them. Say which you kept and why, in a line each.',
                ];
        const lines = [...fading, ...conflictLines(conflicts)];
        return {
          description: `Review ${items.length} fading memories and ${conflicts.length} conflicts`,
          messages: [{ role: 'user', content: { type: 'text', text: lines.join('\n') } }],
        };
      } catch (error) {
        throw protocolError(error, logger, 'mnemo://review');
      }
    },
  );
}

/** The open conflicts, as the review prompt asks a person to settle them (none: nothing). */
function conflictLines(conflicts: readonly OpenConflict[]): string[] {
  if (conflicts.length === 0) return [];
  return [
    '',
    `These ${conflicts.length} pairs of memories seem to contradict each other. Ask the person which holds, then call settle_conflict with both ids and keep: first, second, both or merge:`,
    '',
    ...conflicts.map(
      (c, i) =>
        `${i + 1}. first (id ${oneLine(c.first.memory_id)}): ${oneLine(c.first.content)}\n   second (id ${oneLine(c.second.memory_id)}): ${oneLine(c.second.content)}`,
    ),
  ];
}
