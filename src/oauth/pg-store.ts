// The OAuth store on PostgreSQL: the table mnemo_oauth (migration 2 of
// src/storage/postgres/schema.ts), shared by every replica, so a grant made on one works on all.
import type pg from 'pg';
import { createPool } from '../storage/postgres/database.js';
import type { KeyedEntry, OAuthStore, StoredEntry } from './store.js';

interface Row {
  key: string;
  model: string;
  payload: Record<string, unknown>;
  expires_at: string | number | null;
  grant_key: string | null;
  uid_key: string | null;
  consumed_at: string | number | null;
  used_at: string | number | null;
}

const number = (value: string | number | null) => (value === null ? undefined : Number(value));

function entryOf(row: Row): StoredEntry {
  return {
    model: row.model,
    payload: row.payload,
    expiresAt: number(row.expires_at),
    grantKey: row.grant_key ?? undefined,
    uidKey: row.uid_key ?? undefined,
    consumedAt: number(row.consumed_at),
    usedAt: number(row.used_at),
  };
}

const LIVE = '(expires_at IS NULL OR expires_at > $1)';

export class PgOAuthStore implements OAuthStore {
  private readonly pool: pg.Pool;

  /** The table must exist: the memory's store migrates the schema before anyone is answered. */
  constructor(
    url: string,
    private readonly clock: () => number,
  ) {
    this.pool = createPool(url, { max: 4, applicationName: 'mnemo oauth' });
  }

  async get(key: string): Promise<StoredEntry | undefined> {
    const rows = await this.query(`SELECT * FROM mnemo_oauth WHERE key = $2 AND ${LIVE}`, [key]);
    return rows[0] && entryOf(rows[0]);
  }

  async findByUid(uidKey: string): Promise<StoredEntry | undefined> {
    const rows = await this.query(`SELECT * FROM mnemo_oauth WHERE uid_key = $2 AND ${LIVE}`, [
      uidKey,
    ]);
    return rows[0] && entryOf(rows[0]);
  }

  async put(key: string, entry: StoredEntry): Promise<void> {
    await this.pool.query('DELETE FROM mnemo_oauth WHERE expires_at <= $1', [this.clock()]);
    await this.pool.query(
      `INSERT INTO mnemo_oauth (key, model, payload, expires_at, grant_key, uid_key, consumed_at, used_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (key) DO UPDATE SET model = $2, payload = $3, expires_at = $4, grant_key = $5,
         uid_key = $6, consumed_at = $7, used_at = $8`,
      [
        key,
        entry.model,
        JSON.stringify(entry.payload),
        entry.expiresAt ?? null,
        entry.grantKey ?? null,
        entry.uidKey ?? null,
        entry.consumedAt ?? null,
        entry.usedAt ?? null,
      ],
    );
  }

  async remove(key: string): Promise<void> {
    await this.pool.query('DELETE FROM mnemo_oauth WHERE key = $1', [key]);
  }

  async consume(key: string, at: number): Promise<void> {
    await this.pool.query('UPDATE mnemo_oauth SET consumed_at = $2 WHERE key = $1', [key, at]);
  }

  async removeGrant(grantKey: string): Promise<void> {
    await this.pool.query('DELETE FROM mnemo_oauth WHERE key = $1 OR grant_key = $1', [grantKey]);
  }

  async list(model: string): Promise<KeyedEntry[]> {
    const rows = await this.query(
      `SELECT * FROM mnemo_oauth WHERE model = $2 AND ${LIVE} ORDER BY key`,
      [model],
    );
    return rows.map((row) => ({ key: row.key, entry: entryOf(row) }));
  }

  async count(model: string): Promise<number> {
    const result = await this.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM mnemo_oauth WHERE model = $2 AND ${LIVE}`,
      [this.clock(), model],
    );
    return Number(result.rows[0]?.n ?? 0);
  }

  async touch(key: string, change: { expiresAt?: number; usedAt?: number }): Promise<void> {
    await this.pool.query(
      `UPDATE mnemo_oauth SET
         expires_at = CASE WHEN expires_at IS NULL OR $2::bigint IS NULL THEN expires_at
                           ELSE greatest(expires_at, $2::bigint) END,
         used_at = coalesce($3::bigint, used_at)
       WHERE key = $1`,
      [key, change.expiresAt ?? null, change.usedAt ?? null],
    );
  }

  async claim(key: string, make: () => StoredEntry): Promise<StoredEntry> {
    const known = await this.get(key);
    if (known) return known;
    const entry = make();
    await this.pool.query(
      `INSERT INTO mnemo_oauth (key, model, payload, expires_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (key) DO NOTHING`,
      [key, entry.model, JSON.stringify(entry.payload), entry.expiresAt ?? null],
    );
    return (await this.get(key)) as StoredEntry;
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => {});
  }

  /** Rows of `sql`, whose $1 is now (for LIVE) and the rest `values`. */
  private async query(sql: string, values: unknown[]): Promise<Row[]> {
    return (await this.pool.query<Row>(sql, [this.clock(), ...values])).rows;
  }
}
