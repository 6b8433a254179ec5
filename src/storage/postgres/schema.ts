// The tables of the PostgreSQL engine, as numbered migrations. `migrate` applies those not yet
// applied, each in its own transaction, under an advisory lock: replicas starting together apply
// each one once. The tables live in the connection's schema (search_path: `public` unless the
// URL says `?options=-c search_path=NAME`), all named mnemo_*.
import type pg from 'pg';
import { isNamespace } from '../engine.js';
import { DatabaseError, databaseError, URL_SETTING } from './database.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Append only: a migration once released is never edited, a change is a new one. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'memories, relations, forgotten, vectors and the change sequence',
    sql: `
CREATE TABLE mnemo_memories (
  id                 text PRIMARY KEY,
  namespace          text NOT NULL,
  content            text NOT NULL,
  meta               jsonb NOT NULL,
  entities           jsonb NOT NULL,
  created_at         bigint NOT NULL,
  last_used          bigint NOT NULL,
  use_count          integer NOT NULL,
  strength           double precision NOT NULL,
  status             text NOT NULL,
  promoted_at        bigint,
  promoted_to        text,
  review_priority    double precision NOT NULL,
  review_count       integer NOT NULL,
  last_review_at     bigint,
  cross_domain_count integer NOT NULL,
  other              jsonb
);
CREATE INDEX mnemo_memories_namespace ON mnemo_memories (namespace);

CREATE TABLE mnemo_relations (
  id             text PRIMARY KEY,
  namespace      text NOT NULL,
  from_memory_id text NOT NULL,
  to_memory_id   text NOT NULL,
  relation_type  text NOT NULL,
  strength       double precision NOT NULL,
  created_at     bigint NOT NULL,
  metadata       jsonb NOT NULL,
  other          jsonb
);
CREATE INDEX mnemo_relations_namespace ON mnemo_relations (namespace);

-- Every copy gc or delete_memory removed, for restore_memory: the last one of an id wins.
CREATE TABLE mnemo_forgotten (
  seq          bigserial PRIMARY KEY,
  namespace    text NOT NULL,
  id           text NOT NULL,
  forgotten_at bigint NOT NULL,
  record       jsonb NOT NULL
);
CREATE INDEX mnemo_forgotten_id ON mnemo_forgotten (namespace, id, seq DESC);

-- A memory's embedding, int8-quantised: v[i] * scale, for the text with this hash, by this model.
CREATE TABLE mnemo_vectors (
  memory_id    text PRIMARY KEY,
  model        text NOT NULL,
  content_hash text NOT NULL,
  scale        real NOT NULL,
  vector       bytea NOT NULL
);

-- What each write changed, in commit order (writes take one advisory lock): a replica reads the
-- rows after the last it saw, and LISTENs on mnemo_changes to know when to.
CREATE TABLE mnemo_changes (
  seq       bigserial PRIMARY KEY,
  namespace text NOT NULL,
  kind      text NOT NULL CHECK (kind IN ('memory', 'relation')),
  id        text NOT NULL,
  at        timestamptz NOT NULL DEFAULT now()
);

-- change_floor: the changes up to it were pruned; a replica that saw less reloads everything.
CREATE TABLE mnemo_state (
  key   text PRIMARY KEY,
  value bigint NOT NULL
);
INSERT INTO mnemo_state (key, value) VALUES ('change_floor', 0);
`,
  },
  {
    version: 2,
    name: 'the OAuth server: clients, grants, codes and tokens, keyed by hash',
    sql: `
-- What oidc-provider stores (src/oauth/pg-store.ts), keyed by the SHA-256 of model and id: a code
-- or a token is never here in clear. grant_key ties codes and tokens to their grant.
CREATE TABLE mnemo_oauth (
  key         text PRIMARY KEY,
  model       text NOT NULL,
  payload     jsonb NOT NULL,
  expires_at  bigint,
  grant_key   text,
  uid_key     text,
  consumed_at bigint,
  used_at     bigint
);
CREATE INDEX mnemo_oauth_model ON mnemo_oauth (model);
CREATE INDEX mnemo_oauth_grant ON mnemo_oauth (grant_key);
CREATE INDEX mnemo_oauth_uid ON mnemo_oauth (uid_key);
CREATE INDEX mnemo_oauth_expires ON mnemo_oauth (expires_at);
`,
  },
  {
    version: 3,
    name: 'writes and the change feed per namespace',
    sql: `
-- Not while a writer of an older mnemo is between its change rows and its commit.
SELECT pg_advisory_xact_lock(${0x6d6e656d6f_02});
-- One row a namespace: every write in it locks its row (writes in different namespaces never
-- wait for each other) and moves its version on by the changes it made. A replica holds each
-- namespace it loaded at a version, and reads the changes of that namespace after it.
CREATE TABLE mnemo_namespaces (
  namespace text PRIMARY KEY,
  version   bigint NOT NULL DEFAULT 0
);
ALTER TABLE mnemo_changes ADD COLUMN version bigint;
UPDATE mnemo_changes c SET version = v.version
  FROM (SELECT seq, row_number() OVER (PARTITION BY namespace ORDER BY seq) AS version
        FROM mnemo_changes) v
  WHERE c.seq = v.seq;
ALTER TABLE mnemo_changes ALTER COLUMN version SET NOT NULL;
-- Written under the namespace's lock: within a namespace, later versions are never older.
ALTER TABLE mnemo_changes ALTER COLUMN at SET DEFAULT clock_timestamp();
CREATE UNIQUE INDEX mnemo_changes_version ON mnemo_changes (namespace, version);
CREATE INDEX mnemo_changes_at ON mnemo_changes (at);
-- A namespace is read alone, a page of ids at a time.
CREATE INDEX mnemo_memories_namespace_id ON mnemo_memories (namespace, id);
DROP INDEX mnemo_memories_namespace;
CREATE INDEX mnemo_relations_namespace_id ON mnemo_relations (namespace, id);
DROP INDEX mnemo_relations_namespace;
INSERT INTO mnemo_namespaces (namespace, version)
  SELECT namespace, max(version) FROM mnemo_changes GROUP BY namespace;
INSERT INTO mnemo_namespaces (namespace)
  SELECT namespace FROM mnemo_memories UNION SELECT namespace FROM mnemo_relations
  UNION SELECT namespace FROM mnemo_forgotten
  ON CONFLICT (namespace) DO NOTHING;
`,
  },
];

/**
 * The channel every write notifies once committed. Channels are the database's, not a schema's:
 * the payload names the schema and the namespace too (`<schema>:<namespace>:<version>`), so
 * mnemos in two schemas of one database never take each other's changes for their own.
 */
export const CHANNEL = 'mnemo_changes';

/** SQL that notifies version `version` (an SQL expression) of namespace `ns` (one too). */
export function notifySql(ns: string, version: string): string {
  return `pg_notify('${CHANNEL}', current_schema() || ':' || (${ns}) || ':' || (${version})::text)`;
}

/**
 * The namespace and version a notification of schema `schema` names, or undefined if it is
 * another schema's or not one mnemo sends: any role of the database may notify on the channel,
 * so the payload is data, and only a namespace's name and a version in digits are taken.
 */
export function noticeOf(
  payload: string,
  schema: string,
): { ns: string; version: number } | undefined {
  const last = payload.lastIndexOf(':');
  const middle = last > 0 ? payload.lastIndexOf(':', last - 1) : -1;
  if (middle < 0 || payload.slice(0, middle) !== schema) return undefined;
  const digits = payload.slice(last + 1);
  const version = Number(digits);
  const ns = payload.slice(middle + 1, last);
  return /^\d{1,15}$/.test(digits) && isNamespace(ns) ? { ns, version } : undefined;
}

/** The newest schema this mnemo knows. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/** The advisory lock keys of mnemo (a bigint each, from 'mnemo' in ASCII). */
export const LOCKS = {
  migrate: 0x6d6e656d6f_01,
  /** Every write of schema versions 1 and 2; since 3, a namespace's row in mnemo_namespaces. */
  write: 0x6d6e656d6f_02,
  /** One replica at a time drops the changes older than they are kept. */
  prune: 0x6d6e656d6f_03,
} as const;

const HISTORY = `
CREATE TABLE IF NOT EXISTS mnemo_schema (
  version    integer PRIMARY KEY,
  name       text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

export interface SchemaStatus {
  /** The schema (namespace of tables) the connection uses. */
  schema: string;
  /** The newest migration applied, 0 before any. */
  version: number;
  /** The newest this mnemo knows. */
  latest: number;
  applied: { version: number; name: string; applied_at: string }[];
  pending: { version: number; name: string }[];
}

/** What is applied in the database of `pool`, and what is still to apply. */
export async function schemaStatus(pool: pg.Pool | pg.PoolClient): Promise<SchemaStatus> {
  const current = await pool.query<{ schema: string; exists: boolean }>(
    `SELECT current_schema() AS schema, to_regclass('mnemo_schema') IS NOT NULL AS exists`,
  );
  // None when the search_path names no schema this user may use.
  const schema = current.rows[0]?.schema ?? '(none: the search_path names no schema it may use)';
  const applied = current.rows[0]?.exists
    ? (
        await pool.query<{ version: number; name: string; applied_at: Date }>(
          'SELECT version, name, applied_at FROM mnemo_schema ORDER BY version',
        )
      ).rows.map((r) => ({ ...r, applied_at: r.applied_at.toISOString() }))
    : [];
  const done = new Set(applied.map((r) => r.version));
  const version = applied.reduce((max, r) => Math.max(max, r.version), 0);
  return {
    schema,
    version,
    latest: SCHEMA_VERSION,
    applied,
    pending: MIGRATIONS.filter((m) => !done.has(m.version)).map(({ version, name }) => ({
      version,
      name,
    })),
  };
}

/**
 * Applies the migrations the database lacks, under an advisory lock, each with its history row
 * in one transaction; returns the versions applied now (none when it was up to date). A database
 * newer than this mnemo is refused rather than written with an older idea of its tables.
 */
export async function migrate(pool: pg.Pool, url: string): Promise<number[]> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw databaseError(error, url);
  }
  const applied: number[] = [];
  try {
    // Up to date: nothing to create, so a role with rights on the tables alone can start.
    const before = await schemaStatus(client);
    if (before.version === SCHEMA_VERSION && before.pending.length === 0) return [];
    await client.query('SELECT pg_advisory_lock($1)', [LOCKS.migrate]);
    try {
      await client.query(HISTORY);
      const status = await schemaStatus(client);
      if (status.version > SCHEMA_VERSION) {
        throw new DatabaseError(
          `the database of ${URL_SETTING} has mnemo's schema version ${status.version}, newer than this mnemo knows (${SCHEMA_VERSION}): upgrade mnemo`,
          URL_SETTING,
        );
      }
      for (const migration of MIGRATIONS) {
        if (status.applied.some((r) => r.version === migration.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO mnemo_schema (version, name) VALUES ($1, $2)', [
            migration.version,
            migration.name,
          ]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          throw error;
        }
        applied.push(migration.version);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [LOCKS.migrate]).catch(() => {});
    }
  } catch (error) {
    throw databaseError(error, url);
  } finally {
    client.release();
  }
  return applied;
}
