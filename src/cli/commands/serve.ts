import type { Config } from '../../config/index.js';
import { createLogger } from '../../logger.js';
import { sizeHeap } from '../../platform/heap-size.js';
import type { CommandContext } from '../command.js';
import { clockFor, storeFiles } from '../runtime.js';
import { serveUntilStopped } from '../signals.js';

/** `mnemo serve`: serves over HTTP until a signal. */
export async function runServe({
  config,
  flags,
  out,
  stdout,
  signals,
  env,
}: CommandContext): Promise<number> {
  // Before the store loads (heap-size.ts).
  sizeHeap(
    { databaseUrl: config.databaseUrl, ...storeFiles(config.dataDir) },
    { execArgv: process.execArgv, nodeOptions: env?.NODE_OPTIONS },
  );
  // Loaded here, not at the top: `mnemo stdio` starts without express and the gateway.
  const { createServeApp } = await import('../../app/http.js');
  const logger = createLogger(config.logLevel);
  const oauth = config.oauth || flags.oauth === true;
  const app = createServeApp(config, {
    logger,
    clock: clockFor(config),
    tunnel: flags.tunnel === true,
    oauth: flags.oauth === true,
    onTunnelUrl: (url) => {
      out(`mnemo serve: ${url}/mcp (tunnel)`);
      if (oauth) out(`mnemo serve: ${url}/connect/mcp (OAuth: paste it into claude.ai or ChatGPT)`);
    },
    ...(env ? { environment: env } : {}),
  });
  const { url } = await app.start();
  out(`mnemo serve: ${url}/mcp${config.authToken ? ' (bearer auth on)' : ''}`);
  if (oauth && config.publicUrl !== undefined) {
    out(`mnemo serve: ${config.publicUrl}/connect/mcp (OAuth: paste it into claude.ai or ChatGPT)`);
  }
  // A daemon's stdout goes to a log (the journal): the token goes into the address only for a
  // person at a terminal.
  const interactive = (stdout as NodeJS.WriteStream).isTTY === true;
  out(
    interactive || !config.authToken
      ? `mnemo serve: the web page at ${pageUrl(url, config)}`
      : `mnemo serve: the web page at ${url}/ui (it asks for the token; or open ${url}/ui#token=<MNEMO_AUTH_TOKEN>)`,
  );
  await serveUntilStopped(app, signals, logger);
  return 0;
}

/**
 * The page's address, with MNEMO_AUTH_TOKEN in the fragment when there is one: a fragment never
 * reaches a server (nor a log), and the page moves it to the tab's session storage.
 */
export function pageUrl(url: string, config: Pick<Config, 'authToken'>): string {
  const token = config.authToken;
  return `${url}/ui${token === undefined ? '' : `#token=${encodeURIComponent(token)}`}`;
}
