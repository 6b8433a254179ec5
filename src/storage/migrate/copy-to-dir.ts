// `mnemo migrate --from postgres://...`: the database copied into a data dir, read in one
// snapshot, written through the data dir's own transactions.
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type pg from 'pg';
import { DEFAULT_NAMESPACE } from '../engine.js';
import { StoreError } from '../errors.js';
import { JsonlFile, readAllLines } from '../jsonl/jsonl-file.js';
import { FILES, JsonlStore } from '../jsonl/store.js';
import { VECTORS_FILE } from '../jsonl/vectors.js';
import { lineNamespace, withNamespace } from '../namespace-view.js';
import { databaseError, redactUrl } from '../postgres/database.js';
import {
  MEMORY_COLUMNS,
  memoryFromRow,
  RELATION_COLUMNS,
  relationFromRow,
} from '../postgres/rows.js';
import { SCHEMA_VERSION, schemaStatus } from '../postgres/schema.js';
import { RecordError, storedShape, toMemoryRecord } from '../records.js';
import {
  BATCH,
  CopyError,
  type CopyOptions,
  type CopyResult,
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
 * Copies the database of `pool` into a data dir (made if missing): every namespace, or the one
 * of `namespace` into the default one. Read in one snapshot, so a copy taken while replicas
 * write is the database at one moment.
 */
export async function copyDatabaseToDir(options: CopyOptions): Promise<CopyResult> {
  const { dataDir, pool, url } = options;
  const size = options.batchSize ?? BATCH;
  checkTargetDir(dataDir);
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw databaseError(error, url);
  }
  let store: JsonlStore | undefined;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const status = await schemaStatus(client);
    const where = `schema ${status.schema} of ${redactUrl(url)}`;
    if (status.version === 0) {
      throw new CopyError(
        `${where} holds no mnemo tables: nothing to copy. Check the database and the search_path of the URL`,
      );
    }
    if (status.version > SCHEMA_VERSION) {
      throw new CopyError(
        `${where} is at mnemo's schema version ${status.version}, newer than this mnemo knows (${SCHEMA_VERSION}): upgrade mnemo`,
      );
    }
    if (status.pending.length > 0) {
      throw new CopyError(
        `${where} is at schema version ${status.version} of ${SCHEMA_VERSION}: run mnemo db migrate --database-url URL on it first`,
      );
    }
    const { rows: present } = await client.query<{ namespace: string }>(
      `SELECT namespace FROM mnemo_memories UNION SELECT namespace FROM mnemo_relations
       UNION SELECT namespace FROM mnemo_forgotten ORDER BY 1`,
    );
    let names = present.map((r) => r.namespace);
    if (options.namespace !== undefined) {
      if (!names.includes(options.namespace)) {
        throw new CopyError(
          `${where} has no namespace "${options.namespace}"` +
            (names.length > 0 ? ` (it has ${names.join(', ')})` : ' (it is empty)') +
            ': pick one it has with --namespace, or leave --namespace out to copy them all',
        );
      }
      names = [options.namespace];
    }
    const into = (ns: string) => (options.namespace !== undefined ? DEFAULT_NAMESPACE : ns);

    const opened = await JsonlStore.open({ dataDir, logger: options.logger, clock: options.clock });
    store = opened;
    await refuseMovesIntoDir(client, opened, names, into);

    const forgottenFile = new JsonlFile(path.join(dataDir, FILES.forgotten));
    const vectorsFile = new JsonlFile(path.join(dataDir, VECTORS_FILE));
    const forgottenThere = forgottenKeys(dataDir);
    const vectorsThere = readVectors(dataDir, {});
    const namespaces: NamespaceCopy[] = [];
    try {
      for (const ns of names) {
        const target = into(ns);
        const view = opened.namespace(target);
        const copied = zero();
        const written = zero();
        for await (const rows of pages(
          client,
          `SELECT ${MEMORY_COLUMNS.join(', ')} FROM mnemo_memories
           WHERE namespace = $1 AND id > $2 ORDER BY id LIMIT $3`,
          ns,
          '',
          (r) => r.id as string,
          size,
        )) {
          const records = rows.map(memoryFromRow);
          copied.memories += records.length;
          written.memories += await view.transact(() => {
            const changed = records.filter((r) => !isDeepStrictEqual(view.memories.get(r.id), r));
            return { result: changed.length, memories: changed };
          });
        }
        for await (const rows of pages(
          client,
          `SELECT ${RELATION_COLUMNS.join(', ')} FROM mnemo_relations
           WHERE namespace = $1 AND id > $2 ORDER BY id LIMIT $3`,
          ns,
          '',
          (r) => r.id as string,
          size,
        )) {
          const records = rows.map(relationFromRow);
          copied.relations += records.length;
          written.relations += await view.transact(() => {
            const changed = records.filter((r) => !isDeepStrictEqual(view.relations.get(r.id), r));
            return { result: changed.length, relations: changed };
          });
        }
        for await (const rows of pages(
          client,
          `SELECT seq, id, forgotten_at, record FROM mnemo_forgotten
           WHERE namespace = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
          ns,
          0,
          (r) => r.seq as number,
          size,
        )) {
          copied.forgotten += rows.length;
          const lines: unknown[] = [];
          for (const row of rows) {
            const key = JSON.stringify([target, row.id, row.forgotten_at]);
            if (forgottenThere.has(key)) continue;
            forgottenThere.add(key);
            const record = toMemoryRecord(row.record);
            // As the store writes a forgotten copy: its stored shape, the time, the namespace.
            lines.push(
              withNamespace(storedShape({ ...record, forgotten_at: row.forgotten_at }), target),
            );
          }
          if (lines.length === 0) continue;
          // Appended under the data dir's lock, which the plan of a transaction runs under.
          await view.transact(() => {
            forgottenFile.append(lines);
            return { result: null };
          });
          written.forgotten += lines.length;
        }
        for await (const rows of pages(
          client,
          `SELECT v.memory_id, v.model, v.content_hash, v.scale, v.vector
           FROM mnemo_vectors v JOIN mnemo_memories m ON m.id = v.memory_id
           WHERE m.namespace = $1 AND v.memory_id > $2 ORDER BY v.memory_id LIMIT $3`,
          ns,
          '',
          (r) => r.memory_id as string,
          size,
        )) {
          copied.vectors += rows.length;
          const lines: VectorLine[] = [];
          for (const row of rows) {
            const line: VectorLine = {
              id: row.memory_id as string,
              model: row.model as string,
              hash: row.content_hash as string,
              v: (row.vector as Buffer).toString('base64'),
              s: row.scale as number,
            };
            if (isDeepStrictEqual(vectorsThere.get(line.id), line)) continue;
            vectorsThere.set(line.id, line);
            lines.push(line);
          }
          // Derived data, appended without the lock as the semantic index does.
          vectorsFile.append(lines);
          written.vectors += lines.length;
        }
        namespaces.push({ namespace: target, from: ns, copied, written });
      }
    } finally {
      forgottenFile.close();
      vectorsFile.close();
    }
    await client.query('COMMIT');
    return { schema: status.schema, migrated: [], namespaces, unreadable: {} };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw reportable(error, url);
  } finally {
    client.release();
    await store?.close();
  }
}

/**
 * A data dir to copy into: a new or empty folder, or a data dir already. One that holds other
 * things is refused: the copy would mix mnemo's files into it.
 */
function checkTargetDir(dir: string): void {
  const stat = fs.statSync(dir, { throwIfNoEntry: false });
  if (!stat) return;
  if (!stat.isDirectory()) {
    throw new StoreError(`${dir} is a file: give a new folder, or a mnemo data dir, to copy into`);
  }
  const entries = fs.readdirSync(dir);
  if (entries.length > 0 && !DATA_FILES.some((f) => entries.includes(f))) {
    throw new StoreError(
      `${dir} holds files and is not a mnemo data dir (no memories.jsonl): give a new or empty folder, or a data dir, to copy into`,
    );
  }
}

/**
 * The rows of `sql` a page at a time, by key: `sql` takes the namespace as $1, the last key seen
 * as $2 (`first` to begin) and the page size as $3.
 */
async function* pages(
  client: pg.PoolClient,
  sql: string,
  ns: string,
  first: string | number,
  key: (row: Record<string, unknown>) => string | number,
  size: number,
): AsyncGenerator<Record<string, unknown>[]> {
  let after = first;
  for (;;) {
    const { rows } = await client.query<Record<string, unknown>>(sql, [ns, after, size]);
    if (rows.length > 0) yield rows;
    const last = rows[rows.length - 1];
    if (rows.length < size || !last) return;
    after = key(last);
  }
}

/**
 * Refuses the copy when the data dir holds a memory or relation of the database in another
 * namespace than the one it would go to.
 */
async function refuseMovesIntoDir(
  client: pg.PoolClient,
  store: JsonlStore,
  names: string[],
  into: (ns: string) => string,
): Promise<void> {
  for (const [table, what, owner, count] of [
    [
      'mnemo_memories',
      'memory',
      (id: string) => store.live.namespaceOfMemory(id),
      store.live.memoryCount,
    ],
    [
      'mnemo_relations',
      'relation',
      (id: string) => store.live.namespaceOfRelation(id),
      store.live.relationCount,
    ],
  ] as const) {
    if (count === 0) continue;
    const { rows } = await client.query<{ id: string; namespace: string }>(
      `SELECT id, namespace FROM ${table} WHERE namespace = ANY($1::text[])`,
      [names],
    );
    for (const row of rows) {
      const there = owner(row.id);
      if (there !== undefined && there !== into(row.namespace)) {
        throw moved(
          what,
          row.id,
          { ns: there, by: 'the data dir' },
          into(row.namespace),
          'nothing was copied',
        );
      }
    }
  }
}

/** The forgotten copies a data dir holds already, as [namespace, id, forgotten_at] keys. */
function forgottenKeys(dataDir: string): Set<string> {
  const keys = new Set<string>();
  for (const line of readAllLines(path.join(dataDir, FILES.forgotten)).values) {
    if (typeof line !== 'object' || line === null) continue;
    try {
      const { id, forgotten_at: at } = line as { id?: unknown; forgotten_at?: unknown };
      keys.add(JSON.stringify([lineNamespace(line), id, epochSeconds(at)]));
    } catch (error) {
      if (!(error instanceof RecordError)) throw error;
    }
  }
  return keys;
}
