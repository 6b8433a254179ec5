import { createStdioApp } from '../../app/stdio.js';
import { createLogger } from '../../logger.js';
import type { CommandContext } from '../command.js';
import { clockFor } from '../runtime.js';
import { serveUntilStopped } from '../signals.js';

/** `mnemo stdio`: serves until the client closes stdin, or a signal. */
export async function runStdio({ config, signals }: CommandContext): Promise<number> {
  const logger = createLogger(config.logLevel);
  const app = createStdioApp(config, { logger, clock: clockFor(config) });
  await app.start();
  await serveUntilStopped(app, signals, logger);
  return 0;
}
