import { createStdioApp } from '../../app/stdio.js';
import { createLogger } from '../../logger.js';
import { sizeHeap } from '../../platform/heap-size.js';
import type { CommandContext } from '../command.js';
import { clockFor, storeFiles } from '../runtime.js';
import { serveUntilStopped } from '../signals.js';

/** `mnemo stdio`: serves until the client closes stdin, or a signal. */
export async function runStdio({ config, signals, env }: CommandContext): Promise<number> {
  // Before the store loads (heap-size.ts).
  sizeHeap(
    { databaseUrl: config.databaseUrl, ...storeFiles(config.dataDir) },
    { execArgv: process.execArgv, nodeOptions: env?.NODE_OPTIONS },
  );
  const logger = createLogger(config.logLevel);
  const app = createStdioApp(config, { logger, clock: clockFor(config) });
  await app.start();
  await serveUntilStopped(app, signals, logger);
  return 0;
}
