import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { UpstreamSpec } from './config.js';
import { type GatewayRequest, UpstreamRoute } from './route.js';
import { type Timers, Upstream, type UpstreamHealth, type UpstreamOptions } from './upstream.js';

export type { GatewayRequest } from './route.js';

export interface GatewayOptions {
  servers: Record<string, UpstreamSpec>;
  logger: Logger;
  callTimeoutMs?: number;
  timers?: Timers;
  backoff?: UpstreamOptions['backoff'];
}

export interface Gateway {
  labels(): string[];
  has(label: string): boolean;
  health(): UpstreamHealth[];
  /** The upstream's own token, which opens only its route. */
  tokenFor(label: string): string | undefined;
  /** Serves one request to /mcp/<label> (a label `has` knows), its body already parsed. */
  handle(label: string, req: GatewayRequest, res: ServerResponse): Promise<void>;
  upstream(label: string): Upstream | undefined;
  close(): Promise<void>;
}

/** Starts every upstream, each served at its own route. */
export function createGateway(options: GatewayOptions): Gateway {
  const routes = new Map<string, { upstream: Upstream; route: UpstreamRoute }>();
  for (const [label, spec] of Object.entries(options.servers)) {
    const upstream = new Upstream({
      label,
      spec,
      logger: options.logger,
      ...(options.callTimeoutMs !== undefined ? { callTimeoutMs: options.callTimeoutMs } : {}),
      ...(options.timers ? { timers: options.timers } : {}),
      ...(options.backoff ? { backoff: options.backoff } : {}),
    });
    routes.set(label, { upstream, route: new UpstreamRoute(upstream, options.logger) });
    upstream.start();
  }
  return {
    labels: () => [...routes.keys()],
    has: (label) => routes.has(label),
    health: () => [...routes.values()].map(({ upstream }) => upstream.health()),
    tokenFor: (label) => (routes.has(label) ? options.servers[label]?.token : undefined),
    handle(label, req, res) {
      const entry = routes.get(label);
      if (!entry) throw new Error(`no upstream is labelled "${label}"`);
      return entry.route.handle(req, res);
    },
    upstream: (label) => routes.get(label)?.upstream,
    async close() {
      await Promise.all(
        [...routes.values()].map(({ upstream, route }) =>
          Promise.all([route.close(), upstream.close()]),
        ),
      );
    },
  };
}
