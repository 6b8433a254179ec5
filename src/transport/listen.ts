import { createServer as createNodeServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type express from 'express';

export interface RunningHttp {
  url: string;
  server: Server;
  /** Stops accepting, lets requests in flight finish (up to `drainMs`), then drops the rest. */
  close(drainMs?: number): Promise<void>;
}

/**
 * How long a client may take to send a request's headers, and the whole request: Node's own
 * 300 s let a caller who trickles a body (a byte a second) hold a connection, and the file it
 * takes, five minutes a request. A handler's time after that is not counted.
 */
export const RECEIVE_LIMITS = { headersMs: 10_000, requestMs: 30_000 };

export async function listen(
  app: express.Express,
  host: string,
  port: number,
  limits: { headersMs: number; requestMs: number } = RECEIVE_LIMITS,
): Promise<RunningHttp> {
  const server = createNodeServer(
    {
      headersTimeout: Math.min(limits.headersMs, limits.requestMs),
      requestTimeout: limits.requestMs,
      // How often Node looks for requests past those limits (30 s by default).
      connectionsCheckingInterval: Math.min(1_000, limits.requestMs),
    },
    app,
  );
  // The answers under way, and whether the server is closing: a connection whose answer ends
  // after close() began is closed then, not kept alive for its client until the drain's end.
  const answering = new Set<ServerResponse>();
  let closing = false;
  const closeOnceAnswered = (res: ServerResponse) => {
    if (!res.headersSent) res.shouldKeepAlive = false;
    res.once('finish', () => setImmediate(() => server.closeIdleConnections()));
  };
  server.on('request', (_req, res: ServerResponse) => {
    answering.add(res);
    res.once('close', () => answering.delete(res));
    if (closing) closeOnceAnswered(res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    server,
    close(drainMs = 5_000) {
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), drainMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
        closing = true;
        for (const res of answering) closeOnceAnswered(res);
      });
    },
  };
}
