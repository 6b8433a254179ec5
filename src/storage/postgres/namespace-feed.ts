// The writes of one namespace and their change feed: a write locks its namespace's row in
// mnemo_namespaces (writes in different namespaces never wait for each other), and writes one
// change row a record, numbered on from the namespace's version. A replica holds a namespace at
// a version and reads the changes after it; the versions of a namespace have no gaps, so a
// missing one means the changes it needed were pruned.
import type pg from 'pg';
import type { Logger } from 'pino';
import { isNamespace } from '../engine.js';
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
  const kinds = [...ids.memories.map(() => 'memory'), ...ids.relations.map(() => 'relation')];
  if (kinds.length === 0) return version;
  const next = version + kinds.length;
  await client.query(
    `WITH c AS (
       INSERT INTO mnemo_changes (namespace, version, kind, id)
       SELECT $1::text, $2::bigint + x.ord, x.kind, x.id
       FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS x(kind, id, ord)),
     u AS (UPDATE mnemo_namespaces SET version = $5 WHERE namespace = $1)
     SELECT ${notifySql('$1::text', '$5::bigint')}`,
    [ns, version, kinds, [...ids.memories, ...ids.relations], next],
  );
  return next;
}

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
