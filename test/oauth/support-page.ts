// `mnemo serve` with OAuth and the web page, in-process: the consent view at /ui/consent and the
// grants on the Overview, as a browser (or the Python SDK's OAuth client) meets them. The public
// URL is its own loopback URL, known once it listens on port 0. And a loopback listener that
// stands for an OAuth client's redirect URI.
import http from 'node:http';
import { curveSettings } from '../../src/config/derived.js';
import { createOAuth } from '../../src/oauth/index.js';
import { openOAuthStore } from '../../src/oauth/open-store.js';
import { createServer } from '../../src/server.js';
import { refuseOtherOrigins } from '../../src/transport/callers.js';
import { createHttpApp } from '../../src/transport/http.js';
import { listen } from '../../src/transport/listen.js';
import { uiApi } from '../../src/ui/api.js';
import { uiPage } from '../../src/ui/page.js';
import type { TestMemory } from '../support.js';
import { ADMIN, type OAuthHarness, settableClock } from './support-oauth.js';

export async function startOAuthWithPage(t: TestMemory): Promise<OAuthHarness> {
  await t.opened.connected;
  const clock = settableClock();
  const oauth = createOAuth({
    store: openOAuthStore(t.config, clock.read),
    clock: clock.read,
    logger: t.logger,
    authToken: ADMIN,
    tokens: [],
    namespaces: () => ['default', 'work'],
    sameOrigin: refuseOtherOrigins,
  });
  const { config } = t;
  const app = createHttpApp({
    createMcpServer: (namespace) =>
      createServer({ memory: t.opened.memoryFor(namespace), logger: t.logger }),
    authToken: ADMIN,
    allowedHosts: [],
    bodyLimit: '1mb',
    logger: t.logger,
    health: () => ({ status: 'ok' }),
    rateLimitPerMinute: 0,
    ui: {
      page: uiPage(),
      api: uiApi({
        memoryFor: (namespace) => t.opened.memoryFor(namespace),
        curve: curveSettings(config),
      }),
    },
    oauth: { routes: oauth.routes, guard: oauth.guard, grantsApi: oauth.grantsApi },
  });
  const running = await listen(app, '127.0.0.1', 0);
  await oauth.setPublicUrl(running.url);
  return {
    url: running.url,
    resource: `${running.url}/connect/mcp`,
    oauth,
    advance: clock.advance,
    async close() {
      await running.close(100);
      await oauth.close();
    },
  };
}

/** A client's redirect URI on this machine: it answers a short page and keeps what came. */
export interface Callback {
  /** http://127.0.0.1:<port>/callback */
  uri: string;
  /** The next request's URL. */
  next(): Promise<URL>;
  close(): Promise<void>;
}

export async function callbackListener(): Promise<Callback> {
  const waiting: ((url: URL) => void)[] = [];
  const came: URL[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    // A browser asks for /favicon.ico besides: only the callback counts.
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    const resolve = waiting.shift();
    if (resolve) resolve(url);
    else came.push(url);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('back at the client');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    uri: `http://127.0.0.1:${port}/callback`,
    next: () => {
      const first = came.shift();
      return first ? Promise.resolve(first) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
