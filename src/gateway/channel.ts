import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { transportFault, UPSTREAM_FAULT, UpstreamError } from './errors.js';
import type { Timers } from './timers.js';

/** An upstream's answer as it goes back to the caller: its result, or its error labelled. */
export type Answer = { result: Record<string, unknown> } | { error: RpcError };

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** The fields of a progress notification besides its token. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** One forwarded request in flight. */
export interface Call {
  answer: Promise<Answer>;
  /** The caller is gone: the upstream is told, and `answer` rejects. */
  cancel(reason: string): void;
}

export interface ChannelOptions {
  label: string;
  timers: Timers;
  /** Longest wait for an answer; each progress notification starts the count again. */
  timeoutMs: number;
  /**
   * Cancel by aborting the call's own HTTP request, the 2026-07-28 way on streamable HTTP, rather
   * than with notifications/cancelled.
   */
  cancelByAbort: boolean;
}

interface Pending {
  resolve(answer: Answer): void;
  reject(error: Error): void;
  onProgress: ((progress: Progress) => void) | undefined;
  timer: unknown;
  /** The call's own signal, given to the transport: aborted only to cancel by abort. */
  abort: AbortController;
}

/** The most of an upstream's error message passed on: its words, not a dump. */
const MAX_ERROR_MESSAGE = 2_000;

/**
 * Nesting an upstream's answer may have: far more than any tool result needs, far less than it
 * takes JSON.stringify to overflow the stack (which left the caller without an answer).
 */
export const MAX_ANSWER_DEPTH = 256;

/** Ids and progress tokens of the gateway's requests; the SDK client's own are numbers. */
const ID_PREFIX = 'mnemo-gw-';

/**
 * The gateway's requests to one connected upstream, sent as raw JSON-RPC over the transport its
 * SDK Client negotiated: each with an id and progress token of the gateway's own, its answer
 * taken off the transport before the Client sees it, checked for shape and depth, and handed
 * back unparsed by any schema. One per connection: when it closes, every call in flight ends.
 */
export class Channel {
  private readonly pending = new Map<string, Pending>();
  private next = 0;
  private closed: UpstreamError | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly options: ChannelOptions,
  ) {}

  /** Sends `method` with `params` (as the upstream's era wants them); `onProgress` asks for progress. */
  call(
    method: string,
    params: Record<string, unknown> | undefined,
    onProgress?: (progress: Progress) => void,
  ): Call {
    const id = `${ID_PREFIX}${++this.next}`;
    const answer = new Promise<Answer>((resolve, reject) => {
      if (this.closed) {
        reject(this.closed);
        return;
      }
      // Every call its own signal, even where cancelling is a notification: without one, the HTTP
      // transport gives fetch its own signal for the connection's life, and undici keeps a
      // listener on it per request until the request is collected (on Node 20, a
      // MaxListenersExceededWarning in the log after 1,500 calls between collections).
      const abort = new AbortController();
      this.pending.set(id, { resolve, reject, onProgress, timer: undefined, abort });
      this.arm(id);
      const sent = onProgress
        ? { ...params, _meta: { ...(params?._meta as object | undefined), progressToken: id } }
        : params;
      const request = { jsonrpc: '2.0', id, method, ...(sent ? { params: sent } : {}) };
      this.transport
        .send(request as JSONRPCMessage, { requestSignal: abort.signal })
        // Its status, never its message: the SDK's holds the upstream's answer (see transportFault).
        .catch((error: unknown) =>
          this.end(
            id,
            new UpstreamError(
              UPSTREAM_FAULT,
              `upstream "${this.options.label}" did not take the call: ${transportFault(error)}`,
            ),
          ),
        );
    });
    return { answer, cancel: (reason) => this.cancel(id, reason) };
  }

  /**
   * Takes what the transport read if it belongs to the gateway: an answer to one of its requests
   * (a late one, after a cancel or timeout, is dropped) or progress on one. False hands it on.
   */
  claim(value: unknown): boolean {
    if (typeof value !== 'object' || value === null) return false;
    const message = value as { id?: unknown; method?: unknown; params?: unknown };
    if (message.method === undefined) {
      if (typeof message.id !== 'string' || !message.id.startsWith(ID_PREFIX)) return false;
      const pending = this.pending.get(message.id);
      if (pending) this.settle(message.id, pending, value as Record<string, unknown>);
      return true;
    }
    if (message.method !== 'notifications/progress') return false;
    const params = message.params as { progressToken?: unknown } | undefined;
    const token = params?.progressToken;
    if (typeof token !== 'string' || !token.startsWith(ID_PREFIX)) return false;
    const pending = this.pending.get(token);
    if (pending) {
      this.arm(token);
      const { progress, total, message: text } = params as Record<string, unknown>;
      // Finite: JSON's 1e999 parses as Infinity, which JSON.stringify writes as null.
      if (Number.isFinite(progress)) {
        pending.onProgress?.({
          progress: progress as number,
          ...(Number.isFinite(total) ? { total: total as number } : {}),
          ...(typeof text === 'string' ? { message: text } : {}),
        });
      }
    }
    return true;
  }

  /** The connection is gone: every call in flight ends with `error`, and so does every later one. */
  close(error: UpstreamError): void {
    this.closed = error;
    for (const id of [...this.pending.keys()]) this.end(id, error);
  }

  get inFlight(): number {
    return this.pending.size;
  }

  private settle(id: string, pending: Pending, message: Record<string, unknown>): void {
    this.pending.delete(id);
    this.options.timers.clearTimeout(pending.timer);
    const label = this.options.label;
    const { result, error } = message;
    if (isObject(result)) {
      if (deeperThan(result, MAX_ANSWER_DEPTH)) {
        pending.reject(
          new UpstreamError(
            -32603,
            `upstream "${label}": its answer nests arrays and objects more than ${MAX_ANSWER_DEPTH} deep, which the gateway does not pass on`,
          ),
        );
      } else {
        pending.resolve({ result });
      }
      return;
    }
    if (isObject(error) && typeof error.code === 'number' && typeof error.message === 'string') {
      const data = deeperThan(error.data, MAX_ANSWER_DEPTH) ? undefined : error.data;
      const rpc: RpcError = {
        // JSON-RPC's codes are integers, and a caller's SDK drops a message with another code
        // (0.5, 1e999, 2 ** 53 + 2): its call then waits for an answer that never comes.
        code: Number.isSafeInteger(error.code) ? error.code : -32603,
        message: `upstream "${label}": ${cut(error.message)}`,
      };
      if (data !== undefined) rpc.data = data;
      pending.resolve({ error: rpc });
      return;
    }
    pending.reject(
      new UpstreamError(-32603, `upstream "${label}" answered with neither a result nor an error`),
    );
  }

  /** (Re)starts the call's timeout: it ends the call, and tells the upstream so. */
  private arm(id: string): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    const { timers, timeoutMs, label } = this.options;
    timers.clearTimeout(pending.timer);
    pending.timer = timers.setTimeout(
      () =>
        this.cancel(
          id,
          `upstream "${label}" did not answer within ${timeoutMs} ms: the call is cancelled`,
        ),
      timeoutMs,
    );
  }

  private cancel(id: string, reason: string): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    if (this.options.cancelByAbort) pending.abort.abort();
    else {
      const notice = {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: id, reason },
      };
      void this.transport.send(notice as JSONRPCMessage).catch(() => {});
    }
    this.end(id, new UpstreamError(UPSTREAM_FAULT, reason));
  }

  private end(id: string, error: UpstreamError): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    this.options.timers.clearTimeout(pending.timer);
    pending.reject(error);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An upstream's error message as passed on: any SDK prefixes off, cut to MAX_ERROR_MESSAGE. */
function cut(message: string): string {
  const bare = message.replace(/^(?:MCP error -?\d+: )+/, '');
  return bare.length > MAX_ERROR_MESSAGE
    ? `${bare.slice(0, MAX_ERROR_MESSAGE)}... (${bare.length} characters in all)`
    : bare;
}

/** Whether `value` nests arrays and objects more than `max` deep; no recursion. */
export function deeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: [object, number][] = [[value, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [item, depth] = next;
    if (depth >= max) return true;
    const children = Array.isArray(item) ? item : Object.values(item);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
