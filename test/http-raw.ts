// A request as a hostile client sends one: any method, path, headers and body, on a connection
// of its own (no agent), from another local address when asked. The fuzz tests of the HTTP edges
// send theirs through it: the SDK's client and fetch refuse most of what they try.
import http from 'node:http';

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  /** The address to send from (127.0.0.2 and up: each its own client to a rate limit). */
  localAddress?: string | undefined;
}

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: Buffer;
  /** The bytes as UTF-8. */
  text: string;
}

/** Sends `request` to the server listening at `url` (its port; the host is 127.0.0.1). */
export function rawRequest(url: string, request: RawRequest): Promise<RawAnswer> {
  const { method, path, headers = {}, body, localAddress } = request;
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: new URL(url).port,
        ...(localAddress === undefined ? {} : { localAddress }),
        method,
        path,
        headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            bytes,
            text: bytes.toString('utf8'),
          });
        });
      },
    );
    req.on('error', reject);
    // As bytes: with a string, node sends the headers in the body's encoding (UTF-8), and a
    // header's latin1 characters would reach the server as two each. With their length: node
    // frames a DELETE or OPTIONS body only with its length given.
    const bytes = body === undefined || Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
    if (bytes !== undefined && req.getHeader('content-length') === undefined) {
      req.setHeader('content-length', bytes.length);
    }
    req.end(bytes);
  });
}
