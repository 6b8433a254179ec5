import { createLogger } from '../../logger.js';
import type { CommandContext } from '../command.js';
import { clockFor } from '../runtime.js';
import { serveUntilStopped } from '../signals.js';

/** `mnemo serve`: serves over HTTP until a signal. */
export async function runServe({ config, flags, out, signals }: CommandContext): Promise<number> {
  // Loaded here, not at the top: `mnemo stdio` starts without express and the gateway.
  const { createServeApp } = await import('../../app/http.js');
  const logger = createLogger(config.logLevel);
  const app = createServeApp(config, {
    logger,
    clock: clockFor(config),
    tunnel: flags.tunnel === true,
    onTunnelUrl: (url) => out(`mnemo serve: ${url}/mcp (tunnel)`),
  });
  const { url } = await app.start();
  out(`mnemo serve: ${url}/mcp${config.authToken ? ' (bearer auth on)' : ''}`);
  await serveUntilStopped(app, signals, logger);
  return 0;
}
