import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ErrorCode,
  GetPromptRequestSchema,
  GetPromptResultSchema,
  ListPromptsRequestSchema,
  ListPromptsResultSchema,
  ListResourcesRequestSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesRequestSchema,
  ListResourceTemplatesResultSchema,
  ListToolsRequestSchema,
  ListToolsResultSchema,
  McpError,
  type Progress,
  ReadResourceRequestSchema,
  ReadResourceResultSchema,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { VERSION } from '../version.js';
import type { UpstreamSpec } from './config.js';
import { type Timers, Upstream, type UpstreamHealth, type UpstreamOptions } from './upstream.js';

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
  /** A fresh proxy server for one request to /mcp/<label>. */
  createProxyServer(label: string): Server;
  createServer(label: string): Server;
  upstream(label: string): Upstream | undefined;
  close(): Promise<void>;
}

/** Starts every upstream and builds per-request proxy servers in front of them. */
export function createGateway(options: GatewayOptions): Gateway {
  const upstreams = new Map<string, Upstream>();
  for (const [label, spec] of Object.entries(options.servers)) {
    const upstream = new Upstream({
      label,
      spec,
      logger: options.logger,
      ...(options.callTimeoutMs !== undefined ? { callTimeoutMs: options.callTimeoutMs } : {}),
      ...(options.timers ? { timers: options.timers } : {}),
      ...(options.backoff ? { backoff: options.backoff } : {}),
    });
    upstreams.set(label, upstream);
    upstream.start();
  }
  const createProxyServer = (label: string): Server => {
    const upstream = upstreams.get(label);
    if (!upstream) throw new Error(`no upstream is labelled "${label}"`);
    return proxyServer(upstream);
  };
  return {
    labels: () => [...upstreams.keys()],
    has: (label) => upstreams.has(label),
    health: () => [...upstreams.values()].map((u) => u.health()),
    tokenFor: (label) => (upstreams.has(label) ? options.servers[label]?.token : undefined),
    createProxyServer,
    createServer: createProxyServer,
    upstream: (label) => upstreams.get(label),
    async close() {
      await Promise.all([...upstreams.values()].map((u) => u.close()));
    },
  };
}

/** What the proxy can forward of what the upstream offers; all three while it is unknown. */
function forwardable(caps: ServerCapabilities | undefined): ServerCapabilities {
  if (caps === undefined) return { tools: {}, resources: {}, prompts: {} };
  const out: ServerCapabilities = {};
  if (caps.tools) out.tools = {};
  // resources/subscribe is not forwarded, so it is not advertised.
  if (caps.resources) out.resources = {};
  if (caps.prompts) out.prompts = {};
  return out;
}

/** The most of an upstream's error message passed on: its words, not a dump. */
const MAX_ERROR_MESSAGE = 2_000;

/**
 * Nesting an upstream's answer may have: far more than any tool result needs, far less than it
 * takes JSON.stringify to overflow the stack (which left the caller without an answer).
 */
const MAX_ANSWER_DEPTH = 256;

/** The upstream's error with the label in front, its message cut; a JSON-RPC error either way. */
function labelled(label: string, error: unknown): McpError {
  const cut = (message: string) =>
    message.length > MAX_ERROR_MESSAGE
      ? `${message.slice(0, MAX_ERROR_MESSAGE)}... (${message.length} characters in all)`
      : message;
  if (error instanceof McpError) {
    const message = cut(error.message.replace(/^MCP error -?\d+: /, ''));
    const data = deeperThan(error.data, MAX_ANSWER_DEPTH) ? undefined : error.data;
    return new McpError(error.code, `upstream "${label}": ${message}`, data);
  }
  return new McpError(
    ErrorCode.InternalError,
    `upstream "${label}": ${cut((error as Error).message)}`,
  );
}

/** Whether `value` nests arrays and objects more than `max` deep; no recursion. */
function deeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= max) return true;
    for (const child of Object.values(item)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * A low-level SDK Server advertising the upstream's capabilities, whose handlers forward each
 * request to the upstream Client. Progress from the upstream goes back to the caller.
 */
function proxyServer(upstream: Upstream): Server {
  const caps = forwardable(upstream.capabilities);
  const server = new Server(
    {
      name: upstream.serverInfo?.name ?? upstream.label,
      version: upstream.serverInfo?.version ?? VERSION,
    },
    {
      capabilities: caps,
      ...(upstream.instructions ? { instructions: upstream.instructions } : {}),
    },
  );

  type Extra = Parameters<Parameters<typeof server.setRequestHandler>[1]>[1];
  const forward = async <T>(
    extra: Extra,
    send: (
      client: ReturnType<Upstream['connectedClient']>,
      options: ReturnType<Upstream['requestOptions']>,
    ) => Promise<T>,
  ): Promise<T> => {
    const client = upstream.connectedClient();
    const progressToken = extra._meta?.progressToken;
    const onprogress =
      progressToken === undefined
        ? undefined
        : (progress: Progress) =>
            void extra
              .sendNotification({
                method: 'notifications/progress',
                params: { ...progress, progressToken },
              })
              .catch(() => {});
    let answer: T;
    try {
      answer = await send(client, upstream.requestOptions(extra.signal, onprogress));
    } catch (error) {
      throw labelled(upstream.label, error);
    }
    if (deeperThan(answer, MAX_ANSWER_DEPTH)) {
      throw new McpError(
        ErrorCode.InternalError,
        `upstream "${upstream.label}": its answer nests arrays and objects more than ${MAX_ANSWER_DEPTH} deep, which the gateway does not pass on`,
      );
    }
    return answer;
  };
  // The caller's progress token is replaced by the gateway's own on the way up.
  const upstreamRequest = <R extends { method: string; params?: Record<string, unknown> }>(
    r: R,
  ) => {
    const params = r.params ? { ...r.params } : undefined;
    if (params?._meta) {
      const { progressToken: _dropped, ...meta } = params._meta as Record<string, unknown>;
      params._meta = meta;
    }
    return params ? { method: r.method, params } : { method: r.method };
  };

  if (caps.tools) {
    server.setRequestHandler(ListToolsRequestSchema, (r, extra) =>
      forward(extra, (c, o) => c.request(upstreamRequest(r) as never, ListToolsResultSchema, o)),
    );
    server.setRequestHandler(CallToolRequestSchema, (r, extra) =>
      forward(extra, (c, o) => c.request(upstreamRequest(r) as never, CallToolResultSchema, o)),
    );
  }
  if (caps.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, (r, extra) =>
      forward(extra, (c, o) =>
        c.request(upstreamRequest(r) as never, ListResourcesResultSchema, o),
      ),
    );
    server.setRequestHandler(ListResourceTemplatesRequestSchema, (r, extra) =>
      forward(extra, (c, o) =>
        c.request(upstreamRequest(r) as never, ListResourceTemplatesResultSchema, o),
      ),
    );
    server.setRequestHandler(ReadResourceRequestSchema, (r, extra) =>
      forward(extra, (c, o) => c.request(upstreamRequest(r) as never, ReadResourceResultSchema, o)),
    );
  }
  if (caps.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, (r, extra) =>
      forward(extra, (c, o) => c.request(upstreamRequest(r) as never, ListPromptsResultSchema, o)),
    );
    server.setRequestHandler(GetPromptRequestSchema, (r, extra) =>
      forward(extra, (c, o) => c.request(upstreamRequest(r) as never, GetPromptResultSchema, o)),
    );
  }
  return server;
}
