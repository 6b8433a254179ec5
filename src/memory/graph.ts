// The whole memory, page by page: read_graph. Pages follow the ids' order, so a cursor is the
// last id shown; only the records of a page (and of its relations' other ends) are read.
import { createHash } from 'node:crypto';
import {
  GRAPH_DEFAULT_CHARS,
  GRAPH_DEFAULT_LIMIT,
  GRAPH_PREVIEW,
  type GraphMemory,
  type ReadGraphInput,
  type ReadGraphOutput,
} from '../contract/read-graph.js';
import { idsWithStatus } from '../storage/engine.js';
import {
  MEMORY_STATUSES,
  type MemoryRecord,
  type MemoryStatus,
  type RelationRecord,
} from '../storage/records.js';
import type { MemoryContext } from './context.js';
import { MemoryError } from './errors.js';
import { preview, round } from './present.js';

type Relation = ReadGraphOutput['relations'][number];

/** Ids taken in one step when filtering by tags: a sparse tag reads on until a page fills. */
const BATCH = 256;

export class Graph {
  constructor(private readonly ctx: MemoryContext) {}

  async read(input: ReadGraphInput): Promise<ReadGraphOutput> {
    await this.ctx.sync();
    const { engine } = this.ctx;
    const now = this.ctx.clock();
    const limit = input.limit ?? GRAPH_DEFAULT_LIMIT;
    const budget = input.max_chars ?? GRAPH_DEFAULT_CHARS;
    const statuses = new Set<MemoryStatus>(input.status ?? MEMORY_STATUSES);
    const tagSet = input.tags?.length ? new Set(input.tags.map(lower)) : null;
    const types = input.relation_types ? new Set<string>(input.relation_types) : null;
    const listing = listingOf(engine.namespaceName, input);
    let after = input.cursor === undefined ? '' : decodeCursor(input.cursor, listing);

    const inListing = (record: MemoryRecord | undefined): record is MemoryRecord =>
      record !== undefined &&
      statuses.has(record.status) &&
      (tagSet === null || record.meta.tags.some((t) => tagSet.has(lower(t))));
    // The ids a page may draw from: of the statuses asked, read from the table's columns.
    const pool = (): Iterable<string> =>
      statuses.size === MEMORY_STATUSES.length
        ? engine.memories.keys()
        : [...statuses].flatMap((status) => idsWithStatus(engine.memories, status));

    const memories: GraphMemory[] = [];
    const relations: Relation[] = [];
    let used = 0;
    let last = '';
    let more = false;
    // Without a tag filter every id of the pool is on the listing: one step finds the page.
    const step = tagSet === null ? limit + 1 : Math.max(BATCH, limit + 1);
    // A second step takes the rest of the pool sorted once: a step per 256 ids, each a pass over
    // the whole pool, was quadratic (a tag no memory has held every namespace 5 s over 100,000
    // memories).
    let first = true;
    const nextStep = (from: string) => {
      if (first) {
        first = false;
        return smallestAfter(pool(), from, step);
      }
      const rest = [...pool()].filter((id) => id > from).sort();
      return { smallest: rest, total: rest.length };
    };
    page: for (;;) {
      const { smallest, total } = nextStep(after);
      for (let i = 0; i < smallest.length; i++) {
        const id = smallest[i] as string;
        const record = engine.memories.get(id);
        if (!inListing(record)) continue;
        if (memories.length === limit) {
          more = true;
          break page;
        }
        const shown = this.shown(record, now);
        const outgoing = engine
          .relationsOf(id)
          .filter(
            (r) =>
              r.from_memory_id === id &&
              (types === null || types.has(r.relation_type)) &&
              inListing(engine.memories.get(r.to_memory_id)),
          )
          .map(shownRelation);
        const chars = JSON.stringify(shown).length + JSON.stringify(outgoing).length;
        if (memories.length > 0 && used + chars > budget) {
          more = true;
          break page;
        }
        memories.push(shown);
        relations.push(...outgoing);
        used += chars;
        last = id;
      }
      if (smallest.length === total) break;
      after = smallest.at(-1) as string;
    }
    return { memories, relations, next_cursor: more ? encodeCursor(last, listing) : null };
  }

  private shown(record: MemoryRecord, now: number): GraphMemory {
    return {
      id: record.id,
      content: preview(record.content, GRAPH_PREVIEW),
      content_chars: record.content.length,
      tags: record.meta.tags,
      entities: record.entities,
      status: record.status,
      created_at: record.created_at,
      last_used: record.last_used,
      use_count: record.use_count,
      score: round(this.ctx.score(record, now)),
    };
  }
}

const lower = (s: string) => s.toLowerCase();

function shownRelation(relation: RelationRecord): Relation {
  return {
    id: relation.id,
    from_memory_id: relation.from_memory_id,
    to_memory_id: relation.to_memory_id,
    relation_type: relation.relation_type,
    strength: relation.strength,
    created_at: relation.created_at,
    metadata: relation.metadata,
  };
}

/**
 * The `k` smallest ids above `after`, in order, and how many there are above it in all. One
 * pass, a sorted list of k: no sort of every id.
 */
export function smallestAfter(
  ids: Iterable<string>,
  after: string,
  k: number,
): { smallest: string[]; total: number } {
  const smallest: string[] = [];
  let total = 0;
  for (const id of ids) {
    if (id <= after) continue;
    total++;
    if (smallest.length === k && id >= (smallest[k - 1] as string)) continue;
    let lo = 0;
    let hi = smallest.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((smallest[mid] as string) < id) lo = mid + 1;
      else hi = mid;
    }
    smallest.splice(lo, 0, id);
    if (smallest.length > k) smallest.pop();
  }
  return { smallest, total };
}

/** What a cursor is valid for: the namespace and the filters (limit and max_chars may change). */
function listingOf(namespace: string, input: ReadGraphInput): string {
  const sorted = (values: readonly string[] | undefined) =>
    values ? [...new Set(values.map(lower))].sort() : null;
  const key = JSON.stringify([
    namespace,
    sorted(input.tags),
    sorted(input.status),
    sorted(input.relation_types),
  ]);
  return createHash('sha256').update(key).digest('base64url').slice(0, 16);
}

function encodeCursor(after: string, listing: string): string {
  return Buffer.from(JSON.stringify({ a: after, l: listing })).toString('base64url');
}

function decodeCursor(cursor: string, listing: string): string {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  const { a, l } = (decoded ?? {}) as { a?: unknown; l?: unknown };
  if (typeof a !== 'string' || typeof l !== 'string' || a === '') {
    throw new MemoryError(
      'cursor is not a read_graph cursor: pass next_cursor as the previous page gave it, or leave cursor out to start over',
      'cursor',
    );
  }
  if (l !== listing) {
    throw new MemoryError(
      'cursor is from a read_graph listing with other tags, status or relation_types (or another namespace): pass the same filters as its first page, or leave cursor out to start over',
      'cursor',
    );
  }
  return a;
}
