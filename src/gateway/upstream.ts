import {
  Client,
  type Implementation,
  SdkError,
  SdkErrorCode,
  type ServerCapabilities,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import type { Logger } from 'pino';
import { LineSplitter } from '../platform/line-splitter.js';
import { VERSION } from '../version.js';
import { boundedFetch } from './bounded-fetch.js';
import { type Call, Channel, type Progress } from './channel.js';
import { isStdioSpec, type UpstreamSpec } from './config.js';
import { type Era, paramsForUpstream } from './eras.js';
import { transportFault, UPSTREAM_FAULT, UpstreamError } from './errors.js';
import { ProcessGroupStdioTransport } from './process-group-stdio.js';
import { realTimers, type Timers } from './timers.js';

export type { Timers } from './timers.js';

export type UpstreamState = 'starting' | 'ready' | 'restarting' | 'failed';

export interface UpstreamOptions {
  label: string;
  spec: UpstreamSpec;
  logger: Logger;
  /** Longest wait for one forwarded request; progress notifications restart the count. */
  callTimeoutMs?: number;
  /** Longest wait for the opening exchange (npx may download the server first). */
  startTimeoutMs?: number;
  /**
   * Longest wait for an answer to server/discover over stdio: a 2025-era server that never
   * answers it is taken for one that speaks 2025 only, and initialized.
   */
  probeTimeoutMs?: number;
  /** Restart delays: initialMs, doubling per failed start, capped at maxMs. */
  backoff?: { initialMs: number; maxMs: number };
  /** Up this long before dying, the backoff starts again from initialMs. */
  stableMs?: number;
  timers?: Timers;
}

export interface UpstreamHealth {
  label: string;
  state: UpstreamState;
  /** The revision it speaks: 2026-07-28, or a 2025 one after initialize. */
  protocolVersion?: string;
  tools?: number;
  restarts: number;
}

/** What a connected upstream said of itself; kept across restarts, so its route can still answer. */
export interface UpstreamIdentity {
  capabilities: ServerCapabilities;
  serverInfo: Implementation | undefined;
  instructions: string | undefined;
}

/** Who the gateway says it is to an upstream, for callers that said nothing. */
const GATEWAY_INFO = { name: 'mnemo-gateway', version: VERSION };

const DEFAULT_CALL_TIMEOUT_MS = 10 * 60_000;
/** The largest message read from an HTTP upstream, as from a stdio one. */
const MAX_ANSWER_BYTES = 10 * 1024 * 1024;
/** The most of one line of an upstream's stderr that is logged. */
const STDERR_LINE = 4096;
/** The longest wait to reopen an HTTP upstream's SSE stream, whatever its `retry:` says. */
const MAX_RECONNECT_MS = 30_000;

/**
 * One upstream MCP server behind the gateway: a long-lived stdio child in its own process group
 * (restarted with backoff when it dies) or a streamable HTTP endpoint. An SDK Client opens it in
 * the revision it speaks (server/discover first, initialize when it does not know that); the
 * gateway's own requests then go over the same transport as raw JSON-RPC (see Channel).
 */
export class Upstream {
  readonly label: string;
  private readonly spec: UpstreamSpec;
  private readonly logger: Logger;
  private readonly timers: Timers;
  private readonly callTimeoutMs: number;
  private readonly startTimeoutMs: number;
  private readonly probeTimeoutMs: number;
  private readonly backoff: { initialMs: number; maxMs: number };
  private readonly stableMs: number;

  private current: UpstreamState = 'starting';
  private client: Client | undefined;
  private channel: Channel | undefined;
  /** Bumped per connection attempt, so events of an old child are ignored. */
  private generation = 0;
  private failures = 0;
  private restarts = 0;
  private readySince = 0;
  private timer: unknown;
  /** When the scheduled restart runs, on `timers.now()`. */
  private restartAt = 0;
  private closed = false;
  private toolCount: number | undefined;
  /** Set once the server died on server/discover: it is opened with initialize from then on. */
  private legacyOnly = false;
  private negotiated: { era: Era; version: string } | undefined;
  /** Kept across restarts, so the route still says what the upstream offers while it is down. */
  identity: UpstreamIdentity | undefined;

  constructor(options: UpstreamOptions) {
    this.label = options.label;
    this.spec = options.spec;
    this.logger = options.logger.child({ upstream: options.label });
    this.timers = options.timers ?? realTimers;
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.startTimeoutMs = options.startTimeoutMs ?? 120_000;
    this.probeTimeoutMs = options.probeTimeoutMs ?? 10_000;
    this.backoff = options.backoff ?? { initialMs: 500, maxMs: 30_000 };
    this.stableMs = options.stableMs ?? 30_000;
  }

  get state(): UpstreamState {
    return this.current;
  }

  /** The era and revision of the live connection; undefined while there is none. */
  get protocol(): { era: Era; version: string } | undefined {
    return this.current === 'ready' ? this.negotiated : undefined;
  }

  /** The gateway's requests to it that await an answer. */
  get inFlight(): number {
    return this.channel?.inFlight ?? 0;
  }

  health(): UpstreamHealth {
    const h: UpstreamHealth = { label: this.label, state: this.current, restarts: this.restarts };
    if (this.negotiated) h.protocolVersion = this.negotiated.version;
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

  /**
   * Sends one request as raw JSON-RPC, the caller's params put in the upstream's era (see
   * paramsForUpstream). Throws an UpstreamError with a retry delay while the upstream is down
   * (nothing was sent).
   */
  call(
    method: string,
    params: Record<string, unknown> | undefined,
    onProgress?: (progress: Progress) => void,
  ): Call {
    const channel = this.channel;
    const protocol = this.negotiated;
    if (this.current !== 'ready' || channel === undefined || protocol === undefined) {
      throw this.unavailable();
    }
    return channel.call(method, paramsForUpstream(params, protocol, GATEWAY_INFO), onProgress);
  }

  /** The error for a call while the upstream is not ready: when to try again, in seconds. */
  unavailable(): UpstreamError {
    const seconds = Math.max(1, Math.ceil((this.restartAt - this.timers.now()) / 1000));
    const why: Record<UpstreamState, string> = {
      starting: 'is starting',
      restarting: 'is restarting',
      failed: 'failed to start and is being restarted',
      ready: 'is not connected',
    };
    return new UpstreamError(
      UPSTREAM_FAULT,
      `upstream "${this.label}" ${why[this.current]}: retry in a moment`,
      seconds,
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    this.generation++;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    const client = this.client;
    this.client = undefined;
    this.channel?.close(new UpstreamError(UPSTREAM_FAULT, `upstream "${this.label}" is closed`));
    this.channel = undefined;
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
    const timers = this.timers;
    // Past the cap the upstream is closed, as a stdio one is: the calls waiting end now.
    const transport: StreamableHTTPClientTransport = new StreamableHTTPClientTransport(
      new URL(spec.url),
      {
        requestInit: { headers: spec.headers ?? {} },
        fetch: boundedFetch(MAX_ANSWER_BYTES, () => void transport.close().catch(() => {})),
        // On the gateway's timers, which hold no process open: the SDK's setTimeout waited as
        // long as the upstream's `retry:` said (days, if it said so), and close() cancels only
        // the last one, so a closed gateway's process did not exit.
        reconnectionScheduler: (reconnect, delay) => {
          const handle = timers.setTimeout(reconnect, Math.min(delay, MAX_RECONNECT_MS));
          return () => timers.clearTimeout(handle);
        },
      },
    );
    return transport;
  }

  private async connect(): Promise<void> {
    const generation = ++this.generation;
    const client = new Client(
      GATEWAY_INFO,
      this.legacyOnly
        ? { capabilities: {} }
        : {
            capabilities: {},
            versionNegotiation: { mode: 'auto', probe: { timeoutMs: this.probeTimeoutMs } },
          },
    );
    client.onclose = () => this.lost(generation);
    // What failed, never the message: the SDK's holds the upstream's answer (see transportFault).
    client.onerror = (error) =>
      this.logger.debug({ err: transportFault(error) }, 'upstream transport error');
    const transport = this.makeTransport();
    try {
      await client.connect(transport, { timeout: this.startTimeoutMs });
    } catch (error) {
      await client.close().catch(() => {});
      if (generation !== this.generation || this.closed) return;
      if (diedOnProbe(error) && !this.legacyOnly) {
        // Servers on some SDKs exit on any request before initialize: initialize them at once.
        this.legacyOnly = true;
        this.logger.warn('upstream exited on server/discover: opening it with initialize');
      } else {
        this.logger.warn({ err: transportFault(error) }, 'upstream did not start');
      }
      this.current = 'failed';
      this.scheduleRestart();
      return;
    }
    if (generation !== this.generation || this.closed) {
      await client.close().catch(() => {});
      return;
    }
    const era = client.getProtocolEra() ?? 'legacy';
    const version = client.getNegotiatedProtocolVersion() ?? '';
    const channel = new Channel(transport, {
      label: this.label,
      timers: this.timers,
      timeoutMs: this.callTimeoutMs,
      cancelByAbort: era === 'modern' && transport.hasPerRequestStream === true,
    });
    tap(transport, channel);
    this.client = client;
    this.channel = channel;
    this.negotiated = { era, version };
    this.identity = {
      capabilities: client.getServerCapabilities() ?? {},
      serverInfo: client.getServerVersion(),
      instructions: client.getInstructions(),
    };
    this.current = 'ready';
    this.readySince = this.timers.now();
    this.logger.info({ server: this.identity.serverInfo?.name, version }, 'upstream ready');
    if (this.identity.capabilities.tools) {
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
    this.channel?.close(
      new UpstreamError(
        UPSTREAM_FAULT,
        `upstream "${this.label}" closed its connection before answering; it is restarting`,
      ),
    );
    this.channel = undefined;
    this.current = 'restarting';
    if (this.timers.now() - this.readySince >= this.stableMs) this.failures = 0;
    this.logger.warn('upstream connection lost: restarting');
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    const delay = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** this.failures);
    this.failures++;
    this.restartAt = this.timers.now() + delay;
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      if (this.closed) return;
      this.restarts++;
      void this.connect();
    }, delay);
  }
}

/**
 * Routes what the transport reads to the channel first: on our stdio transport before the SDK's
 * schema check (answers to the gateway skip it), on any other by wrapping the Client's handler.
 */
function tap(transport: Transport, channel: Channel): void {
  if (transport instanceof ProcessGroupStdioTransport) {
    transport.claim = (value) => channel.claim(value);
    return;
  }
  const inner = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (!channel.claim(message)) inner?.call(transport, message, extra);
  };
}

/** The connect failed because the server closed the connection on server/discover. */
function diedOnProbe(error: unknown): boolean {
  return (
    error instanceof SdkError &&
    error.code === SdkErrorCode.EraNegotiationFailed &&
    /closed during the server\/discover probe/.test(error.message)
  );
}
