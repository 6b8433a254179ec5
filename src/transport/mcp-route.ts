import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import {
  classifyInboundRequest,
  createMcpHandler,
  type McpServer,
  type Transport,
} from '@modelcontextprotocol/server';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { paramsFault } from './jsonrpc.js';
import { unsupportedRevision } from './revisions.js';

export type McpRoute = (req: Request, res: Response) => Promise<void>;

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
export function serveMcp(factory: () => McpServer, logger: Logger): McpRoute {
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
