import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  classifyInboundRequest,
  createMcpHandler,
  type InboundClassificationOutcome,
  type JSONRPCRequest,
  ProtocolError,
  type Result,
  Server,
  type ServerCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import { MODERN_REVISIONS, unsupportedRevision } from '../transport/revisions.js';
import { VERSION } from '../version.js';
import { accepts, EventStream, header, reply, send } from './answer.js';
import type { Answer, Call, Progress, RpcError } from './channel.js';
import { type Era, resultForCaller } from './eras.js';
import { UpstreamError } from './errors.js';
import type { Upstream } from './upstream.js';

/** A request to /mcp/<label>, its body already parsed and bounded by the HTTP edge. */
export type GatewayRequest = IncomingMessage & { body?: unknown };

/** The requests passed on to the upstream, each with the capability that offers it. */
const FORWARDED = new Map<string, keyof ServerCapabilities>([
  ['tools/list', 'tools'],
  ['tools/call', 'tools'],
  ['resources/list', 'resources'],
  ['resources/templates/list', 'resources'],
  ['resources/read', 'resources'],
  ['prompts/list', 'prompts'],
  ['prompts/get', 'prompts'],
  ['completion/complete', 'completions'],
]);

/** The body field each of these requests names in the Mcp-Name header (2026-07-28). */
const NAMED = new Map<string, 'name' | 'uri'>([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
]);

/**
 * What a stateless gateway can honour of what the upstream offers: the features, without
 * listChanged or subscribe (no answer of a per-request exchange can carry a later change) and
 * without logging (its level is set per session).
 */
export function advertised(capabilities: ServerCapabilities): ServerCapabilities {
  const out: ServerCapabilities = {};
  if (capabilities.tools) out.tools = {};
  if (capabilities.resources) out.resources = {};
  if (capabilities.prompts) out.prompts = {};
  if (capabilities.completions) out.completions = {};
  return out;
}

/**
 * POST /mcp/<label> for one upstream, in both eras. The requests that are passed on go as raw
 * JSON-RPC over the upstream's connection and their answers come back as the upstream wrote them
 * (with the caller's id, and era fields where caller and upstream differ): no SDK server, no
 * schema check of the answer. Everything else (initialize, server/discover, ping, notifications,
 * anything malformed or unknown) is served by the SDK's own handler, from what the upstream said
 * of itself, so its answers and errors are the SDK's.
 */
export class UpstreamRoute {
  private readonly handler: ReturnType<typeof createMcpHandler>;
  private readonly sdk: ReturnType<typeof toNodeHandler>;

  constructor(
    private readonly upstream: Upstream,
    logger: Logger,
  ) {
    const onerror = (error: Error) =>
      logger.debug({ upstream: upstream.label, err: error.message }, 'gateway request refused');
    this.handler = createMcpHandler(({ era }) => this.server(era), { onerror });
    this.sdk = toNodeHandler(this.handler, { onerror });
  }

  /** Ends the SDK's exchanges in flight; the fast path's end with the upstream. */
  close(): Promise<void> {
    return this.handler.close();
  }

  async handle(req: GatewayRequest, res: ServerResponse): Promise<void> {
    const body = req.body as { id?: unknown; method?: unknown; params?: unknown } | undefined;
    const versionHeader = header(req, 'mcp-protocol-version');
    // A revision not served is answered as on /mcp: -32022, HTTP 400, its echo bounded.
    const unsupported = unsupportedRevision(body, versionHeader);
    if (unsupported) return reply(res, 400, unsupported);
    const outcome = classifyInboundRequest({
      httpMethod: req.method ?? 'POST',
      protocolVersionHeader: versionHeader,
      mcpMethodHeader: header(req, 'mcp-method'),
      mcpNameHeader: header(req, 'mcp-name'),
      body,
    } as Parameters<typeof classifyInboundRequest>[0]);
    const id = typeof body?.id === 'string' || typeof body?.id === 'number' ? body.id : null;
    if (outcome.kind === 'reject') {
      const error: RpcError = { code: outcome.code, message: outcome.message };
      if (outcome.data !== undefined) error.data = outcome.data;
      return reply(res, outcome.httpStatus, { jsonrpc: '2.0', id, error });
    }
    const isRequest =
      outcome.kind === 'modern'
        ? outcome.messageKind === 'request'
        : outcome.reason === 'no-claim' || outcome.reason === 'initialize';
    const method = typeof body?.method === 'string' ? body.method : '';
    const capability = FORWARDED.get(method);
    const upstream = this.upstream;
    if (isRequest && capability !== undefined) {
      if (upstream.state !== 'ready') return this.fault(res, id, upstream.unavailable());
      const era = fastPath(req, outcome, method, body?.params);
      if (era !== undefined && upstream.identity?.capabilities[capability]) {
        return this.forward(req, res, id, era, method, body?.params as Record<string, unknown>);
      }
    } else if (isRequest && upstream.identity === undefined) {
      // Until the upstream has said what it offers, nothing true can be said of it.
      return this.fault(res, id, upstream.unavailable());
    }
    await this.sdk(req, res, req.body);
  }

  /** The fast path: the request to the upstream and its answer back, as raw JSON-RPC. */
  private async forward(
    req: GatewayRequest,
    res: ServerResponse,
    id: string | number | null,
    era: Era,
    method: string,
    params: Record<string, unknown> | undefined,
  ): Promise<void> {
    const upstream = this.upstream;
    const protocol = upstream.protocol;
    if (protocol === undefined) return this.fault(res, id, upstream.unavailable());
    const token = (params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
    const events =
      (typeof token === 'string' || typeof token === 'number') && accepts(req, 'text/event-stream')
        ? new EventStream(res)
        : undefined;
    let call: Call;
    try {
      call = upstream.call(
        method,
        params,
        events &&
          ((progress: Progress) =>
            events.send({
              jsonrpc: '2.0',
              method: 'notifications/progress',
              params: { ...progress, progressToken: token },
            })),
      );
    } catch (error) {
      return this.fault(res, id, error);
    }
    // The caller hung up (the 2026-07-28 way to cancel, and a 2025 client gone): so is the call.
    const hungUp = () => {
      if (!res.writableFinished) call.cancel('the caller closed its request');
    };
    res.once('close', hungUp);
    let answer: Answer;
    try {
      answer = await call.answer;
    } catch (error) {
      return this.fault(res, id, error, events);
    } finally {
      res.off('close', hungUp);
    }
    if ('error' in answer) return send(res, { jsonrpc: '2.0', id, error: answer.error }, events);
    let result: Record<string, unknown>;
    try {
      const serverInfo = upstream.identity?.serverInfo;
      result = resultForCaller(
        method,
        answer.result,
        era,
        protocol.era,
        serverInfo,
        upstream.label,
      );
    } catch (error) {
      return this.fault(res, id, error, events);
    }
    send(res, { jsonrpc: '2.0', id, result }, events);
  }

  /**
   * The gateway's own error, said once: 503 with Retry-After while the upstream is down (nothing
   * reached it), else a JSON-RPC error in an HTTP 200.
   */
  private fault(
    res: ServerResponse,
    id: string | number | null,
    error: unknown,
    events?: EventStream,
  ): void {
    if (!(error instanceof UpstreamError)) throw error;
    if (res.destroyed) return;
    const body = { jsonrpc: '2.0', id, error: rpcError(error) };
    if (error.retryAfterSeconds !== undefined && !events?.started) {
      reply(res, 503, body, { 'retry-after': String(error.retryAfterSeconds) });
    } else {
      send(res, body, events);
    }
  }

  /** The SDK server for one request off the fast path, built from what the upstream said. */
  private server(era: Era): Server {
    const upstream = this.upstream;
    const identity = upstream.identity;
    const capabilities = advertised(identity?.capabilities ?? {});
    const server = new RelayServer(
      upstream.label,
      {
        name: identity?.serverInfo?.name ?? upstream.label,
        version: identity?.serverInfo?.version ?? VERSION,
      },
      { capabilities, ...(identity?.instructions ? { instructions: identity.instructions } : {}) },
    );
    for (const [method, capability] of FORWARDED) {
      if (capabilities[capability] === undefined) continue;
      const relay = (request: { params?: Record<string, unknown> }, ctx: ServerContext) =>
        this.relay(era, method, request.params, ctx);
      server.setRequestHandler(method as 'tools/call', relay as never);
    }
    return server;
  }

  /** A passed-on request the SDK server took: the same call, its faults as protocol errors. */
  private async relay(
    era: Era,
    method: string,
    params: Record<string, unknown> | undefined,
    ctx: ServerContext,
  ): Promise<Record<string, unknown>> {
    const upstream = this.upstream;
    const protocol = upstream.protocol;
    try {
      if (protocol === undefined) throw upstream.unavailable();
      const token = ctx.mcpReq._meta?.progressToken;
      const call = upstream.call(
        method,
        params,
        token === undefined
          ? undefined
          : (progress) =>
              void ctx.mcpReq
                .notify({
                  method: 'notifications/progress',
                  params: { ...progress, progressToken: token },
                })
                .catch(() => {}),
      );
      ctx.mcpReq.signal.addEventListener('abort', () => call.cancel('the caller cancelled'), {
        once: true,
      });
      const answer = await call.answer;
      if ('error' in answer) {
        throw new ProtocolError(answer.error.code, answer.error.message, answer.error.data);
      }
      const serverInfo = upstream.identity?.serverInfo;
      return resultForCaller(method, answer.result, era, protocol.era, serverInfo, upstream.label);
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      throw new ProtocolError(error.code, error.message, error.data);
    }
  }
}

/**
 * The caller's era when the request may take the fast path: a request the SDK would serve as it
 * is. Anything it would refuse or reshape (a missing or mismatched header, a name in base64, no
 * name at all) takes the SDK's path, to be answered by it.
 */
function fastPath(
  req: GatewayRequest,
  outcome: Exclude<InboundClassificationOutcome, { kind: 'reject' }>,
  method: string,
  params: unknown,
): Era | undefined {
  if (
    params !== undefined &&
    (typeof params !== 'object' || params === null || Array.isArray(params))
  ) {
    return undefined;
  }
  const field = NAMED.get(method);
  const name = field && (params as Record<string, unknown> | undefined)?.[field];
  if (field && typeof name !== 'string') return undefined;
  if (outcome.kind === 'legacy') {
    // The SDK's 2025 transport wants both kinds accepted (406 otherwise).
    return outcome.reason === 'no-claim' &&
      accepts(req, 'application/json') &&
      accepts(req, 'text/event-stream')
      ? 'legacy'
      : undefined;
  }
  const revision = outcome.classification.revision;
  const exact =
    outcome.classification.era === 'modern' &&
    revision !== undefined &&
    MODERN_REVISIONS.includes(revision) &&
    header(req, 'mcp-protocol-version') === revision &&
    header(req, 'mcp-method') === method &&
    (field === undefined || header(req, 'mcp-name') === name) &&
    accepts(req, 'application/json');
  return exact ? 'modern' : undefined;
}

type Handler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/**
 * The SDK's server for the requests it relays: an error it raises once the relay has returned
 * the upstream's result is its refusal of that result (a tools/call result off the era's schema
 * is refused as -32602 with every complaint of the schema, megabytes of them for a long list),
 * and is said as the upstream's fault, naming it.
 */
class RelayServer extends Server {
  constructor(
    private readonly label: string,
    ...args: ConstructorParameters<typeof Server>
  ) {
    super(...args);
  }

  protected override _wrapHandler(method: string, handler: Handler): Handler {
    if (!FORWARDED.has(method)) return super._wrapHandler(method, handler);
    /** The requests whose handler returned a result. */
    const answered = new WeakSet<JSONRPCRequest>();
    const wrapped = super._wrapHandler(method, async (request, ctx) => {
      const result = await handler(request, ctx);
      answered.add(request);
      return result;
    });
    return async (request, ctx) => {
      try {
        return await wrapped(request, ctx);
      } catch (error) {
        if (!answered.has(request)) throw error;
        throw new ProtocolError(
          -32603,
          `upstream "${this.label}" answered ${method} with a result the MCP SDK refuses in this revision: the gateway does not pass it on`,
        );
      }
    };
  }
}

function rpcError(error: UpstreamError): RpcError {
  const out: RpcError = { code: error.code, message: error.message };
  if (error.data !== undefined) out.data = error.data;
  return out;
}
