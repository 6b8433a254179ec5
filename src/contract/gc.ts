import { z } from 'zod';
import { supersededUndone } from './save-memory.js';
import { type ToolContract, writes } from './shared.js';

export const gcInput = z.object({
  dry_run: z.boolean({ error: 'dry_run must be true or false' }).optional().meta({ default: true }),
  archive_instead: z
    .boolean({ error: 'archive_instead must be true or false' })
    .optional()
    .meta({ default: false }),
  limit: z
    .number({ error: 'limit must be a whole number of memories' })
    .int()
    .min(1, { error: 'limit must be at least 1' })
    .max(100_000, { error: 'limit must be at most 100,000: run gc again for more' })
    .optional()
    .describe('Weakest first.'),
});

export const gcCandidate = z.object({
  memory_id: z.string(),
  score: z.number(),
  age_days: z.number(),
  last_used: z.number(),
  use_count: z.number(),
  preview: z.string(),
  action: z.enum(['forget', 'archive']),
});

export const gcOutput = z.object({
  dry_run: z.boolean(),
  removed_count: z.number(),
  archived_count: z.number(),
  total_affected: z.number(),
  memory_ids: z.array(z.string()),
  candidates: z.array(gcCandidate).describe('Each affected memory, weakest first.'),
  superseded_undone: supersededUndone.describe(
    'Memories a forgotten or archived one had superseded: current again (a dry run: would be).',
  ),
});

export type GcInput = z.infer<typeof gcInput>;
export type GcOutput = z.infer<typeof gcOutput>;
export type GcCandidate = z.infer<typeof gcCandidate>;

export const gc: ToolContract<typeof gcInput, typeof gcOutput> = {
  name: 'gc',
  title: 'Forget faded memories',
  description:
    'Finds active memories whose score fell below the forget threshold; with dry_run false, forgets (recoverably) or archives them.',
  guide:
    'Finds active memories whose decay score fell below the forget threshold, weakest first. ' +
    'A dry run (dry_run true, the default) only lists them. With dry_run false they are forgotten recoverably ' +
    '(a copy is kept among the forgotten; restore_memory brings one back), or archived with archive_instead: true.\n\n' +
    'A memory that superseded others (save_memory saw a newer value) leaves them current again, named in superseded_undone (a dry run names what would be).\n\n' +
    '- limit: at most this many memories, 1 to 100,000 (the weakest); run gc again for more.',
  input: gcInput,
  output: gcOutput,
  annotations: writes({ destructive: true }),
};
