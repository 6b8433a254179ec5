// `mnemo migrate --to postgres://...`: a data dir copied into the database, in transactions of a
// batch each that the replicas hear of (mnemo_changes, NOTIFY), as every mnemo writer does.
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { DEFAULT_NAMESPACE } from '../engine.js';
import { StoreError } from '../errors.js';
import { readAllLines } from '../jsonl/jsonl-file.js';
import { FILES, JsonlStore } from '../jsonl/store.js';
import { lineNamespace } from '../namespace-view.js';
import { beginInNamespace, recordChanges } from '../postgres/namespace-feed.js';
import {
  MEMORY_COLUMNS,
  memoryValues,
  RELATION_COLUMNS,
  relationValues,
  upsertSql,
} from '../postgres/rows.js';
import { migrate, schemaStatus } from '../postgres/schema.js';
import { RecordError, storedShape, toMemoryRecord } from '../records.js';
import {
  BATCH,
  byName,
  type CopyOptions,
  type CopyResult,
  chunks,
  DATA_FILES,
  epochSeconds,
  moved,
  type NamespaceCopy,
  readVectors,
  reportable,
  type VectorLine,
  zero,
} from './copy.js';

/**
 * Copies every namespace of the data dir into the database of `pool`, applying the schema's
 * migrations first. A memory or relation the database holds in another namespace is refused up
 * front, naming it: records never move between namespaces.
 */
export async function copyDirToDatabase(options: CopyOptions): Promise<CopyResult> {
  const { dataDir, pool, url } = options;
  const size = options.batchSize ?? BATCH;
  checkSourceDir(dataDir);
  const migrated = await migrate(pool, url);
  const store = await JsonlStore.open({
    dataDir,
    logger: options.logger,
    clock: options.clock,
  });
  try {
    const into = (ns: string) =>
      ns === DEFAULT_NAMESPACE && options.namespace ? options.namespace : ns;
    const unreadable: Record<string, number> = {};
    const forgotten = readForgotten(dataDir, unreadable);
    const vectors = readVectors(dataDir, unreadable);
    const names = byName([...store.live.namespaces(), ...forgotten.keys()]);
    const { schema } = await schemaStatus(pool);
    const memoryOwners = new Map<string, string>();
    const relationOwners = new Map<string, string>();
    for (const ns of names) {
      const view = store.namespace(ns);
      for (const id of view.memories.keys()) memoryOwners.set(id, into(ns));
      for (const id of view.relations.keys()) relationOwners.set(id, into(ns));
    }
    await refuseMoves(pool, 'mnemo_memories', 'memory', memoryOwners);
    await refuseMoves(pool, 'mnemo_relations', 'relation', relationOwners);

    const namespaces: NamespaceCopy[] = [];
    for (const ns of names) {
      const view = store.namespace(ns);
      const target = into(ns);
      const copied = zero();
      const written = zero();
      const memories = [...view.memories.values()];
      copied.memories = memories.length;
      for (const batch of chunks(memories, size)) {
        written.memories += await upsertRecords(
          pool,
          'mnemo_memories',
          MEMORY_COLUMNS,
          batch.map((r) => memoryValues(r, target)),
          target,
          'memory',
        );
      }
      const relations = [...view.relations.values()];
      copied.relations = relations.length;
      for (const batch of chunks(relations, size)) {
        written.relations += await upsertRecords(
          pool,
          'mnemo_relations',
          RELATION_COLUMNS,
          batch.map((r) => relationValues(r, target)),
          target,
          'relation',
        );
      }
      const copies = forgotten.get(ns) ?? [];
      copied.forgotten = copies.length;
      for (const batch of chunks(copies, size)) {
        written.forgotten += await insertForgotten(pool, target, batch);
      }
      const ownVectors = memories.flatMap((m) => vectors.get(m.id) ?? []);
      copied.vectors = ownVectors.length;
      for (const batch of chunks(ownVectors, size)) {
        written.vectors += await upsertVectors(pool, batch);
      }
      namespaces.push({ namespace: target, from: ns, copied, written });
    }
    return { schema, migrated, namespaces, unreadable };
  } catch (error) {
    throw reportable(error, url);
  } finally {
    await store.close();
  }
}

/** A data dir to copy from: there, a folder, with mnemo's files in it. */
function checkSourceDir(dir: string): void {
  const stat = fs.statSync(dir, { throwIfNoEntry: false });
  if (!stat) {
    throw new StoreError(
      `there is no data dir at ${dir}: give the folder that holds memories.jsonl`,
    );
  }
  if (!stat.isDirectory() || !DATA_FILES.some((f) => fs.existsSync(path.join(dir, f)))) {
    throw new StoreError(
      `${dir} is not a mnemo data dir (it holds no memories.jsonl): give the folder that does`,
    );
  }
}

/** A forgotten copy of a memory, as the database keeps it. */
interface ForgottenCopy {
  id: string;
  forgotten_at: number;
  record: unknown;
}

/**
 * The forgotten copies of the data dir, by namespace, in the order they were written; a copy
 * there twice (same namespace, id and time) once, at its last place.
 */
function readForgotten(
  dataDir: string,
  unreadable: Record<string, number>,
): Map<string, ForgottenCopy[]> {
  const { values, bad } = readAllLines(path.join(dataDir, FILES.forgotten));
  let skipped = bad.length;
  const byKey = new Map<string, { ns: string; copy: ForgottenCopy }>();
  for (const line of values) {
    try {
      if (typeof line !== 'object' || line === null) throw new RecordError('not a JSON object');
      const ns = lineNamespace(line);
      const { forgotten_at: at, ...fields } = line as Record<string, unknown>;
      const record = toMemoryRecord(fields);
      const copy = { id: record.id, forgotten_at: epochSeconds(at), record: storedShape(record) };
      const key = JSON.stringify([ns, copy.id, copy.forgotten_at]);
      byKey.delete(key);
      byKey.set(key, { ns, copy });
    } catch (error) {
      if (!(error instanceof RecordError)) throw error;
      skipped++;
    }
  }
  if (skipped > 0) unreadable[FILES.forgotten] = skipped;
  const out = new Map<string, ForgottenCopy[]>();
  for (const { ns, copy } of byKey.values()) {
    const list = out.get(ns) ?? [];
    list.push(copy);
    out.set(ns, list);
  }
  return out;
}

/** Refuses the copy when the database holds one of `owners` (id → namespace) in another one. */
async function refuseMoves(
  pool: pg.Pool,
  table: 'mnemo_memories' | 'mnemo_relations',
  what: string,
  owners: Map<string, string>,
): Promise<void> {
  for (const ids of chunks([...owners.keys()], 10_000)) {
    const { rows } = await pool.query<{ id: string; namespace: string }>(
      `SELECT id, namespace FROM ${table} WHERE id = ANY($1::text[])`,
      [ids],
    );
    for (const row of rows) {
      const here = owners.get(row.id) as string;
      if (row.namespace !== here) {
        throw moved(
          what,
          row.id,
          { ns: row.namespace, by: 'the database' },
          here,
          'nothing was copied',
        );
      }
    }
  }
}

/**
 * Runs `work` in one transaction holding namespace `ns`'s write lock (none for the vectors,
 * which are in no namespace's feed), so its rows and its changes come in order for the replicas;
 * `work` is told the namespace's version.
 */
async function inWriteTransaction<T>(
  pool: pg.Pool,
  ns: string | undefined,
  work: (client: pg.PoolClient, version: number) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    const version =
      ns === undefined
        ? await client.query('BEGIN').then(() => 0)
        : await beginInNamespace(client, ns, 60_000);
    const result = await work(client, version);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    broken = await client.query('ROLLBACK').then(
      () => false,
      () => true,
    );
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * Upserts one batch of memories or relations of namespace `ns` (`rows`: their values in
 * `columns` order), writing only those the table does not hold as they are; answers how many.
 */
async function upsertRecords(
  pool: pg.Pool,
  table: 'mnemo_memories' | 'mnemo_relations',
  columns: readonly string[],
  rows: unknown[][],
  ns: string,
  kind: 'memory' | 'relation',
): Promise<number> {
  return inWriteTransaction(pool, ns, async (client, version) => {
    const ids = rows.map((r) => r[0] as string);
    // Checked up front already; again under the lock, for a writer that came in between.
    const { rows: elsewhere } = await client.query<{ id: string; namespace: string }>(
      `SELECT id, namespace FROM ${table} WHERE id = ANY($1::text[]) AND namespace <> $2 LIMIT 1`,
      [ids, ns],
    );
    const other = elsewhere[0];
    if (other) {
      throw moved(
        kind,
        other.id,
        { ns: other.namespace, by: 'the database' },
        ns,
        'the copy stopped there',
      );
    }
    const fields = columns.filter((c) => c !== 'id');
    const { rows: written } = await client.query<{ id: string }>(
      `${upsertSql(table, columns, rows.length)}
       WHERE (${fields.map((c) => `${table}.${c}`).join(', ')})
         IS DISTINCT FROM (${fields.map((c) => `EXCLUDED.${c}`).join(', ')})
       RETURNING id`,
      rows.flat(),
    );
    const changed = written.map((r) => r.id);
    await recordChanges(client, ns, version, {
      memories: kind === 'memory' ? changed : [],
      relations: kind === 'relation' ? changed : [],
    });
    return written.length;
  });
}

/** Adds the forgotten copies the database lacks (same namespace, id and time); answers how many. */
async function insertForgotten(
  pool: pg.Pool,
  ns: string,
  copies: ForgottenCopy[],
): Promise<number> {
  return inWriteTransaction(pool, ns, async (client) => {
    const { rowCount } = await client.query(
      `INSERT INTO mnemo_forgotten (namespace, id, forgotten_at, record)
       SELECT $1::text, x.line->>'id', (x.line->>'forgotten_at')::bigint, x.line->'record'
       FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS x(line, n)
       WHERE NOT EXISTS (
         SELECT 1 FROM mnemo_forgotten f
         WHERE f.namespace = $1::text AND f.id = x.line->>'id'
           AND f.forgotten_at = (x.line->>'forgotten_at')::bigint
       )
       ORDER BY x.n`,
      [ns, JSON.stringify(copies)],
    );
    return rowCount ?? 0;
  });
}

/** Upserts vectors by memory id, writing only those that differ; answers how many. */
async function upsertVectors(pool: pg.Pool, lines: VectorLine[]): Promise<number> {
  return inWriteTransaction(pool, undefined, async (client) => {
    const { rowCount } = await client.query(
      `INSERT INTO mnemo_vectors (memory_id, model, content_hash, scale, vector)
       SELECT x->>'id', x->>'model', x->>'hash', (x->>'s')::real, decode(x->>'v', 'base64')
       FROM jsonb_array_elements($1::jsonb) AS x
       ON CONFLICT (memory_id) DO UPDATE SET
         model = EXCLUDED.model, content_hash = EXCLUDED.content_hash,
         scale = EXCLUDED.scale, vector = EXCLUDED.vector
       WHERE (mnemo_vectors.model, mnemo_vectors.content_hash, mnemo_vectors.scale, mnemo_vectors.vector)
         IS DISTINCT FROM (EXCLUDED.model, EXCLUDED.content_hash, EXCLUDED.scale, EXCLUDED.vector)`,
      [JSON.stringify(lines)],
    );
    return rowCount ?? 0;
  });
}
