import { z } from 'zod';
import { MEMORY_STATUSES } from '../storage/records.js';
import { linkedMemory } from './save-memory.js';
import { MAX_IDS, memoryIds, READS, type ToolContract } from './shared.js';
import { neighbour, neighboursInput, whenWhere } from './when-where.js';

export const openMemoriesInput = z.object({
  memory_ids: memoryIds(),
  neighbours: neighboursInput(),
});

export const memoryRelation = z.object({
  id: z.string(),
  from_memory_id: z.string(),
  to_memory_id: z.string(),
  relation_type: z.string(),
  strength: z.number(),
  created_at: z.number(),
  metadata: z.record(z.string(), z.unknown()),
});

export const memoryVersion = z.object({
  version: z.number(),
  content: z.string(),
  tags: z.array(z.string()),
  entities: z.array(z.string()),
  meta: z.record(z.string(), z.unknown()),
  replaced_at: z.number().describe('When it stopped being current (epoch seconds).'),
});

export const fullMemory = z.object({
  id: z.string(),
  content: z.string(),
  meta: z.object({
    tags: z.array(z.string()),
    source: z.string().nullable(),
    context: z.string().nullable(),
    extra: z.record(z.string(), z.unknown()),
  }),
  entities: z.array(z.string()),
  created_at: z.number(),
  date: whenWhere.date,
  ago: whenWhere.ago,
  neighbours: z
    .array(neighbour)
    .optional()
    .describe(whenWhere.neighbours.description ?? ''),
  last_used: z.number(),
  use_count: z.number(),
  strength: z.number(),
  status: z.enum(MEMORY_STATUSES),
  promoted_at: z.number().nullable(),
  promoted_to: z.string().nullable(),
  review_count: z.number(),
  last_review_at: z.number().nullable(),
  cross_domain_count: z.number(),
  score: z.number(),
  review_priority: z.number(),
  relations: z.array(memoryRelation),
  superseded_by: linkedMemory
    .nullable()
    .describe('The newer memory that superseded this one (content empty once it is gone).'),
  supersedes: z.array(linkedMemory).describe('The memories this one superseded.'),
  version: z.number().describe('The number of the current state: 1 until it is first updated.'),
  versions: z
    .array(memoryVersion)
    .describe('Earlier states, oldest first (update_memory keeps them); empty when never updated.'),
});

export const openMemoriesOutput = z.object({
  memories: z.array(fullMemory),
  not_found: z.array(z.string()),
});

export type OpenMemoriesInput = z.infer<typeof openMemoriesInput>;
export type OpenMemoriesOutput = z.infer<typeof openMemoriesOutput>;

export const openMemories: ToolContract<typeof openMemoriesInput, typeof openMemoriesOutput> = {
  name: 'open_memories',
  title: 'Open memories in full',
  description:
    'Whole memories by id, with their relations and earlier versions. Opening does not reinforce.',
  guide:
    `Returns whole memories by id (memory_ids: 1 to ${MAX_IDS} ids): full content, metadata, current score and review priority, ` +
    'their relations, the supersession chain both ways (superseded_by, supersedes), and their earlier versions (update_memory keeps them; restore_memory with a version brings one back). ' +
    'Ids that are not found are listed in not_found. Opening does not reinforce. ' +
    "Each says when it was saved (date: the UTC day and weekday; ago: at the server's clock); neighbours (0 to 10) " +
    'lists the memories saved just before and after it with the same meta.source and meta.context, nearest first, ' +
    '2,000 characters of their content in all.',
  input: openMemoriesInput,
  output: openMemoriesOutput,
  annotations: READS,
};
