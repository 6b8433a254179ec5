import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { jsonObjectProblem, MAX_META_CHARS, MAX_META_DEPTH } from '../memory/input-rules.js';
import type { MemoryService } from '../memory/service.js';
import { MEMORY_STATUSES } from '../storage/records.js';

export interface ToolDeps {
  memory: MemoryService;
}

export const MAX_CONTENT = 50_000;
export const MAX_TAGS = 50;
export const TAG_PATTERN = /^[A-Za-z0-9_/-]{1,64}$/;

export const memoryId = (field = 'memory_id') =>
  z
    .string({
      error: `${field} must be a memory id string, as returned by save_memory or search_memory`,
    })
    .min(1, { error: `${field} is empty: pass a memory id from save_memory or search_memory` })
    .max(200, { error: `${field} is too long to be a memory id` });

export const memoryIds = (field = 'memory_ids') =>
  z
    .array(memoryId(field), { error: `${field} must be a list of memory ids` })
    .min(1, { error: `${field} is empty: pass at least one memory id` })
    .max(100, { error: `${field} has more than 100 ids: split the call` });

export const tags = (field = 'tags') =>
  z
    .array(
      z.string().regex(TAG_PATTERN, {
        error: (issue) =>
          `${field} has an invalid tag ${JSON.stringify(issue.input)}: use 1 to 64 of A-Z a-z 0-9 _ / - (no spaces; e.g. "project/mnemo")`,
      }),
      { error: `${field} must be a list of strings` },
    )
    .max(MAX_TAGS, {
      error: `${field} has more than ${MAX_TAGS} tags: keep the ${MAX_TAGS} that matter most`,
    });

export const statusList = z
  .array(z.enum(MEMORY_STATUSES, { error: 'status must list active, promoted or archived' }))
  .min(1, { error: 'status is empty: list at least one of active, promoted, archived' });

/** The limits of a free-form JSON field, for its description. */
export const JSON_OBJECT_LIMITS = `at most ${MAX_META_DEPTH} levels deep and ${MAX_META_CHARS.toLocaleString('en-US')} characters as JSON, without a "__proto__" key`;

/**
 * A free-form JSON object (meta, metadata). Checked as it arrives, before zod copies it: the
 * copy would drop a `__proto__` key unseen, and the depth is bounded before anything recurses.
 */
export const jsonObject = (field: string) =>
  z.preprocess(
    (value, ctx) => {
      const problem = jsonObjectProblem(value, field);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
      return value;
    },
    z.record(z.string(), z.unknown(), {
      error: `${field} must be an object of JSON fields, e.g. {"project": "mnemo"}`,
    }),
  );

export const unixTime = z.number().int().describe('Epoch seconds');

/** A tool answer: structuredContent plus a short text rendering for clients without it. */
export function answer<T extends Record<string, unknown>>(
  structured: T,
  text: string,
): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

export const round2 = (x: number) => Math.round(x * 100) / 100;
