// The data dir itself: made (durably) and checked before a store opens, and swept of the temp
// files a compaction cut short left behind.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { isAlive } from '../../platform/dir-lock.js';
import { makeDirs } from '../../platform/durable-file.js';
import { StoreError } from '../errors.js';

/** Makes the data dir (and every missing parent, durably) and checks it can be used. */
export function prepareDataDir(dir: string): void {
  try {
    makeDirs(dir);
    fs.accessSync(dir, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    const why =
      code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'ENOTDIR' || code === 'EEXIST'
          ? 'a file is in the way of the folder'
          : (error as Error).message;
    throw new StoreError(
      `cannot use the data dir ${dir}: ${why} (${code}). Fix its permissions, or choose another folder with --data-dir or MNEMO_DATA_DIR`,
    );
  }
}

/**
 * Removes the temp files of compactions cut short (JsonlFile.rewrite writes
 * `<file>.<pid>.<random>.tmp` beside its file; before, `<file>.<pid>.tmp`). Called under the
 * lock: the logs are rewritten only under it, so their temp files are all leftovers; the vector
 * sidecar and the approximate index (vectors.ann) are written without it, so their temp files
 * are leftovers only once no process with that pid runs.
 */
export function removeLeftoverTemps(dataDir: string, logger: Logger): void {
  const isLogTemp = (name: string) =>
    ['memories.jsonl', 'relations.jsonl'].some(
      (log) => name.startsWith(`${log}.`) && name.endsWith('.tmp') && name.length > log.length + 5,
    );
  for (const entry of fs.readdirSync(dataDir, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const pid = entry.name.startsWith('.')
      ? undefined
      : /\.(?:jsonl|idx|ann)\.(\d{1,10})(?:\.[0-9a-f]{16})?\.tmp$/.exec(entry.name)?.[1];
    if (!isLogTemp(entry.name) && (pid === undefined || isAlive(Number(pid)))) continue;
    fs.rmSync(path.join(dataDir, entry.name), { force: true });
    logger.info({ file: entry.name }, 'removed the temp file of a compaction cut short');
  }
}
