// A mutation of one namespace as SQL: the rows it writes, forgets and deletes, in statements of
// at most BATCH rows, and what the live records become once they are committed.
import type pg from 'pg';
import type { Mutation } from '../engine.js';
import { crossing } from '../errors.js';
import type { LiveRecords } from '../live-records.js';
import type { MemoryRecord } from '../records.js';
import { storedShape } from '../records.js';
import { writeWithChanges } from './namespace-feed.js';
import {
  MEMORY_COLUMNS,
  memoryValues,
  RELATION_COLUMNS,
  relationValues,
  upsertSql,
} from './rows.js';

/** Rows a statement carries at most (PostgreSQL takes 65,535 parameters). */
const BATCH = 500;

/** SQL, its values, and the rows it must write (else the write crosses namespaces). */
export type Statement = [sql: string, values: unknown[], rows?: number];

export interface WriteStatements {
  statements: Statement[];
  /** The ids of the memories and relations written or deleted: one change row each. */
  memories: string[];
  relations: string[];
  /** Applies the mutation to the live records: after the commit, never before. */
  apply(): void;
}

/**
 * The statements of mutation `m` in namespace `ns`, written at `at`, and what to apply to `live`
 * once committed. The engine checked first that no record of it is another namespace's (owned).
 */
export function writeStatements(
  live: LiveRecords,
  ns: string,
  m: Mutation<unknown>,
  at: number,
): WriteStatements {
  const statements: Statement[] = [];
  for (const part of chunks(m.forgotten ?? [], BATCH)) {
    const values: unknown[] = [];
    const rows = part.map((r, i) => {
      values.push(ns, r.id, at, JSON.stringify(storedShape(r)));
      return `($${i * 4 + 1}, $${i * 4 + 2}, $${i * 4 + 3}, $${i * 4 + 4})`;
    });
    statements.push([
      `INSERT INTO mnemo_forgotten (namespace, id, forgotten_at, record) VALUES ${rows.join(', ')}`,
      values,
    ]);
  }
  for (const part of chunks(m.memories ?? [], BATCH)) {
    // The namespace held may not be all of them: the database refuses an id of another one.
    statements.push([
      upsertSql('mnemo_memories', MEMORY_COLUMNS, part.length, true),
      part.flatMap((r) => memoryValues(r, ns)),
      part.length,
    ]);
  }
  // A delete names an id only: one of another namespace is never deleted from here.
  const deletes = (m.deletes ?? []).filter((id) => live.namespaceOfMemory(id) === ns);
  if (deletes.length > 0) {
    statements.push([
      'DELETE FROM mnemo_memories WHERE namespace = $1 AND id = ANY($2)',
      [ns, deletes],
    ]);
  }
  for (const part of chunks(m.relations ?? [], BATCH)) {
    statements.push([
      upsertSql('mnemo_relations', RELATION_COLUMNS, part.length, true),
      part.flatMap((r) => relationValues(r, ns)),
      part.length,
    ]);
  }
  const relationDeletes = (m.relationDeletes ?? []).filter(
    (id) => live.namespaceOfRelation(id) === ns,
  );
  if (relationDeletes.length > 0) {
    statements.push([
      'DELETE FROM mnemo_relations WHERE namespace = $1 AND id = ANY($2)',
      [ns, relationDeletes],
    ]);
  }
  return {
    statements,
    memories: [...(m.memories ?? []).map((r) => r.id), ...deletes],
    relations: [...(m.relations ?? []).map((r) => r.id), ...relationDeletes],
    apply: () => {
      for (const r of m.memories ?? []) live.putMemory(ns, r);
      for (const id of deletes) live.dropMemory(id);
      for (const r of m.relations ?? []) live.putRelation(ns, r);
      for (const id of relationDeletes) live.dropRelation(id);
    },
  };
}

/**
 * Runs the statements of `changes` in `client`'s transaction under namespace `ns`'s lock at
 * `version`, the last in one statement with their change rows; answers the new version.
 */
export async function writeChanges(
  client: pg.ClientBase,
  ns: string,
  version: number,
  changes: WriteStatements,
): Promise<number> {
  const statements = changes.statements;
  const changed = changes.memories.length + changes.relations.length > 0;
  const last = changed ? statements.at(-1) : undefined;
  for (const [sql, values, rows] of last ? statements.slice(0, -1) : statements) {
    const done = await client.query(sql, values);
    if (rows !== undefined && done.rowCount !== rows) throw crossing(ns);
  }
  if (!changed) return version;
  const done = await writeWithChanges(client, ns, version, changes, last);
  if (last?.[2] !== undefined && done.written !== last[2]) throw crossing(ns);
  return done.version;
}

/** The one memory `m` writes when it writes that and nothing else. */
export function oneMemoryOf(m: Mutation<unknown>): MemoryRecord | undefined {
  const none = (list: readonly unknown[] | undefined) => (list?.length ?? 0) === 0;
  if (m.memories?.length !== 1 || !none(m.forgotten) || !none(m.deletes)) return undefined;
  return none(m.relations) && none(m.relationDeletes) ? m.memories[0] : undefined;
}

/** `items` in runs of at most `size`. */
function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
