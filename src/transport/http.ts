import {
  createServer as createNodeServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import {
  classifyInboundRequest,
  createMcpHandler,
  type McpServer,
  type Transport,
} from '@modelcontextprotocol/server';
import express, { type NextFunction, type Request, type Response } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { Logger } from 'pino';
import { HIDDEN_PATH_LOG, remoteMessage, TransientError, UserError } from '../platform/errors.js';
import { DEFAULT_NAMESPACE, isNamespace, NAMESPACE_PATTERN } from '../storage/engine.js';
import { audit } from './audit.js';
import { presentedToken, tokenMatches } from './auth.js';
import { hostName, isAllowedHost } from './hosts.js';
import { HttpError } from './http-error.js';
import { jsonBody, oneMessage } from './json-body.js';
import { paramsFault } from './jsonrpc.js';
import { unsupportedRevision } from './revisions.js';
import type { TokenGrant } from './tokens.js';

export { HttpError };

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
    /** Sets res.locals.oauth ({ namespaces, grant }) for a valid token, else answers 401. */
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

const rpcError = (code: number, message: string) => ({
  jsonrpc: '2.0' as const,
  error: { code, message },
  id: null,
});

export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: ReturnType<typeof rpcError>;
}

/**
 * The one mapping of an error to an HTTP answer with a JSON-RPC error. A UserError's message is
 * safe to show: an HttpError answers its own status, a TransientError 503 (retry in a moment),
 * any other 400. Anything else is mnemo's fault: logged, and answered 500 / -32603 without a
 * word of what went wrong.
 */
export function errorAnswer(error: unknown, logger: Pick<Logger, 'error' | 'warn'>): ErrorAnswer {
  if (error instanceof HttpError) {
    return {
      status: error.status,
      headers: error.headers,
      body: rpcError(error.rpcCode, error.message),
    };
  }
  if (error instanceof UserError) {
    // A message naming a path of the server is the operator's, not the caller's.
    const { message, hidden } = remoteMessage(error);
    if (hidden) logger.warn({ err: error.name }, HIDDEN_PATH_LOG);
    return error instanceof TransientError
      ? { status: 503, headers: { 'Retry-After': '1' }, body: rpcError(-32000, message) }
      : { status: 400, headers: {}, body: rpcError(-32000, message) };
  }
  logger.error({ err: (error as Error | undefined)?.message }, 'request failed');
  return { status: 500, headers: {}, body: rpcError(-32603, 'internal error') };
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
      res.locals.holder = `oauth:${(res.locals.oauth as { grant: string }).grant}`;
      next();
    });
  }

  const tokens = deps.tokens ?? [];
  /** A token opens /mcp: MNEMO_AUTH_TOKEN, or one of the token file. */
  const guarded = deps.authToken !== undefined || tokens.length > 0;

  // Who calls, checked once: the configured token presented for this route, by label ('mnemo'
  // for MNEMO_AUTH_TOKEN, 'grant:<n>' for the nth of the token file, 'upstream:<label>' for
  // that upstream's own), or undefined.
  app.use('/mcp', (req, res, next) => {
    res.locals.holder = tokenHolder(req, deps, true);
    next();
  });

  // The page's API: its own origin only (no CORS), then the token and namespace as for /mcp.
  if (deps.ui) {
    app.use('/ui/api', (req, res, next) => {
      refuseOtherOrigins(req);
      res.locals.holder = tokenHolder(req, deps, false);
      next();
    });
  }

  // Per verified token, so one leaked tunnel URL cannot flood the store; everything else (no
  // token, a wrong one) per client address. The keys are labels and addresses: what a caller
  // sends cannot grow the limiter's memory, and the token itself is never a key.
  const perMinute = deps.rateLimitPerMinute ?? 600;
  if (perMinute > 0) {
    app.use(
      ['/mcp', ...(deps.ui ? ['/ui/api'] : []), ...(deps.oauth ? [CONNECT_MCP, '/oauth'] : [])],
      rateLimit({
        windowMs: 60_000,
        limit: perMinute,
        standardHeaders: 'draft-8',
        legacyHeaders: false,
        keyGenerator: (req, res) => {
          const holder = res.locals.holder as string | undefined;
          return holder ? `token:${holder}` : `ip:${ipKeyGenerator(req.ip ?? '')}`;
        },
        handler: () => {
          throw new HttpError(429, `more than ${perMinute} calls a minute: slow down and retry`);
        },
      }),
    );
  }

  // Before the /mcp auth below, which would also match /mcp/<label>: here the upstream's own
  // token is accepted besides the global one. Auth comes first so no label leaks.
  app.post('/mcp/:label', (req, res, next) => {
    const label = req.params.label;
    const own = deps.gateway?.has(label) ? deps.gateway.tokenFor(label) : undefined;
    const holder = res.locals.holder as string | undefined;
    if ((guarded || own !== undefined) && holder !== 'mnemo' && holder !== `upstream:${label}`) {
      throw unauthorized();
    }
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
    res.locals.label = label;
    await (deps.gateway as NonNullable<HttpDeps['gateway']>).handle(label, req, res);
  });

  if (deps.ui) {
    app.use('/ui/api', (req, res, next) => {
      const held = namespacesOf(res.locals.holder as string | undefined, deps);
      if (guarded && held === undefined) throw unauthorized();
      res.locals.namespace = chosenNamespace(req, held);
      res.locals.namespaces = held;
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
        if (res.locals.holder !== 'mnemo') {
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
    const holder = res.locals.holder as string | undefined;
    const held = namespacesOf(holder, deps);
    if (guarded && held === undefined) throw unauthorized();
    res.locals.namespace = chosenNamespace(req, held);
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
    await handlerFor(res.locals.namespace as string)(req, res);
  });

  app.all('/mcp', () => {
    throw new HttpError(405, 'use POST: this endpoint answers with JSON and keeps no SSE stream');
  });

  if (deps.oauth) {
    // The same MCP handler as /mcp, in a namespace of the token's grant.
    app.post(CONNECT_MCP, jsonBody(deps.bodyLimit), oneMessage, async (req, res) => {
      const caller = res.locals.oauth as { namespaces: readonly string[] };
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

const unauthorized = () =>
  new HttpError(401, 'missing or wrong token: send Authorization: Bearer <token>', -32001, {
    'WWW-Authenticate': 'Bearer',
  });

/**
 * A browser call from any origin but the page's own: 403. A browser says where a call comes from
 * (Origin, Sec-Fetch-Site); a page elsewhere cannot act with the person's session, and no CORS
 * header ever lets it read an answer.
 */
export function refuseOtherOrigins(req: Request): void {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw new HttpError(403, 'the page API answers its own page only (Sec-Fetch-Site)');
  }
  const origin = req.headers.origin;
  if (origin === undefined) return;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  if (host === undefined || host !== req.headers.host) {
    throw new HttpError(403, 'the page API answers its own page only: this Origin is another');
  }
}

/**
 * The label of the configured token a /mcp request presents: 'mnemo' for the global one,
 * 'upstream:<label>' for the own token of the upstream whose route it calls; undefined for no
 * token or a wrong one. Every token accepted on the route is compared, so the timing does not
 * tell which one matched.
 */
function tokenHolder(req: Request, deps: HttpDeps, mcp: boolean): string | undefined {
  const accepted: [string, string][] = [];
  if (deps.authToken !== undefined) accepted.push(['mnemo', deps.authToken]);
  (deps.tokens ?? []).forEach((grant, i) => {
    accepted.push([`grant:${i}`, grant.token]);
  });
  const label = mcp ? routeLabel(req.path) : undefined;
  const own =
    label !== undefined && deps.gateway?.has(label) ? deps.gateway.tokenFor(label) : undefined;
  if (own !== undefined) accepted.push([`upstream:${label}`, own]);
  const presented = presentedToken(req.headers.authorization);
  const matched = accepted.filter(([, token]) => tokenMatches(presented, token));
  return matched[0]?.[0];
}

/**
 * The namespaces the holder of a request may use: MNEMO_AUTH_TOKEN the default one, a token of
 * the file its own; the default one alone when no token is configured (a loopback server
 * without auth: anyone on the machine may call it, so it must not open, or make, a namespace
 * by name); undefined when a token is needed and none matched.
 */
function namespacesOf(
  holder: string | undefined,
  deps: HttpDeps,
): readonly string[] | 'tokenless' | undefined {
  if (holder === 'mnemo') return [DEFAULT_NAMESPACE];
  const grant = holder?.startsWith('grant:') ? deps.tokens?.[Number(holder.slice(6))] : undefined;
  if (grant) return grant.namespaces;
  if (deps.authToken === undefined && (deps.tokens ?? []).length === 0) return 'tokenless';
  return undefined;
}

const NAMESPACE_HEADER = 'x-mnemo-namespace';

/**
 * The namespace a request asks for (the X-Mnemo-Namespace header, else `?namespace=`), checked
 * against what its token holds. A namespace the token does not hold answers 403 with the same
 * words whether it exists or not: nothing here looks at the store. Without any token only the
 * default namespace is served; another name answers 403 saying how to serve it.
 */
function chosenNamespace(req: Request, held: readonly string[] | 'tokenless' | undefined): string {
  const header = req.headers[NAMESPACE_HEADER];
  const query = req.query.namespace;
  if (held === undefined) throw unauthorized();
  if (header === undefined && query !== undefined && typeof query !== 'string') {
    throw new HttpError(400, 'give one namespace: ?namespace=NAME once, or X-Mnemo-Namespace');
  }
  const asked =
    typeof header === 'string' ? header.trim() : typeof query === 'string' ? query : undefined;
  if (asked === undefined || asked === '') {
    return held === 'tokenless' ? DEFAULT_NAMESPACE : (held[0] as string);
  }
  if (held === 'tokenless') {
    if (!isNamespace(asked)) {
      throw new HttpError(
        400,
        `"${asked}" is not a namespace name: use 1 to 64 of a-z, 0-9, _ and - (${NAMESPACE_PATTERN.source}) in X-Mnemo-Namespace or ?namespace=`,
      );
    }
    if (asked !== DEFAULT_NAMESPACE) {
      throw new HttpError(
        403,
        `without a token mnemo serve holds the ${DEFAULT_NAMESPACE} namespace only: give tokens their namespaces in a token file (MNEMO_TOKENS), or use mnemo stdio with MNEMO_NAMESPACE`,
      );
    }
    return asked;
  }
  if (!held.includes(asked)) {
    throw new HttpError(
      403,
      'this token does not hold the namespace asked for (X-Mnemo-Namespace or ?namespace=): ask for one of its own, or use a token that holds it',
    );
  }
  return asked;
}

/** The <label> of a path /<label> under /mcp, decoded as express decodes route params. */
function routeLabel(path: string): string | undefined {
  const segment = /^\/([^/]+)\/?$/.exec(path)?.[1];
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

type PooledServer = { connect(t: Transport): Promise<void>; close(): Promise<void> };

/**
 * MCP servers for one route, reused from request to request: building one (registering every
 * tool and its schemas) costs milliseconds, more than serving a call. A server serves one
 * request at a time; it is closed (which detaches its transport) before it is reused.
 */
class ServerPool<S extends PooledServer = PooledServer> {
  private readonly idle = new Set<S>();
  constructor(
    private readonly make: () => S,
    private readonly keep = 32,
  ) {}
  take(): S {
    const server = this.idle.values().next().value;
    if (server === undefined) return this.make();
    this.idle.delete(server);
    return server;
  }
  /** Given back once closed; a server given twice is kept once. */
  give(server: S): void {
    if (this.idle.size < this.keep) this.idle.add(server);
  }
}

/**
 * MCP over HTTP for one route: 2026-07-28 requests (no handshake, the revision in each request's
 * _meta) served by the SDK's per-request handler, and the initialize-based revisions served
 * statelessly with JSON answers by a pool of servers. The SDK's classification decides which,
 * so the two can never disagree; a request that mixes them gets the revision's own error. What
 * the SDK reports (a refused request, a failed exchange) is logged without the request.
 */
function serveMcp(factory: () => McpServer, logger: Logger): McpRoute {
  const onerror = (error: Error) => logger.warn({ err: error.message }, 'mcp: request refused');
  // Each era its own pool: a server keeps what its revision set on it (the negotiated version).
  const modernPool = new ServerPool(factory);
  const modern = toNodeHandler(
    createMcpHandler(
      () => {
        const server = modernPool.take();
        // The SDK closes the server when the exchange ends, and calls this after its own.
        server.server.onclose = () => modernPool.give(server);
        return server;
      },
      { legacy: 'reject', onerror },
    ),
    { onerror },
  );
  const legacy = new ServerPool(factory);
  return async (req, res) => {
    const revision = unsupportedRevision(req.body, req.get('mcp-protocol-version'));
    if (revision) {
      res.status(400).json(revision);
      return;
    }
    const route = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: req.get('mcp-protocol-version'),
      mcpMethodHeader: req.get('mcp-method'),
      mcpNameHeader: req.get('mcp-name'),
      body: req.body,
    });
    if (route.kind !== 'legacy') return modern(req, res, req.body);
    // Params that do not fit their request get a readable -32602, not the SDK's schema dump.
    const fault = paramsFault(req.body);
    if (fault) res.json(fault);
    else await serveOnce(legacy, req, res);
  };
}

type McpRoute = (req: Request, res: Response) => Promise<void>;

/** Serves one request: stateless, JSON responses, no SSE. */
async function serveOnce(pool: ServerPool, req: Request, res: Response): Promise<void> {
  const server = pool.take();
  const transport = new NodeStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on('close', () => {
    server.close().then(
      () => pool.give(server),
      () => {},
    );
  });
  await server.connect(transport);
  // Params that do not fit their request get a readable -32602, not the SDK's raw schema dump.
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const fault = paramsFault(message);
    if (fault) void transport.send(fault).catch(() => {});
    else deliver?.(message, extra);
  };
  await transport.handleRequest(req, res, req.body);
}

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
      });
    },
  };
}
