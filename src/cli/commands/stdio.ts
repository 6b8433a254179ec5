import { createStdioApp } from '../../app/stdio.js';
import { createLogger } from '../../logger.js';
import { keepYoungHeapSmall } from '../../platform/young-heap.js';
import type { CommandContext } from '../command.js';
import { clockFor, storeFiles } from '../runtime.js';
import { serveUntilStopped } from '../signals.js';

/** `mnemo stdio`: serves until the client closes stdin, or a signal. */
export async function runStdio({ config, signals, env }: CommandContext): Promise<number> {
  // Before the store loads (young-heap.ts); a database's rows are not read at once.
  if (!config.databaseUrl) {
    keepYoungHeapSmall(storeFiles(config.dataDir), {
      execArgv: process.execArgv,
      nodeOptions: env?.NODE_OPTIONS,
    });
  }
  const logger = createLogger(config.logLevel);
  const app = createStdioApp(config, { logger, clock: clockFor(config) });
  await app.start();
  await serveUntilStopped(app, signals, logger);
  return 0;
}
