// The writes of one namespace and their change feed: a write locks its namespace's row in
// mnemo_namespaces (writes in different namespaces never wait for each other), and writes one
// change row a record, numbered on from the namespace's version. A replica holds a namespace at
// a version and reads the changes after it; the versions of a namespace have no gaps, so a
// missing one means the changes it needed were pruned.
import type pg from 'pg';
import type { Logger } from 'pino';
import { isNamespace } from '../engine.js';
import type { MemoryRecord } from '../records.js';
import { reused } from './database.js';
import { MEMORY_COLUMNS, MEMORY_TYPES, memoryValues } from './rows.js';
import { LOCKS, notifySql } from './schema.js';

/** `ns` as an SQL literal: a namespace name is of a-z, 0-9, _ and - only (checked). */
export function namespaceLiteral(ns: string): string {
  if (!isNamespace(ns)) throw new Error(`not a namespace name: ${JSON.stringify(ns)}`);
  return `'${ns}'`;
}

/**
 * SQL (simple protocol, one round trip) that begins a transaction, waits at most `lockWaitMs`
 * for namespace `ns`'s lock and answers its version: the last result's `version`.
 */
export function beginInNamespaceSql(ns: string, lockWaitMs: number): string {
  return `BEGIN; SET LOCAL lock_timeout = ${Math.max(1, Math.floor(lockWaitMs))};
INSERT INTO mnemo_namespaces (namespace) VALUES (${namespaceLiteral(ns)})
  ON CONFLICT (namespace) DO UPDATE SET version = mnemo_namespaces.version RETURNING version`;
}

/** Begins a transaction of `client` holding namespace `ns`'s lock; answers its version. */
export async function beginInNamespace(
  client: pg.ClientBase,
  ns: string,
  lockWaitMs: number,
): Promise<number> {
  const results = (await client.query(beginInNamespaceSql(ns, lockWaitMs))) as unknown as
    | pg.QueryResult<{ version: number }>[]
    | pg.QueryResult<{ version: number }>;
  const last = Array.isArray(results) ? results[results.length - 1] : results;
  return Number(last?.rows[0]?.version ?? 0);
}

export interface ChangeIds {
  memories: readonly string[];
  relations: readonly string[];
}

/**
 * Under namespace `ns`'s lock at `version`: a change row for each id, the namespace's version
 * moved on past them, and a notification (sent on commit). Answers the new version.
 */
export async function recordChanges(
  client: pg.ClientBase,
  ns: string,
  version: number,
  ids: ChangeIds,
): Promise<number> {
  if (changeKinds(ids).length === 0) return version;
  return (await writeWithChanges(client, ns, version, ids)).version;
}

/**
 * As recordChanges, in one statement with `write` (SQL that may take `RETURNING 1`, and its
 * values), which runs first: answers the new version and the rows `write` wrote.
 */
export async function writeWithChanges(
  client: pg.ClientBase,
  ns: string,
  version: number,
  ids: ChangeIds,
  write?: readonly [sql: string, values: readonly unknown[], rows?: number],
): Promise<{ version: number; written: number }> {
  const kinds = changeKinds(ids);
  const next = version + kinds.length;
  const values = [...(write?.[1] ?? [])];
  const $ = (value: unknown) => `$${values.push(value)}`;
  const [namespace, from, kind, id, to] = [
    $(ns),
    $(version),
    $(kinds),
    $([...ids.memories, ...ids.relations]),
    $(next),
  ];
  const read = await client.query<{ written: number }>(
    reused(
      `WITH ${write ? `w AS (${write[0]} RETURNING 1),` : ''}
     c AS (
       INSERT INTO mnemo_changes (namespace, version, kind, id)
       SELECT ${namespace}::text, ${from}::bigint + x.ord, x.kind, x.id
       FROM unnest(${kind}::text[], ${id}::text[]) WITH ORDINALITY AS x(kind, id, ord)),
     u AS (UPDATE mnemo_namespaces SET version = ${to} WHERE namespace = ${namespace})
     SELECT ${write ? '(SELECT count(*) FROM w)::int' : '0'} AS written,
       ${notifySql(`${namespace}::text`, `${to}::bigint`)}`,
      values,
    ),
  );
  return { version: next, written: Number(read.rows[0]?.written ?? 0) };
}

/**
 * One memory written as one statement, committed on its own: under namespace `ns`'s lock, taken
 * only if free (NOWAIT), and only if the namespace is still at version `held` (so a plan made
 * from the records held is a plan made from the latest): the row, its change row, the version
 * moved on and the notification. No round trip of the client's happens under the lock.
 */
const ONE_MEMORY_SQL = (() => {
  const $ = (i: number) => `$${i + 1}`;
  const ns = $(MEMORY_COLUMNS.length);
  const held = `${$(MEMORY_COLUMNS.length + 1)}::bigint`;
  const values = MEMORY_COLUMNS.map((c, i) => `${$(i)}::${MEMORY_TYPES[c]}`).join(', ');
  const updates = MEMORY_COLUMNS.filter((c) => c !== 'id')
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(', ');
  return `WITH cur AS (
     SELECT version FROM mnemo_namespaces WHERE namespace = ${ns} FOR UPDATE NOWAIT),
   w AS (
     INSERT INTO mnemo_memories (${MEMORY_COLUMNS.join(', ')})
     SELECT ${values} FROM cur WHERE cur.version = ${held}
     ON CONFLICT (id) DO UPDATE SET ${updates} WHERE mnemo_memories.namespace = EXCLUDED.namespace
     RETURNING id),
   c AS (
     INSERT INTO mnemo_changes (namespace, version, kind, id)
     SELECT ${ns}, ${held} + 1, 'memory', w.id FROM w),
   u AS (
     UPDATE mnemo_namespaces SET version = ${held} + 1
     WHERE namespace = ${ns} AND EXISTS (SELECT 1 FROM w))
   SELECT (SELECT version FROM cur) AS version, (SELECT count(*) FROM w)::int AS written,
     (SELECT ${notifySql(`${ns}::text`, `${held} + 1`)} FROM w) AS notified`;
})();

/**
 * What writeOneMemory did: `written` (committed, the namespace now at `held` + 1), `moved` (the
 * namespace is not at `held`, or not there at all: nothing written), `crossing` (the id is
 * another namespace's: nothing written), `busy` (another write holds the lock: nothing written).
 */
export type OneMemoryWrite = 'written' | 'moved' | 'crossing' | 'busy';

/** Writes `record` into namespace `ns` at version `held` in one statement, outside a transaction. */
export async function writeOneMemory(
  client: pg.ClientBase,
  ns: string,
  held: number,
  record: MemoryRecord,
): Promise<OneMemoryWrite> {
  let row: { version: number | null; written: number } | undefined;
  try {
    const read = await client.query<{ version: number | null; written: number }>(
      reused(ONE_MEMORY_SQL, [...memoryValues(record, ns), ns, held]),
    );
    row = read.rows[0];
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') return 'busy';
    throw error;
  }
  if (row?.written === 1) return 'written';
  return row?.version === held ? 'crossing' : 'moved';
}

const changeKinds = (ids: ChangeIds) => [
  ...ids.memories.map(() => 'memory'),
  ...ids.relations.map(() => 'relation'),
];

/**
 * Drops the changes older than `keepSeconds` (one replica at a time, in a transaction of its own:
 * never fails a write, never takes a namespace's lock).
 */
export async function pruneChanges(pool: pg.Pool, keepSeconds: number, logger: Logger) {
  const client = await pool.connect().catch(() => undefined);
  if (!client) return;
  try {
    await client.query('BEGIN');
    const got = await client.query<{ got: boolean }>(
      'SELECT pg_try_advisory_xact_lock($1) AS got',
      [LOCKS.prune],
    );
    if (got.rows[0]?.got) {
      await client.query(
        'DELETE FROM mnemo_changes WHERE at < clock_timestamp() - make_interval(secs => $1)',
        [keepSeconds],
      );
    }
    await client.query('COMMIT');
    client.release();
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    client.release(error as Error);
    logger.warn({ err: (error as Error).message }, 'cannot prune the old changes');
  }
}
