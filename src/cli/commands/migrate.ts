import path from 'node:path';
import type pg from 'pg';
import { createLogger } from '../../logger.js';
import type { CopyOptions, CopyResult } from '../../storage/migrate/copy.js';
import { copyDirToDatabase } from '../../storage/migrate/copy-to-database.js';
import { copyDatabaseToDir } from '../../storage/migrate/copy-to-dir.js';
import { createPool, redactUrl } from '../../storage/postgres/database.js';
import { type CommandContext, UsageError } from '../command.js';
import { json, table } from '../format.js';
import { clockFor } from '../runtime.js';
import { namingFlag } from './db.js';

/**
 * `mnemo migrate --from A --to B`: copies the memories of a data dir into PostgreSQL, or of
 * PostgreSQL into a data dir. Safe to run again: what the target holds already is not written.
 */
export async function runMigrate({ config, flags, out }: CommandContext): Promise<number> {
  if (flags['data-dir'] !== undefined) {
    throw new UsageError('migrate takes the data dir as --from or --to, not --data-dir');
  }
  const { from, to } = flags;
  if (from === undefined || to === undefined) {
    throw new UsageError(
      'migrate needs --from and --to, a data dir and a postgres:// URL: e.g. mnemo migrate --from ~/.local/share/mnemo --to postgres://mnemo@127.0.0.1:5432/mnemo',
    );
  }
  const fromDatabase = side(from, '--from') === 'database';
  if (fromDatabase === (side(to, '--to') === 'database')) {
    throw new UsageError(
      fromDatabase
        ? '--from and --to are both database URLs: one of them must be a data dir'
        : 'neither --from nor --to is a postgres:// URL: one of them must be',
    );
  }
  const [url, flag] = fromDatabase ? [from, '--from'] : [to, '--to'];
  const dataDir = path.resolve(fromDatabase ? to : from);
  // Only the flag: MNEMO_NAMESPACE, set for the server, must not rename what is copied.
  const namespace = flags.namespace === undefined ? undefined : config.namespace;
  let pool: pg.Pool;
  try {
    pool = createPool(url, { max: 2, applicationName: 'mnemo migrate' });
  } catch (error) {
    throw namingFlag(error, flag);
  }
  const options: CopyOptions = {
    dataDir,
    pool,
    url,
    namespace,
    logger: createLogger(config.logLevel),
    clock: clockFor(config),
  };
  try {
    const result = fromDatabase
      ? await copyDatabaseToDir(options)
      : await copyDirToDatabase(options);
    const [source, target] = fromDatabase ? [redactUrl(url), dataDir] : [dataDir, redactUrl(url)];
    if (flags.json) {
      out(json({ from: source, to: target, ...result }));
      return 0;
    }
    for (const line of summary(result, source, target, fromDatabase)) out(line);
    return 0;
  } catch (error) {
    throw namingFlag(error, flag);
  } finally {
    await pool.end().catch(() => {});
  }
}

/** Which side `value` of `flag` is: a postgres:// URL, or any other text a folder. */
function side(value: string, flag: string): 'database' | 'dir' {
  if (value.trim() === '') {
    throw new UsageError(`${flag} is empty: give a data dir or a postgres:// URL`);
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined) return 'dir';
  if (scheme === 'postgres' || scheme === 'postgresql') return 'database';
  throw new UsageError(
    `${flag} must be a data dir or a postgres:// URL (it starts with ${scheme}://)`,
  );
}

const counted = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function summary(
  result: CopyResult,
  source: string,
  target: string,
  fromDatabase: boolean,
): string[] {
  const lines: string[] = [];
  if (result.migrated.length > 0) {
    lines.push(
      `Applied ${counted(result.migrated.length, 'migration', 'migrations')} (${result.migrated.join(', ')}) to schema ${result.schema} first.`,
    );
  }
  const sourceName = fromDatabase ? 'the database' : 'the data dir';
  if (result.namespaces.length > 0) {
    lines.push(
      table(
        ['NAMESPACE', 'MEMORIES', 'RELATIONS', 'FORGOTTEN', 'VECTORS'],
        result.namespaces.map((n) => [
          n.from === n.namespace ? n.namespace : `${n.namespace} (${n.from} in ${sourceName})`,
          String(n.copied.memories),
          String(n.copied.relations),
          String(n.copied.forgotten),
          String(n.copied.vectors),
        ]),
      ),
    );
  }
  const sum = (
    pick: 'copied' | 'written',
    kind: keyof CopyResult['namespaces'][number]['copied'],
  ) => result.namespaces.reduce((n, ns) => n + ns[pick][kind], 0);
  const copied = {
    memories: sum('copied', 'memories'),
    relations: sum('copied', 'relations'),
    forgotten: sum('copied', 'forgotten'),
    vectors: sum('copied', 'vectors'),
  };
  const total = copied.memories + copied.relations + copied.forgotten + copied.vectors;
  const written =
    sum('written', 'memories') +
    sum('written', 'relations') +
    sum('written', 'forgotten') +
    sum('written', 'vectors');
  const what = [
    counted(copied.memories, 'memory', 'memories'),
    counted(copied.relations, 'relation', 'relations'),
    counted(copied.forgotten, 'forgotten copy', 'forgotten copies'),
    counted(copied.vectors, 'vector', 'vectors'),
  ].join(', ');
  const outcome =
    total === 0
      ? `${sourceName} holds nothing to copy.`
      : written === total
        ? 'all written.'
        : written === 0
          ? 'nothing new, each one was there already.'
          : `${written} written, the others were there already.`;
  lines.push(`Copied ${what} from ${source} to ${target} (schema ${result.schema}): ${outcome}`);
  for (const [file, n] of Object.entries(result.unreadable)) {
    lines.push(`Left out ${counted(n, 'unreadable line', 'unreadable lines')} of ${file}.`);
  }
  return lines;
}
