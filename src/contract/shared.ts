// What the tools' schemas share: the shape of a contract, field builders, limits and hints.
// Zod and the domain's constants only: the SDK stays in src/tools.
import { z } from 'zod';
import { groupDigits } from '../platform/digits.js';
import { MEMORY_STATUSES } from '../storage/records.js';
import { jsonObjectProblem, MAX_META_CHARS, MAX_META_DEPTH } from './rules.js';

/** How a tool behaves, as MCP's ToolAnnotations say it. */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * One tool as the model sees it: what it takes, what it answers, and what it says about itself.
 * The tool adapter registers it, and the use case behind it takes and returns its types.
 */
export interface ToolContract<
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodObject = z.ZodObject,
> {
  name: string;
  title: string;
  /** What the tool does, in a sentence or three: every conversation pays for it. */
  description: string;
  /** What the description leaves out (behaviours, limits, examples): read at mnemo://help/<name>. */
  guide?: string;
  input: I;
  output: O;
  annotations: ToolHints;
}

/** Reads and changes nothing: the same call answers the same. */
export const READS: ToolHints = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** Changes the memory; `idempotent` when calling it twice does no more than once. */
export function writes(hints: { idempotent?: boolean; destructive?: boolean } = {}): ToolHints {
  return {
    readOnlyHint: false,
    destructiveHint: hints.destructive ?? false,
    idempotentHint: hints.idempotent ?? false,
    openWorldHint: false,
  };
}

export const MAX_CONTENT = 50_000;
export const MAX_TAGS = 50;
const TAG_PATTERN = /^[A-Za-z0-9_/-]{1,64}$/;
/** Ids one call may name. */
export const MAX_IDS = 100;
/** Characters of a query. */
export const MAX_QUERY = 2000;
/** Results one page may hold. */
export const MAX_PAGE = 100;
/** Results a search answers unless told otherwise. */
export const DEFAULT_TOP_K = 10;
/** Characters of content a result shows unless told otherwise. */
export const DEFAULT_PREVIEW = 300;

/** Numbers as the descriptions and messages write them: 50,000. */
export const count = groupDigits;

export const memoryId = (field = 'memory_id') =>
  z
    .string({
      error: `${field} must be a memory id string, as returned by save_memory or search_memory`,
    })
    .min(1, { error: `${field} is empty: pass a memory id from save_memory or search_memory` })
    .max(200, { error: `${field} is too long to be a memory id` });

/** The input of a tool that acts on one memory. */
export const oneMemory = () => z.object({ memory_id: memoryId() });

export const memoryIds = (field = 'memory_ids') =>
  z
    .array(memoryId(field), { error: `${field} must be a list of memory ids` })
    .min(1, { error: `${field} is empty: pass at least one memory id` })
    .max(MAX_IDS, { error: `${field} has more than ${MAX_IDS} ids: split the call` });

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

const STATUS_NAMES = MEMORY_STATUSES.join(', ');

export const statusList = z
  .array(z.enum(MEMORY_STATUSES, { error: `status must list any of ${STATUS_NAMES}` }))
  .min(1, { error: `status is empty: list at least one of ${STATUS_NAMES}` })
  .max(MEMORY_STATUSES.length, {
    error: `status lists more than ${MEMORY_STATUSES.length} statuses: name each of ${STATUS_NAMES} once`,
  });

/** search_memory's and search_unified's way to see superseded memories too. */
export const includeSuperseded = z
  .boolean({ error: 'include_superseded must be true or false' })
  .optional()
  .describe('Also superseded ones.')
  .meta({ default: false });

/** A whole number of results, 1 to `max`. */
export const pageNumber = (field: string, max: number) =>
  z
    .number({ error: `${field} must be a whole number from 1 to ${max}` })
    .int({ error: `${field} must be a whole number from 1 to ${max}` })
    .min(1, { error: `${field} must be at least 1` })
    .max(max, { error: `${field} must be at most ${max}: page through results with page instead` });

/** The limits of a free-form JSON field, for its description. */
export const JSON_OBJECT_LIMITS = `at most ${MAX_META_DEPTH} levels deep and ${count(MAX_META_CHARS)} characters as JSON, without a "__proto__" key`;

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

/** What a status change answers (archive_memory, delete_memory). */
export const statusOutput = z.object({
  memory_id: z.string(),
  status: z.string().describe('active, promoted, archived, or deleted.'),
});
