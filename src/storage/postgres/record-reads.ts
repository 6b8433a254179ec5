// What a replica reads of the records: a namespace's as of one snapshot (with the version it was
// at), and the changes of a namespace after the last one it saw, a page at a time.
import type pg from 'pg';
import type { MemoryRecord, RelationRecord } from '../records.js';
import { reused } from './database.js';
import { MEMORY_COLUMNS, memoryFromRow, RELATION_COLUMNS, relationFromRow } from './rows.js';

const PAGE = 5000;

const MEMORY_SELECT = `SELECT ${MEMORY_COLUMNS.join(', ')} FROM mnemo_memories`;
const RELATION_SELECT = `SELECT ${RELATION_COLUMNS.join(', ')} FROM mnemo_relations`;

type Row = Record<string, unknown>;

/** A changed record's columns beside its change: `m_<column>` of a memory, `r_<column>` of a relation. */
const CHANGED_COLUMNS = [
  ...MEMORY_COLUMNS.map((c) => `m.${c} AS m_${c}`),
  ...RELATION_COLUMNS.map((c) => `r.${c} AS r_${c}`),
].join(', ');

/** The columns `prefix`ed in `row`, as a row of their own table. */
function unprefixed(row: Row, prefix: string, columns: readonly string[]): Row {
  const out: Row = {};
  for (const column of columns) out[column] = row[`${prefix}${column}`];
  return out;
}

/** A namespace's records as of one snapshot, and the version that snapshot holds. */
export interface Snapshot {
  version: number;
  memories: MemoryRecord[];
  relations: RelationRecord[];
}

/** Reads namespace `ns`'s records in one read-only transaction of `client`. */
export async function readNamespace(client: pg.ClientBase, ns: string): Promise<Snapshot> {
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const top = await client.query<{ version: number }>(
      'SELECT version FROM mnemo_namespaces WHERE namespace = $1',
      [ns],
    );
    // Records a page at a time: the rows of a page are garbage once read.
    const memories: MemoryRecord[] = [];
    const relations: RelationRecord[] = [];
    await pages(client, MEMORY_SELECT, ns, (row) => memories.push(memoryFromRow(row)));
    await pages(client, RELATION_SELECT, ns, (row) => relations.push(relationFromRow(row)));
    await client.query('COMMIT');
    return { version: top.rows[0]?.version ?? 0, memories, relations };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/** Every namespace ever written in the database (a row each in mnemo_namespaces), by name. */
export async function namespacesIn(client: pg.ClientBase | pg.Pool): Promise<string[]> {
  return [...(await versionsOf(client, 'all')).keys()].sort();
}

/** The version of each of `namespaces` the database has (0 for one it does not know). */
export async function versionsOf(
  client: pg.ClientBase | pg.Pool,
  namespaces: string[] | 'all',
): Promise<Map<string, number>> {
  const rows =
    namespaces === 'all'
      ? await client.query<{ namespace: string; version: number }>(
          'SELECT namespace, version FROM mnemo_namespaces',
        )
      : await client.query<{ namespace: string; version: number }>(
          'SELECT namespace, version FROM mnemo_namespaces WHERE namespace = ANY($1::text[])',
          [namespaces],
        );
  return new Map(rows.rows.map((r) => [r.namespace, r.version]));
}

/**
 * The changes of a namespace after `version`, at most a page of them: `expired` when some are no
 * longer kept (the replica must read the namespace again), else each changed record as it is
 * now, or its id when it is gone.
 */
export type Changes =
  | { kind: 'none' }
  | { kind: 'expired' }
  | {
      kind: 'changed';
      /** The version of the last change read. */
      last: number;
      /** When each change read was written (ms since the epoch, the database's clock). */
      writtenAt: number[];
      /** A full page was read: there may be more after `last`. */
      more: boolean;
      memories: MemoryRecord[];
      goneMemories: Set<string>;
      relations: RelationRecord[];
      goneRelations: Set<string>;
    };

/**
 * SQL that reads the changes of a namespace after a version, at most PAGE, each changed record as
 * it is now (in the statement's snapshot), and the namespace's version (`top`): `ns` and
 * `version` are SQL expressions. In version order: the joins after the changes keep no order of
 * their own (a hash join gave them back shuffled, which read as a version pruned, and the replica
 * read its whole namespace again at every catch-up of more than a few changes).
 */
function changesSql(ns: string, version: string): string {
  return `SELECT n.version AS top, c.version, c.kind, c.id,
            (extract(epoch FROM c.at) * 1000)::float8 AS written_ms, ${CHANGED_COLUMNS}
     FROM (SELECT ${ns}::text AS namespace) q
     LEFT JOIN mnemo_namespaces n ON n.namespace = q.namespace
     LEFT JOIN LATERAL (
       SELECT version, kind, id, at FROM mnemo_changes
       WHERE namespace = q.namespace AND version > ${version}
       ORDER BY version LIMIT ${PAGE}) c ON true
     LEFT JOIN mnemo_memories m ON c.kind = 'memory' AND m.id = c.id AND m.namespace = q.namespace
     LEFT JOIN mnemo_relations r ON c.kind = 'relation' AND r.id = c.id AND r.namespace = q.namespace
     ORDER BY c.version`;
}

const CHANGES_AFTER = changesSql('$1', '$2::bigint');

/** A row of changesSql. */
type ChangeRow = Row & {
  top: number | null;
  version: number | null;
  kind: string;
  id: string;
  written_ms: number | null;
};

export async function changesAfter(
  client: pg.ClientBase,
  ns: string,
  version: number,
): Promise<Changes> {
  // One round trip: the namespace's version, the changes after `version`, and each changed
  // record as it is now (in the same snapshot), or nothing when it is gone.
  const read = await client.query<ChangeRow>(reused(CHANGES_AFTER, [ns, version]));
  return changesOf(read.rows, version);
}

/** The changes after `version` that the rows of changesSql say. */
function changesOf(rows: readonly ChangeRow[], version: number): Changes {
  const top = rows[0]?.top ?? 0;
  if (top <= version) return { kind: 'none' };
  const changes = rows.filter((r): r is typeof r & { version: number } => r.version !== null);
  // The versions of a namespace have no gaps: one missing was pruned.
  if (changes.some((c, i) => c.version !== version + i + 1) || changes.length === 0) {
    return { kind: 'expired' };
  }
  // What is still there is changed (once, however many changes name it); the rest, gone.
  const goneMemories = new Set<string>();
  const goneRelations = new Set<string>();
  const memories = new Map<string, MemoryRecord>();
  const relations = new Map<string, RelationRecord>();
  for (const c of changes) {
    if (c.kind === 'memory') {
      if (c.m_id === null) goneMemories.add(c.id);
      else if (!memories.has(c.id))
        memories.set(c.id, memoryFromRow(unprefixed(c, 'm_', MEMORY_COLUMNS)));
    } else if (c.r_id === null) goneRelations.add(c.id);
    else if (!relations.has(c.id)) {
      relations.set(c.id, relationFromRow(unprefixed(c, 'r_', RELATION_COLUMNS)));
    }
  }
  const last = changes[changes.length - 1]?.version ?? version;
  return {
    kind: 'changed',
    last,
    writtenAt: changes.map((c) => Number(c.written_ms)).filter(Number.isFinite),
    more: changes.length >= PAGE,
    memories: [...memories.values()],
    goneMemories,
    relations: [...relations.values()],
    goneRelations,
  };
}

/** Visits every row of `select` in namespace `ns` (ordered by id), PAGE at a time: no result holds them all. */
async function pages(
  client: pg.ClientBase,
  select: string,
  ns: string,
  visit: (row: Row) => void,
): Promise<void> {
  let after = '';
  for (;;) {
    const page = await client.query(
      `${select} WHERE namespace = $2 AND id > $1 ORDER BY id LIMIT ${PAGE}`,
      [after, ns],
    );
    for (const row of page.rows) visit(row);
    if (page.rows.length < PAGE) return;
    after = page.rows[page.rows.length - 1]?.id as string;
  }
}
