// A PostgreSQL schema of its own for each test: MNEMO_TEST_DATABASE_URL (default the local server's
// `test` database), the tables in a fresh schema named after the test, dropped at its end. Where
// no server answers, `pgSchema` skips the test with one line saying why.
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type { TestContext } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { PostgresStore, type PostgresStoreOptions } from '../src/storage/postgres/engine.js';

export const TEST_DATABASE_URL =
  process.env.MNEMO_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Where `npm test`'s runner (scripts/test.ts) already asked the server, before any test process
 * started: `reachable`, or why not. A test process asks again only without it.
 */
export const PROBED_ENV = 'MNEMO_TEST_DATABASE_PROBED';
const REACHABLE = 'reachable';

/** Asks the server now: undefined when it answers, else why not. */
export async function probeDatabase(): Promise<string | undefined> {
  // No server answers "refused" at once; the bound is for a host that drops packets.
  const client = new pg.Client({
    connectionString: TEST_DATABASE_URL,
    connectionTimeoutMillis: 20_000,
  });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return `no PostgreSQL at MNEMO_TEST_DATABASE_URL (${new URL(TEST_DATABASE_URL).host}): ${(error as Error).message}`;
  } finally {
    await client.end().catch(() => {});
  }
}

/** What to hand a test process in `PROBED_ENV` for the answer of `probeDatabase`. */
export const probedValue = (absent: string | undefined) => absent ?? REACHABLE;

let reachable: Promise<string | undefined> | undefined;

/**
 * Undefined when the server answers, else why not (once a process). The runner's answer when it
 * gave one: a probe made inside a test process could time out only because the process's event
 * loop was held by other tests for its whole bound (on a slow 2-core VM three PostgreSQL tests
 * skipped so, each run, with the server up).
 */
export function databaseAbsent(): Promise<string | undefined> {
  const probed = process.env[PROBED_ENV];
  if (probed !== undefined && probed !== '') {
    return Promise.resolve(probed === REACHABLE ? undefined : probed);
  }
  reachable ??= probeDatabase();
  return reachable;
}

/** `url` whose connections use schema `schema` (search_path in the URL's options). */
export function withSchema(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schema}`);
  return parsed.toString();
}

/** A schema of the test database of one test's own, until `drop()`. */
export interface TestDatabase {
  /** The URL whose connections use this schema only (MNEMO_DATABASE_URL). */
  url: string;
  schema: string;
  /** A query on the schema, for asserting what is stored. */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    sql: string,
    values?: unknown[],
  ): Promise<R[]>;
  /** Drops the schema and everything in it; safe to call twice. */
  drop(): Promise<void>;
}

/**
 * A fresh schema in the test database (named at random, so tests running at once never meet).
 * Throws saying why when no server answers: a suite checks `engineAbsent` first and skips.
 */
export async function freshSchema(): Promise<TestDatabase> {
  const absent = await databaseAbsent();
  if (absent) throw new Error(absent);
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.end();
  }
  const url = withSchema(TEST_DATABASE_URL, schema);
  let reader: pg.Pool | undefined;
  let dropped: Promise<void> | undefined;
  return {
    url,
    schema,
    async query(sql, values) {
      if (!reader) {
        reader = new pg.Pool({ connectionString: url, max: 1 });
        reader.on('error', () => {});
      }
      return (await reader.query(sql, values)).rows;
    },
    drop() {
      dropped ??= (async () => {
        await reader?.end().catch(() => {});
        const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
        try {
          await admin.connect();
          await admin.query(`DROP SCHEMA ${schema} CASCADE`);
        } catch {
          // A schema left behind is named t_<random>: it never meets another test.
        } finally {
          await admin.end().catch(() => {});
        }
      })();
      return dropped;
    },
  };
}

/**
 * A fresh schema for test `t`, dropped when it ends; undefined (the test skipped, saying why)
 * when no server answers.
 */
export async function pgSchema(t: TestContext): Promise<TestDatabase | undefined> {
  const absent = await databaseAbsent();
  if (absent) {
    t.skip(absent);
    return undefined;
  }
  const db = await freshSchema();
  t.after(() => db.drop());
  return db;
}

export interface PgProxy {
  /** `url` through the proxy. */
  url: string;
  /** Drops every connection and refuses new ones: the server restarting, as its clients see it. */
  cut(): void;
  /** Lets connections through again. */
  restore(): void;
}

/** A TCP hop to the server of `url` that a test can cut and restore; closed when `t` ends. */
export async function proxyTo(t: TestContext, url: string): Promise<PgProxy> {
  const target = new URL(url);
  const sockets = new Set<net.Socket>();
  let refusing = false;
  const server = net.createServer((client) => {
    if (refusing) return client.destroy();
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  );
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(port);
  return {
    url: proxied.toString(),
    cut() {
      refusing = true;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    restore() {
      refusing = false;
    },
  };
}

/** The tests' epoch second: every store opened by openStore reads this clock. */
export const STORE_T0 = 1_767_225_600;

/** A PostgresStore on `url` for one test (closed after it): silent, clock at STORE_T0. */
export async function openStore(
  t: TestContext,
  url: string,
  options: Partial<PostgresStoreOptions> = {},
): Promise<PostgresStore> {
  const store = await PostgresStore.open({
    url,
    logger: pino({ level: 'silent' }),
    clock: () => STORE_T0,
    reconnectMs: 20,
    ...options,
  });
  t.after(() => store.close());
  return store;
}

/** A plain connection to `url` for one test (ended after it), as another replica would use. */
export async function rawClient(t: TestContext, url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => {});
  await c.connect();
  t.after(() => c.end().catch(() => {}));
  return c;
}

/** Resolves once `view` (a store or one of its namespaces) holds memory `id`: told by its listener. */
export function seen(
  view: Pick<PostgresStore, 'memories' | 'subscribe'>,
  id: string,
): Promise<void> {
  return new Promise<void>((resolve) => {
    if (view.memories.has(id)) return resolve();
    view.subscribe({
      upsert: (record) => {
        if (record.id === id) resolve();
      },
      remove: () => {},
      reset: () => {},
    });
  });
}
