// Answers of /mcp/<label> written to the node response: JSON, or SSE once progress comes.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A request header as one string (repeated ones joined, as fetch joins them). */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Whether the caller's Accept takes `type`. */
export function accepts(req: IncomingMessage, type: string): boolean {
  const accept = req.headers.accept ?? '';
  return accept.includes(type) || accept.includes('*/*');
}

/** A JSON answer with its length. */
export function reply(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** The answer: a JSON body, or the last event of a stream that progress opened. */
export function send(res: ServerResponse, body: unknown, events: EventStream | undefined): void {
  if (res.destroyed) return;
  if (events?.started) {
    events.send(body);
    res.end();
  } else {
    reply(res, 200, body);
  }
}

/** An answer that became an SSE stream when the first progress notification came. */
export class EventStream {
  started = false;
  constructor(private readonly res: ServerResponse) {}
  send(message: unknown): void {
    if (this.res.destroyed) return;
    if (!this.started) {
      this.started = true;
      this.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    }
    this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }
}
