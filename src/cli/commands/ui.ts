import { createLogger } from '../../logger.js';
import { isLoopbackAddress } from '../../transport/hosts.js';
import type { CommandContext } from '../command.js';
import { clockFor } from '../runtime.js';
import { serveUntilStopped } from '../signals.js';
import { pageUrl } from './serve.js';

/**
 * `mnemo ui`: `mnemo serve` for the person at this machine: on loopback whatever MNEMO_HTTP_HOST
 * says, no tunnel, no gateway.json; prints the page's address.
 */
export async function runUi({ config, out, signals }: CommandContext): Promise<number> {
  const { createServeApp } = await import('../../app/http.js');
  const logger = createLogger(config.logLevel);
  const local = {
    ...config,
    httpHost: isLoopbackAddress(config.httpHost) ? config.httpHost : '127.0.0.1',
    publicUrl: undefined,
  };
  const app = createServeApp(local, { logger, clock: clockFor(config) });
  const { url } = await app.start();
  out(`mnemo ui: ${pageUrl(url, config)}`);
  await serveUntilStopped(app, signals, logger);
  return 0;
}
