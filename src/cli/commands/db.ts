import type pg from 'pg';
import {
  createPool,
  DatabaseError,
  databaseError,
  redactUrl,
  URL_SETTING,
} from '../../storage/postgres/database.js';
import { migrate, type SchemaStatus, schemaStatus } from '../../storage/postgres/schema.js';
import { type CommandContext, UsageError } from '../command.js';
import { json } from '../format.js';

/**
 * `error` with its message naming `flag`, where the URL came from, rather than
 * MNEMO_DATABASE_URL (as a setting given by a flag is named by the flag); other errors as they
 * are.
 */
export function namingFlag(error: unknown, flag: string): unknown {
  if (!(error instanceof DatabaseError) || flag === URL_SETTING) return error;
  return new DatabaseError(error.message.replaceAll(URL_SETTING, flag), flag, { cause: error });
}

/** `mnemo db migrate` and `mnemo db status`: mnemo's schema in the database of MNEMO_DATABASE_URL. */
export async function runDb({ config, args, flags, out }: CommandContext): Promise<number> {
  const [sub, ...rest] = args;
  if ((sub !== 'migrate' && sub !== 'status') || rest.length > 0) {
    throw new UsageError('db takes one subcommand: mnemo db migrate, or mnemo db status');
  }
  const url = config.databaseUrl;
  if (url === undefined) {
    throw new UsageError(
      `db ${sub} needs the database: set ${URL_SETTING} (e.g. postgres://mnemo@127.0.0.1:5432/mnemo) or give --database-url`,
    );
  }
  const flag = flags['database-url'] !== undefined ? '--database-url' : URL_SETTING;
  let pool: pg.Pool;
  try {
    pool = createPool(url, { max: 1, applicationName: `mnemo db ${sub}` });
  } catch (error) {
    throw namingFlag(error, flag);
  }
  const database = redactUrl(url);
  try {
    if (sub === 'status') {
      const status = await readStatus(pool, url);
      out(flags.json ? json({ database, ...status }) : statusText(database, status));
      return 0;
    }
    const applied = await migrate(pool, url);
    const status = await readStatus(pool, url);
    const named = status.applied.filter((m) => applied.includes(m.version));
    if (flags.json) {
      out(
        json({
          database,
          schema: status.schema,
          version: status.version,
          latest: status.latest,
          applied: named.map(({ version, name }) => ({ version, name })),
        }),
      );
      return 0;
    }
    for (const m of named) out(`Applied migration ${m.version}: ${m.name}.`);
    out(
      applied.length > 0
        ? `Schema ${status.schema} of ${database} is at version ${status.version}.`
        : `Schema ${status.schema} of ${database} is up to date (version ${status.version}): nothing to apply.`,
    );
    return 0;
  } catch (error) {
    throw namingFlag(error, flag);
  } finally {
    await pool.end().catch(() => {});
  }
}

async function readStatus(pool: pg.Pool, url: string): Promise<SchemaStatus> {
  try {
    return await schemaStatus(pool);
  } catch (error) {
    throw databaseError(error, url);
  }
}

function statusText(database: string, s: SchemaStatus): string {
  const state =
    s.version > s.latest
      ? `newer than this mnemo knows: upgrade mnemo`
      : s.pending.length === 0
        ? 'up to date'
        : `${s.pending.length} to apply: run mnemo db migrate`;
  const pending =
    s.pending.length === 0
      ? ['pending   none']
      : s.pending.map((m, i) => `${i === 0 ? 'pending ' : '        '}  ${m.version}  ${m.name}`);
  return [
    `database  ${database}`,
    `schema    ${s.schema}`,
    `version   ${s.version} of ${s.latest}, ${state}`,
    ...pending,
  ].join('\n');
}
