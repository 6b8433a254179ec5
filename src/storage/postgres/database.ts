// The PostgreSQL server behind MNEMO_DATABASE_URL: a pool with mnemo's settings, and what its
// failures mean to the person who set the URL. The password never leaves this file.
import type pg from 'pg';
import { TransientError, UserError } from '../../platform/errors.js';
import { pgDriver } from './driver.js';

/** The setting every message below names. */
export const URL_SETTING = 'MNEMO_DATABASE_URL';

/**
 * The database cannot be used as it is: one line naming MNEMO_DATABASE_URL and the fix, never
 * the password. Reported once by the CLI (exit 1); a call made while the server is away answers
 * it as a tool error.
 */
export class DatabaseError extends UserError {
  override name = 'DatabaseError';
}

/** Numbers as numbers: epoch seconds fit a double, and so does the change sequence. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pgDriver().types.builtins.INT8) return (value: string) => Number(value);
    return pgDriver().types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/** Statement texts a connection prepares once by name and runs again: at most NAMED_MAX. */
const named = new Map<string, string>();
const NAMED_MAX = 64;
/** Longer texts (writes of many rows at once) are planned each time, as one-off statements. */
const NAMED_TEXT_MAX = 8192;

/**
 * `text` and its `values` as a query that each connection parses and plans once, by name, and
 * then only runs: for the statements every write and catch-up sends (PostgreSQL spends about as
 * long planning them as running them). Needs a session of its own, as LISTEN does: a direct
 * connection, or a pooler in session mode.
 */
export function reused(text: string, values: unknown[]): pg.QueryConfig {
  let name = named.get(text);
  if (name === undefined && named.size < NAMED_MAX && text.length <= NAMED_TEXT_MAX) {
    name = `mnemo_${named.size + 1}`;
    named.set(text, name);
  }
  return name === undefined ? { text, values } : { name, text, values };
}

export interface PoolOptions {
  /** Connections at most (10 unless told). */
  max?: number;
  /** Shown in pg_stat_activity: which mnemo and what for. */
  applicationName?: string;
}

/**
 * The URL without its password, for a message or a log line: the password after the user, and
 * any parameter that holds one (`?password=`, `?sslpassword=`: pg takes them from the query too).
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    for (const key of [...parsed.searchParams.keys()]) {
      if (/pass/i.test(key)) parsed.searchParams.set(key, '***');
    }
    return parsed.toString();
  } catch {
    return '(a value that is not a URL)';
  }
}

/** The connection settings of `url`, or a DatabaseError saying what is wrong with it. */
export function clientConfig(url: string, options: PoolOptions = {}): pg.ClientConfig {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DatabaseError(
      `${URL_SETTING} is not a URL: write it as postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`,
      URL_SETTING,
    );
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new DatabaseError(
      `${URL_SETTING} must start with postgres:// (it starts with ${parsed.protocol}//): write it as postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`,
      URL_SETTING,
    );
  }
  return {
    connectionString: url,
    types,
    application_name: options.applicationName ?? 'mnemo',
    connectionTimeoutMillis: 5_000,
    keepAlive: true,
  };
}

/** A pool on `url`. Nothing connects until the first query. */
export function createPool(url: string, options: PoolOptions = {}): pg.Pool {
  const pool = new (pgDriver().Pool)({ ...clientConfig(url, options), max: options.max ?? 10 });
  // A connection the server dropped (a restart): the query on it fails and says so, and the pool
  // makes a new one when needed. Without a listener the event would crash the process.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** SQLSTATE codes and errnos a person can fix, with the fix. */
function explain(error: unknown, where: string): string | undefined {
  const code = (error as { code?: string }).code;
  switch (code) {
    case 'ECONNREFUSED':
      return `nothing answers at ${where}: start PostgreSQL there, or fix the host and port in ${URL_SETTING}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host of ${URL_SETTING} (${where}) is not known: fix the host`;
    case 'ETIMEDOUT':
      return `${where} did not answer in time: check the host, the port and the firewall in front of it`;
    case '28P01':
      return `PostgreSQL refused the password of ${URL_SETTING}: fix the user or the password`;
    case '28000':
      return `PostgreSQL does not let this user in (${(error as Error).message}): fix the user in ${URL_SETTING}, or pg_hba.conf on the server`;
    case '3D000':
      return `${(error as Error).message}: create it (createdb NAME) or fix the database name in ${URL_SETTING}`;
    case '3F000':
      // The search_path names no schema this user may use: missing, or no USAGE on it.
      return `the user of ${URL_SETTING} has no schema to create mnemo's tables in (${(error as Error).message}): create the schema of its search_path, or grant the user USAGE and CREATE on it`;
    case '42501':
      return `the user of ${URL_SETTING} lacks a right mnemo needs (${(error as Error).message}): grant it CREATE and USAGE on the schema, or use the owner`;
    case '57P03':
      return `PostgreSQL at ${where} is starting or shutting down: try again in a moment`;
    default:
      return undefined;
  }
}

/** Whether `error` is the server or the network failing (retry later), not a bad statement. */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: string }).code ?? '';
  if (/^(08|57P0)/.test(code)) return true;
  if (
    // ENOENT: the server's socket file is gone (it is down), as ECONNREFUSED over TCP.
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'EPIPE',
      'ETIMEDOUT',
      'ENOTFOUND',
      'EAI_AGAIN',
      'ENOENT',
    ].includes(code)
  ) {
    return true;
  }
  const message = (error as Error)?.message ?? '';
  return /Connection terminated|connection timeout|Client has encountered a connection error|not queryable/i.test(
    message,
  );
}

/**
 * The DatabaseError to report for `error`, met while talking to `url`: what happened and the fix
 * when the person can fix it, else the server's own message. The password is never in it.
 */
export function databaseError(error: unknown, url: string): DatabaseError {
  if (error instanceof DatabaseError) return error;
  let where = 'the server';
  try {
    const parsed = new URL(url);
    where = `${parsed.hostname || 'the local socket'}:${parsed.port || 5432}`;
  } catch {}
  const reason =
    explain(error, where) ??
    (isConnectionError(error)
      ? `the connection to PostgreSQL at ${where} failed (${(error as Error).message}): check that it runs, and ${URL_SETTING}`
      : // No URL: a statement the server refused reaches the tool caller, who is no reader of it.
        `PostgreSQL answered: ${(error as Error).message}`);
  return new DatabaseError(reason, URL_SETTING, { cause: error });
}

/**
 * What a failed read or write answers: the database away is a TransientError (retry in a moment),
 * and says whether the write may have been made (the connection was lost during COMMIT).
 */
export function storeFailure(error: unknown, committing: boolean, url: string): Error {
  if ((error as { code?: string }).code === '55P03') {
    return new TransientError(
      'another replica has been writing for longer than a write waits (a large gc or import?): nothing was written, retry in a moment',
      URL_SETTING,
      { cause: error },
    );
  }
  if (/timeout exceeded when trying to connect/.test((error as Error)?.message ?? '')) {
    return new TransientError(
      'every connection of this replica to PostgreSQL stayed busy too long: nothing was written, retry in a moment',
      URL_SETTING,
      { cause: error },
    );
  }
  if (!isConnectionError(error)) {
    return error instanceof Error && !(error instanceof pgDriver().DatabaseError)
      ? error
      : databaseError(error, url);
  }
  // The server's own words: the advice for a wrong URL would mislead during an outage.
  const cause = (error as Error).message;
  return new TransientError(
    committing
      ? `the connection to PostgreSQL was lost while the write was committed: it may have been made. Search for it before you write it again (${cause})`
      : `PostgreSQL cannot be reached, nothing was written: retry in a moment (${cause})`,
    URL_SETTING,
    { cause: error },
  );
}

/** `work` on a connection of `pool`'s, back in the pool after it (dropped if it broke). */
export async function withClient<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    const out = await work(client);
    client.release();
    return out;
  } catch (error) {
    client.release(isConnectionError(error) ? (error as Error) : undefined);
    throw error;
  }
}
