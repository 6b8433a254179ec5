import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/server';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { audit } from './audit.js';
import {
  chosenNamespace,
  namespacesOf,
  refuseOtherOrigins,
  tokenHolder,
  unauthorized,
} from './callers.js';
import { hostName, isAllowedHost } from './hosts.js';
import { errorAnswer, HttpError } from './http-error.js';
import { jsonBody, oneMessage } from './json-body.js';
import { type McpRoute, serveMcp } from './mcp-route.js';
import { holderKey, requestState } from './request-state.js';
import type { TokenGrant } from './tokens.js';

/** The OAuth-protected MCP endpoint (MNEMO_OAUTH): its own path, apart from /mcp. */
export const CONNECT_MCP = '/connect/mcp';

export interface HttpDeps {
  /**
   * A fresh MCP server over namespace `namespace`, for one request: the endpoint is stateless
   * (see the README).
   */
  createMcpServer(namespace: string): McpServer;
  /** Required for every /mcp call when set: it holds the default namespace. */
  authToken?: string | undefined;
  /** The tokens of the token file, each with the namespaces it holds. */
  tokens?: readonly TokenGrant[] | undefined;
  /** Host names allowed besides loopback; `*.example.com` matches subdomains. */
  allowedHosts: readonly string[];
  /** Largest request body, e.g. '1mb'. */
  bodyLimit: string;
  logger: Logger;
  health(): Record<string, unknown>;
  /** Calls a minute allowed per token (per address without one); 0 turns the limit off. */
  rateLimitPerMinute?: number;
  /**
   * The web page at GET /ui and the JSON it reads at /ui/api: the API behind the same tokens and
   * namespaces as /mcp, and only for the page's own origin.
   */
  ui?: { page: express.Router; api: express.Router };
  /**
   * OAuth (MNEMO_OAUTH): its routes (discovery, /oauth/*, the consent API), the guard of POST
   * /connect/mcp, and the grants, listed and revoked at /ui/api/oauth/grants by the admin token.
   */
  oauth?: {
    routes: express.Router;
    /** Sets requestState(res).oauth ({ namespaces, grant }) for a valid token, else answers 401. */
    guard: express.RequestHandler;
    grantsApi: express.Router;
  };
  /** The upstreams of the gateway, each at POST /mcp/<label>. */
  gateway?: {
    has(label: string): boolean;
    /** That upstream's own token: it opens its route and no other. */
    tokenFor(label: string): string | undefined;
    /** Serves one request to /mcp/<label>, its body parsed and bounded by the route. */
    handle(label: string, req: IncomingMessage, res: ServerResponse): Promise<void>;
  };
}

/**
 * The HTTP face of mnemo: `POST /mcp` (streamable HTTP, JSON responses, no sessions) behind
 * host checks and bearer auth, and `GET /health` without auth.
 */
export function createHttpApp(deps: HttpDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(audit(deps.logger));

  // DNS rebinding: only known Host names, and a browser Origin only from one of them.
  app.use((req, _res, next) => {
    if (!isAllowedHost(req.headers.host ?? '', deps.allowedHosts)) {
      throw new HttpError(403, 'this Host is not allowed: add it to MNEMO_ALLOWED_HOSTS');
    }
    const origin = req.headers.origin;
    if (
      origin !== undefined &&
      origin !== 'null' &&
      !isAllowedHost(hostName(origin), deps.allowedHosts)
    ) {
      throw new HttpError(403, 'this Origin is not allowed: add its host to MNEMO_ALLOWED_HOSTS');
    }
    next();
  });

  app.get('/health', (_req, res) => {
    res.json(deps.health());
  });

  // OAuth's own routes, and its endpoint's guard: /mcp below never meets OAuth.
  if (deps.oauth) {
    app.use(deps.oauth.routes);
    app.use(CONNECT_MCP, deps.oauth.guard, (_req, res, next) => {
      const state = requestState(res);
      if (state.oauth) state.holder = { kind: 'oauth', grant: state.oauth.grant };
      next();
    });
  }

  const tokens = deps.tokens ?? [];
  /** A token opens /mcp: MNEMO_AUTH_TOKEN, or one of the token file. */
  const guarded = deps.authToken !== undefined || tokens.length > 0;

  // Who calls, checked once: the holder of the configured token presented for this route
  // (MNEMO_AUTH_TOKEN, one of the token file, that upstream's own), or undefined.
  app.use('/mcp', (req, res, next) => {
    requestState(res).holder = tokenHolder(req, deps, true);
    next();
  });

  // The page's API: its own origin only (no CORS), then the token and namespace as for /mcp.
  if (deps.ui) {
    app.use('/ui/api', (req, res, next) => {
      refuseOtherOrigins(req);
      requestState(res).holder = tokenHolder(req, deps, false);
      next();
    });
  }

  // Per verified token, so one leaked tunnel URL cannot flood the store; everything else (no
  // token, a wrong one) per client address. The keys are labels and addresses: what a caller
  // sends cannot grow the limiter's memory, and the token itself is never a key.
  const perMinute = deps.rateLimitPerMinute ?? 600;
  if (perMinute > 0) {
    // express-rate-limit (and the ip-address package it loads) is imported by the first call it
    // counts: a server with the limit off (MNEMO_RATE_LIMIT=0) starts without it (issue 26).
    let limiter: Promise<express.RequestHandler> | undefined;
    const limit = async (): Promise<express.RequestHandler> => {
      const { ipKeyGenerator, rateLimit } = await import('express-rate-limit');
      return rateLimit({
        windowMs: 60_000,
        limit: perMinute,
        standardHeaders: 'draft-8',
        legacyHeaders: false,
        keyGenerator: (req, res) => {
          const holder = requestState(res).holder;
          return holder ? `token:${holderKey(holder)}` : `ip:${ipKeyGenerator(req.ip ?? '')}`;
        },
        handler: () => {
          throw new HttpError(429, `more than ${perMinute} calls a minute: slow down and retry`);
        },
      });
    };
    app.use(
      ['/mcp', ...(deps.ui ? ['/ui/api'] : []), ...(deps.oauth ? [CONNECT_MCP, '/oauth'] : [])],
      async (req, res, next) => {
        limiter ??= limit();
        await (await limiter)(req, res, next);
      },
    );
  }

  // Before the /mcp auth below, which would also match /mcp/<label>: here the upstream's own
  // token is accepted besides the global one. Auth comes first so no label leaks.
  app.post('/mcp/:label', (req, res, next) => {
    const label = req.params.label;
    const own = deps.gateway?.has(label) ? deps.gateway.tokenFor(label) : undefined;
    const holder = requestState(res).holder;
    const opens =
      holder?.kind === 'global' || (holder?.kind === 'upstream' && holder.label === label);
    if ((guarded || own !== undefined) && !opens) throw unauthorized();
    if (!deps.gateway?.has(label)) {
      throw new HttpError(
        404,
        `no upstream is labelled "${label}": see GET /health for the labels`,
      );
    }
    next();
  });

  app.post('/mcp/:label', jsonBody(deps.bodyLimit), oneMessage, async (req, res) => {
    const label = req.params.label as string;
    requestState(res).label = label;
    await (deps.gateway as NonNullable<HttpDeps['gateway']>).handle(label, req, res);
  });

  if (deps.ui) {
    app.use('/ui/api', (req, res, next) => {
      const state = requestState(res);
      const held = namespacesOf(state.holder, deps);
      if (guarded && held === undefined) throw unauthorized();
      state.namespace = chosenNamespace(req, held);
      state.namespaces = held;
      // A body, when there is one, is JSON; a DELETE needs none (`req.is` is null without a body).
      const bodiless = req.method === 'DELETE' && req.is('application/json') === null;
      if (req.method !== 'GET' && !bodiless && !req.is('application/json')) {
        throw new HttpError(415, 'send the body as JSON (Content-Type: application/json)');
      }
      res.set('Cache-Control', 'no-store');
      next();
    });
    if (deps.oauth) {
      // The grants are the person's: the admin token's only.
      app.use('/ui/api/oauth', (_req, res, next) => {
        if (requestState(res).holder?.kind !== 'global') {
          throw new HttpError(403, 'the grants are listed and revoked with MNEMO_AUTH_TOKEN only');
        }
        next();
      });
      app.use('/ui/api/oauth', deps.oauth.grantsApi);
    }
    app.use('/ui/api', jsonBody(deps.bodyLimit), deps.ui.api);
    app.use('/ui/api', () => {
      throw new HttpError(404, 'not found: no such route of the page API');
    });
    app.use('/ui', deps.ui.page);
  }

  // The namespace of the call: the one asked for, if its token holds it, else the token's first.
  app.use('/mcp', (req, res, next) => {
    const state = requestState(res);
    const held = namespacesOf(state.holder, deps);
    if (guarded && held === undefined) throw unauthorized();
    state.namespace = chosenNamespace(req, held);
    next();
  });

  // One handler a namespace: each request gets a server bound to the memory of that namespace.
  const handlers = new Map<string, McpRoute>();
  const handlerFor = (namespace: string): McpRoute => {
    let handler = handlers.get(namespace);
    if (!handler) {
      handler = serveMcp(() => deps.createMcpServer(namespace), deps.logger);
      handlers.set(namespace, handler);
    }
    return handler;
  };
  app.post('/mcp', jsonBody(deps.bodyLimit), oneMessage, async (req, res) => {
    await handlerFor(requestState(res).namespace as string)(req, res);
  });

  app.all('/mcp', () => {
    throw new HttpError(405, 'use POST: this endpoint answers with JSON and keeps no SSE stream');
  });

  if (deps.oauth) {
    // The same MCP handler as /mcp, in a namespace of the token's grant.
    app.post(CONNECT_MCP, jsonBody(deps.bodyLimit), oneMessage, async (req, res) => {
      const caller = requestState(res).oauth;
      if (!caller) throw unauthorized();
      await handlerFor(chosenNamespace(req, caller.namespaces))(req, res);
    });
    app.all(CONNECT_MCP, () => {
      throw new HttpError(405, 'use POST: this endpoint answers with JSON and keeps no SSE stream');
    });
  }

  app.use(() => {
    throw new HttpError(404, 'not found: the MCP endpoint is POST /mcp');
  });

  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) return;
    const answer = errorAnswer(error, deps.logger);
    res.set(answer.headers).status(answer.status).json(answer.body);
  });
  return app;
}
