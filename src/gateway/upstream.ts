import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  type Implementation,
  McpError,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { LineSplitter } from '../platform/line-splitter.js';
import { VERSION } from '../version.js';
import { boundedFetch } from './bounded-fetch.js';
import { isStdioSpec, type UpstreamSpec } from './config.js';
import { ProcessGroupStdioTransport } from './process-group-stdio.js';

export type UpstreamState = 'starting' | 'ready' | 'restarting' | 'failed';

/** Time as the upstream sees it; tests pass a fake one so backoff needs no sleeping. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Milliseconds on a monotonic clock. */
  now(): number;
}

const realTimers: Timers = {
  setTimeout(fn, ms) {
    const handle = setTimeout(fn, ms);
    handle.unref();
    return handle;
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
  now: () => performance.now(),
};

export interface UpstreamOptions {
  label: string;
  spec: UpstreamSpec;
  logger: Logger;
  /** Longest wait for one forwarded request; progress notifications restart the count. */
  callTimeoutMs?: number;
  /** Longest wait for the initialize handshake (npx may download the server first). */
  startTimeoutMs?: number;
  /** Restart delays: initialMs, doubling per failed start, capped at maxMs. */
  backoff?: { initialMs: number; maxMs: number };
  /** Up this long before dying, the backoff starts again from initialMs. */
  stableMs?: number;
  timers?: Timers;
}

export interface UpstreamHealth {
  label: string;
  state: UpstreamState;
  tools?: number;
  restarts: number;
}

const DEFAULT_CALL_TIMEOUT_MS = 10 * 60_000;
/** The largest message read from an HTTP upstream, as from a stdio one. */
const MAX_ANSWER_BYTES = 10 * 1024 * 1024;
/** The most of one line of an upstream's stderr that is logged. */
const STDERR_LINE = 4096;

/**
 * One upstream MCP server behind the gateway: a long-lived stdio child in its own process
 * group (restarted with backoff when it dies) or a streamable HTTP endpoint, wrapped in an SDK Client.
 */
export class Upstream {
  readonly label: string;
  private readonly spec: UpstreamSpec;
  private readonly logger: Logger;
  private readonly timers: Timers;
  private readonly callTimeoutMs: number;
  private readonly startTimeoutMs: number;
  private readonly backoff: { initialMs: number; maxMs: number };
  private readonly stableMs: number;

  private current: UpstreamState = 'starting';
  private client: Client | undefined;
  /** Bumped per connection attempt, so events of an old child are ignored. */
  private generation = 0;
  private failures = 0;
  private restarts = 0;
  private readySince = 0;
  private timer: unknown;
  private closed = false;
  private toolCount: number | undefined;
  /** Kept across restarts, so a proxy built while the upstream is down still advertises them. */
  capabilities: ServerCapabilities | undefined;
  serverInfo: Implementation | undefined;
  instructions: string | undefined;

  constructor(options: UpstreamOptions) {
    this.label = options.label;
    this.spec = options.spec;
    this.logger = options.logger.child({ upstream: options.label });
    this.timers = options.timers ?? realTimers;
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.startTimeoutMs = options.startTimeoutMs ?? 120_000;
    this.backoff = options.backoff ?? { initialMs: 500, maxMs: 30_000 };
    this.stableMs = options.stableMs ?? 30_000;
  }

  get state(): UpstreamState {
    return this.current;
  }

  health(): UpstreamHealth {
    const h: UpstreamHealth = { label: this.label, state: this.current, restarts: this.restarts };
    if (this.toolCount !== undefined) h.tools = this.toolCount;
    return h;
  }

  start(): void {
    void this.connect();
  }

  /** Resolves once the state is `ready` (or rejects after `timeoutMs`); for tests and startup. */
  async whenReady(timeoutMs = 10_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (this.current !== 'ready') {
      if (performance.now() > deadline) {
        throw new Error(`upstream "${this.label}" is not ready after ${timeoutMs} ms`);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** The connected client, or a JSON-RPC error naming the label while it is down. */
  connectedClient(): Client {
    if (this.current !== 'ready' || this.client === undefined) {
      throw new McpError(
        ErrorCode.ConnectionClosed,
        `upstream "${this.label}" is not available (${this.current}): try again shortly`,
      );
    }
    return this.client;
  }

  /** Options for a forwarded request: the call timeout, cancellation, progress. */
  requestOptions(signal: AbortSignal, onprogress?: RequestOptions['onprogress']): RequestOptions {
    const options: RequestOptions = {
      signal,
      timeout: this.callTimeoutMs,
      resetTimeoutOnProgress: true,
    };
    if (onprogress) options.onprogress = onprogress;
    return options;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.generation++;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    const client = this.client;
    this.client = undefined;
    // Ends stdin, then sends the child's process group SIGTERM, then SIGKILL.
    await client?.close().catch(() => {});
  }

  private makeTransport(): Transport {
    const spec = this.spec;
    if (isStdioSpec(spec)) {
      const transport = new ProcessGroupStdioTransport({
        command: spec.command,
        args: spec.args,
        ...(spec.env ? { env: spec.env } : {}),
        ...(spec.cwd ? { cwd: spec.cwd } : {}),
      });
      // A line at most STDERR_LINE bytes in the log, the rest counted: readline held a line
      // that never ends whole.
      const lines = new LineSplitter(STDERR_LINE, (line, bytes) => {
        const text = line.toString('utf8').replace(/\r$/, '');
        this.logger.info(
          bytes > STDERR_LINE ? { stderr: text, bytes } : { stderr: text },
          'upstream stderr',
        );
      });
      transport.stderr.on('data', (chunk: Buffer) => lines.push(chunk));
      return transport;
    }
    // Past the cap the upstream is closed, as a stdio one is: the calls waiting end now.
    const transport: StreamableHTTPClientTransport = new StreamableHTTPClientTransport(
      new URL(spec.url),
      {
        requestInit: { headers: spec.headers ?? {} },
        fetch: boundedFetch(MAX_ANSWER_BYTES, () => void transport.close().catch(() => {})),
      },
    );
    return transport;
  }

  private async connect(): Promise<void> {
    const generation = ++this.generation;
    const client = new Client({ name: 'mnemo-gateway', version: VERSION }, { capabilities: {} });
    client.onclose = () => this.lost(generation);
    client.onerror = (error) =>
      this.logger.debug({ err: error.message }, 'upstream transport error');
    try {
      await client.connect(this.makeTransport(), { timeout: this.startTimeoutMs });
    } catch (error) {
      await client.close().catch(() => {});
      if (generation !== this.generation || this.closed) return;
      this.logger.warn({ err: (error as Error).message }, 'upstream did not start');
      this.current = 'failed';
      this.scheduleRestart();
      return;
    }
    if (generation !== this.generation || this.closed) {
      await client.close().catch(() => {});
      return;
    }
    this.client = client;
    this.capabilities = client.getServerCapabilities();
    this.serverInfo = client.getServerVersion();
    this.instructions = client.getInstructions();
    this.current = 'ready';
    this.readySince = this.timers.now();
    this.logger.info({ server: this.serverInfo?.name }, 'upstream ready');
    if (this.capabilities?.tools) {
      client.listTools().then(
        ({ tools }) => {
          if (generation === this.generation) this.toolCount = tools.length;
        },
        () => {},
      );
    }
  }

  private lost(generation: number): void {
    // A failed start is handled in connect(); only a live connection counts as lost here.
    if (generation !== this.generation || this.closed || this.current !== 'ready') return;
    this.client = undefined;
    this.current = 'restarting';
    if (this.timers.now() - this.readySince >= this.stableMs) this.failures = 0;
    this.logger.warn('upstream connection lost: restarting');
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    const delay = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** this.failures);
    this.failures++;
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      if (this.closed) return;
      this.restarts++;
      void this.connect();
    }, delay);
  }
}
