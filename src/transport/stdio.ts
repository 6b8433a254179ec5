import type { Readable, Writable } from 'node:stream';
import type {
  JSONRPCErrorResponse,
  JSONRPCMessage,
  McpServer,
  Transport,
} from '@modelcontextprotocol/server';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Logger } from 'pino';
import { checkLine, rpcError } from './jsonrpc.js';

/** The largest message read from stdin; a longer line is refused and skipped, not buffered. */
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export interface StdioOptions {
  stdin?: Readable;
  stdout?: Writable;
  /** Where refused messages are logged (one line each); stdout stays the protocol's. */
  logger?: Logger;
  maxMessageBytes?: number;
}

/**
 * MCP over newline-delimited JSON on stdin/stdout. Unlike the SDK's StdioServerTransport, which
 * closes on an oversized message and drops malformed ones without a word, every line that is
 * not a valid message is answered with a JSON-RPC error (-32700, -32600, -32602), logged, and
 * skipped; the session goes on. A line is buffered up to `maxMessageBytes`, no further.
 */
class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly stdin: Readable;
  private readonly stdout: Writable;
  private readonly logger: Logger | undefined;
  private readonly max: number;
  /** The pieces of the line being read, `length` bytes in all (counted past `max` too). */
  private pieces: Buffer[] = [];
  private length = 0;
  private closed = false;
  /** Settles when the transport closes: stdin ended, stdout broke, or close() was called. */
  readonly ended: Promise<void>;
  private markEnded: () => void = () => {};
  /** Settles once a first message was written to stdout. */
  readonly answered: Promise<void>;
  private markAnswered: () => void = () => {};

  constructor(options: StdioOptions = {}) {
    this.stdin = options.stdin ?? process.stdin;
    this.stdout = options.stdout ?? process.stdout;
    this.logger = options.logger;
    this.max = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.ended = new Promise((resolve) => {
      this.markEnded = resolve;
    });
    this.answered = new Promise((resolve) => {
      this.markAnswered = resolve;
    });
  }

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
    this.stdin.once('end', this.onEnd);
    // The client closed its end of our stdout (EPIPE): it left, as if it had closed stdin.
    // Left attached after close: a write still in flight must not become an unhandled error.
    this.stdout.on('error', this.onStdoutError);
  }

  send(message: JSONRPCMessage | JSONRPCErrorResponse[]): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed || this.stdout.destroyed) return resolve();
      const flushed = this.stdout.write(`${JSON.stringify(message)}\n`);
      this.markAnswered();
      if (flushed) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStreamError);
    this.stdin.off('end', this.onEnd);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.pieces = [];
    this.markEnded();
    this.onclose?.();
  }

  private readonly onStreamError = (error: Error) => this.onerror?.(error);
  private readonly onStdoutError = (error: Error) => {
    if (this.closed) return;
    this.logger?.warn({ err: error.message }, 'stdio: stdout is closed: the client left');
    void this.close();
  };
  private readonly onEnd = () => void this.close();

  private readonly onData = (chunk: Buffer | string) => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    while (start <= data.length) {
      const newline = data.indexOf(0x0a, start);
      const end = newline === -1 ? data.length : newline;
      // Past the cap the line's bytes are only counted: memory stays bounded whatever is sent.
      if (this.length + (end - start) <= this.max) {
        if (end > start) this.pieces.push(Buffer.from(data.subarray(start, end)));
      } else {
        this.pieces = [];
      }
      this.length += end - start;
      if (newline === -1) return;
      const bytes = this.length;
      const line = bytes <= this.max ? Buffer.concat(this.pieces).toString('utf8') : undefined;
      this.pieces = [];
      this.length = 0;
      start = newline + 1;
      if (line === undefined) this.refuseOversized(bytes);
      else this.handleLine(line.replace(/\r$/, ''));
    }
  };

  private handleLine(line: string): void {
    if (line.trim() === '') return;
    const checked = checkLine(line);
    if ('message' in checked) {
      try {
        this.onmessage?.(checked.message);
      } catch (error) {
        this.onerror?.(error as Error);
      }
      return;
    }
    this.refuse(checked.reply, Buffer.byteLength(line));
  }

  private refuseOversized(bytes: number): void {
    const message = `invalid request: a message of ${bytes} bytes is over the ${this.max}-byte limit: send less per call (e.g. split the content)`;
    this.refuse(rpcError(ProtocolErrorCode.InvalidRequest, message), bytes);
  }

  private refuse(reply: JSONRPCErrorResponse | JSONRPCErrorResponse[], bytes: number): void {
    const first = Array.isArray(reply) ? reply[0] : reply;
    // The line itself is never logged: it may hold anything, secrets included.
    this.logger?.warn(
      { code: first?.error.code, bytes },
      `stdio: refused a message: ${first?.error.message}`,
    );
    this.send(reply).catch((error: Error) => this.onerror?.(error));
  }
}

export interface StdioConnection {
  /** Settles when the client closes its end (stdin ends, or the transport closes). */
  closed: Promise<void>;
  /**
   * Settles once the first answer was written: the handshake's, or a 2026-07-28 client's first
   * call (it sends no handshake). Never when the client leaves before one.
   */
  answered: Promise<void>;
  /** Disconnects the server: stdin is no longer read. */
  close(): Promise<void>;
}

/**
 * Serves the server `factory` builds on stdin/stdout (or the given streams): the opening message
 * picks the revision (a 2026-07-28 request, or an initialize of an earlier one), and one server
 * serves the connection from then on.
 */
export function connectStdio(
  factory: () => McpServer,
  options: StdioOptions = {},
): StdioConnection {
  const transport = new StdioLineTransport(options);
  const handle = serveStdio(factory, {
    transport,
    // What the SDK refuses is logged without the message, which may hold anything.
    onerror: (error) => options.logger?.warn({ err: error.message }, 'stdio: a message failed'),
  });
  return { closed: transport.ended, answered: transport.answered, close: () => handle.close() };
}
