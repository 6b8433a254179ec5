import { randomBytes } from 'node:crypto';
import { createLogger } from '../../logger.js';
import { isLoopbackAddress } from '../../transport/hosts.js';
import type { CommandContext } from '../command.js';
import { clockFor } from '../runtime.js';
import { serveUntilStopped } from '../signals.js';
import { pageUrl } from './serve.js';

/**
 * `mnemo ui`: `mnemo serve` for the person at this machine: on loopback whatever MNEMO_HTTP_HOST
 * says, no tunnel, no gateway.json; prints the page's address. Without a token set, it makes one
 * for this run (as Jupyter does): loopback is shared by every user of the machine, and the page
 * reads and changes the memory. That token is kept in memory only and printed only in the
 * address, whose fragment never reaches a server or a log.
 */
export async function runUi({ config, out, signals }: CommandContext): Promise<number> {
  const { createServeApp } = await import('../../app/http.js');
  const logger = createLogger(config.logLevel);
  const local = {
    ...config,
    httpHost: isLoopbackAddress(config.httpHost) ? config.httpHost : '127.0.0.1',
    publicUrl: undefined,
    authToken:
      config.authToken ??
      (config.tokensFile === undefined ? randomBytes(32).toString('hex') : undefined),
  };
  const app = createServeApp(local, { logger, clock: clockFor(config) });
  const { url } = await app.start();
  out(`mnemo ui: ${pageUrl(url, local)}`);
  await serveUntilStopped(app, signals, logger);
  return 0;
}
