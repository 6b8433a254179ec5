// What every result says of its when and where: the day it was saved in words, how long ago
// that is, its source and context, and on request the memories saved next to it.
import { z } from 'zod';
import { MAX_NEIGHBOURS, NEIGHBOUR_BUDGET } from './limits.js';
import { count } from './shared.js';

/** Characters of a result's context: the rest is in open_memories. */
export const CONTEXT_PREVIEW = 300;

export const neighboursInput = () =>
  z
    .number({ error: `neighbours must be a whole number from 0 to ${MAX_NEIGHBOURS}` })
    .int({ error: `neighbours must be a whole number from 0 to ${MAX_NEIGHBOURS}` })
    .min(0, { error: 'neighbours must be 0 or more' })
    .max(MAX_NEIGHBOURS, { error: `neighbours must be at most ${MAX_NEIGHBOURS} a side` })
    .optional()
    .describe('Same-session neighbours per side.');

export const neighbour = z.object({
  memory_id: z.string(),
  offset: z.number().describe('-1: saved just before it, 1: just after.'),
  date: z.string(),
  content: z.string(),
});

export const whenWhere = {
  date: z.string().describe('The day it was saved, e.g. "2023-05-08, a Monday" (UTC).'),
  ago: z.string().describe('How long ago, at the server\'s clock: "today", "3 days ago".'),
  source: z.string().optional(),
  context: z.string().optional().describe(`Cut to ${CONTEXT_PREVIEW} characters.`),
  neighbours: z
    .array(neighbour)
    .optional()
    .describe(`On request; ${count(NEIGHBOUR_BUDGET)} characters of content in all.`),
};

export type Neighbours = z.infer<typeof neighbour>[];

/** What the guides say of dates in results and of time in queries. */
export const TIME_GUIDE =
  "Each result says when it was saved: date (the UTC day and weekday) and ago (at the server's clock), " +
  'and its source and context when it has them.\n' +
  'Time in the query counts: "yesterday", "last week", "last summer", "in May 2023", "May 8, 2023", "2023", ' +
  '"two weeks ago", "the week before 9 June 2023", "before/after/since <date>" lift the memories saved then or ' +
  'saying a date then ("yesterday" in a memory is the day before it was saved); a question asking "when" lifts ' +
  'the memories that say a date. time_filter: true keeps only the memories saved in the time named (an error ' +
  'when the query names none). "before she moved" (a time relative to another memory) is read as words only.';
