// What a replica reads of the records: all of them as of one snapshot (with the change it was
// at), and the changes after the last one it saw, a page at a time.
import type pg from 'pg';
import type { MemoryRecord, RelationRecord } from '../records.js';
import { MEMORY_COLUMNS, memoryFromRow, RELATION_COLUMNS, relationFromRow } from './rows.js';

const PAGE = 5000;

const MEMORY_SELECT = `SELECT ${MEMORY_COLUMNS.join(', ')} FROM mnemo_memories`;
const RELATION_SELECT = `SELECT ${RELATION_COLUMNS.join(', ')} FROM mnemo_relations`;

type Row = Record<string, unknown>;

/** Every record, by namespace, as of one snapshot, and the last change that snapshot holds. */
export interface Snapshot {
  seq: number;
  memories: [string, MemoryRecord][];
  relations: [string, RelationRecord][];
}

/** Reads every record in one read-only transaction of `client`. */
export async function readSnapshot(client: pg.ClientBase): Promise<Snapshot> {
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const top = await client.query<{ seq: number }>(
      'SELECT coalesce(max(seq), 0) AS seq FROM mnemo_changes',
    );
    // Records a page at a time: the rows of a page are garbage once read.
    const memories: [string, MemoryRecord][] = [];
    const relations: [string, RelationRecord][] = [];
    await pages(client, MEMORY_SELECT, (row) =>
      memories.push([row.namespace as string, memoryFromRow(row)]),
    );
    await pages(client, RELATION_SELECT, (row) =>
      relations.push([row.namespace as string, relationFromRow(row)]),
    );
    await client.query('COMMIT');
    return { seq: top.rows[0]?.seq ?? 0, memories, relations };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/**
 * The changes after `seq`, at most a page of them: `expired` when some are no longer kept (the
 * replica must read everything again), else each changed record as it is now, or its id when it
 * is gone.
 */
export type Changes =
  | { kind: 'none' }
  | { kind: 'expired'; floor: number }
  | {
      kind: 'changed';
      /** The last change read. */
      last: number;
      /** A full page was read: there may be more after `last`. */
      more: boolean;
      memories: [string, MemoryRecord][];
      goneMemories: Set<string>;
      relations: [string, RelationRecord][];
      goneRelations: Set<string>;
    };

export async function changesAfter(client: pg.ClientBase, seq: number): Promise<Changes> {
  // One round trip when nothing changed: the floor, and the changes after the last seen.
  const read = await client.query<{
    floor: number;
    seq: number | null;
    kind: string;
    id: string;
  }>(
    `SELECT s.value AS floor, c.seq, c.kind, c.id FROM mnemo_state s
     LEFT JOIN LATERAL (
       SELECT seq, kind, id FROM mnemo_changes WHERE seq > $1 ORDER BY seq LIMIT $2) c ON true
     WHERE s.key = 'change_floor'`,
    [seq, PAGE],
  );
  const floor = read.rows[0]?.floor ?? 0;
  if (floor > seq) return { kind: 'expired', floor };
  const changes = read.rows.filter((r): r is typeof r & { seq: number } => r.seq !== null);
  if (changes.length === 0) return { kind: 'none' };
  const goneMemories = new Set<string>();
  const goneRelations = new Set<string>();
  for (const c of changes) (c.kind === 'memory' ? goneMemories : goneRelations).add(c.id);
  const memoryRows = await client.query(`${MEMORY_SELECT} WHERE id = ANY($1)`, [[...goneMemories]]);
  const relationRows = await client.query(`${RELATION_SELECT} WHERE id = ANY($1)`, [
    [...goneRelations],
  ]);
  // What is still there is changed; the rest of the ids, gone.
  const memories: [string, MemoryRecord][] = [];
  for (const row of memoryRows.rows) {
    goneMemories.delete(row.id);
    memories.push([row.namespace, memoryFromRow(row)]);
  }
  const relations: [string, RelationRecord][] = [];
  for (const row of relationRows.rows) {
    goneRelations.delete(row.id);
    relations.push([row.namespace, relationFromRow(row)]);
  }
  return {
    kind: 'changed',
    last: changes[changes.length - 1]?.seq ?? seq,
    more: changes.length >= PAGE,
    memories,
    goneMemories,
    relations,
    goneRelations,
  };
}

/** Visits every row of `select` (ordered by id), PAGE at a time: no result holds them all. */
async function pages(
  client: pg.ClientBase,
  select: string,
  visit: (row: Row) => void,
): Promise<void> {
  let after = '';
  for (;;) {
    const page = await client.query(`${select} WHERE id > $1 ORDER BY id LIMIT ${PAGE}`, [after]);
    for (const row of page.rows) visit(row);
    if (page.rows.length < PAGE) return;
    after = page.rows[page.rows.length - 1]?.id as string;
  }
}
