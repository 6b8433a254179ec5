import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import { createServer } from '../../src/server.js';
import { createHttpApp } from '../../src/transport/http.js';
import { listen, type RunningHttp } from '../../src/transport/listen.js';
import { parseTokenFile } from '../../src/transport/tokens.js';
import { openTestMemory, type TestMemory } from '../support.js';
import {
  assertNoInternals,
  bounded,
  clip,
  hostileJson,
  hostileText,
  rpcish,
  timeBoxed,
} from './hostile.js';

// The HTTP edge (src/transport/http.ts) under arbitrary methods, paths, headers and bodies. What
// must hold: a 500 only as the generic internal error (nothing of what went wrong), a JSON body
// that is a JSON-RPC answer (or /health's), no stack or path of this machine in the body or a
// header, no token echoed, and a valid call answered afterwards.

const TOKEN = 'fuzz-token-0123456789abcdef';
const TOKEN_B = 'fuzz-token-b-0123456789abcdef';
const INTERNAL = '{"jsonrpc":"2.0","error":{"code":-32603,"message":"internal error"},"id":null}';

let t: TestMemory;
let server: RunningHttp;
let host: string;

before(async () => {
  t = await openTestMemory();
  const app = createHttpApp({
    createMcpServer: (namespace) =>
      createServer({ memory: t.opened.memoryFor(namespace), logger: t.logger }),
    authToken: TOKEN,
    tokens: parseTokenFile(`${TOKEN_B} b,shared\n`, 'tokens.txt'),
    allowedHosts: ['*.trycloudflare.com'],
    bodyLimit: '64kb',
    logger: pino({ level: 'silent' }),
    health: () => ({ status: 'ok', upstreams: [] }),
    rateLimitPerMinute: 1_000_000,
  });
  server = await listen(app, '127.0.0.1', 0);
  host = new URL(server.url).host;
});

after(async () => {
  await server.close(100);
  await t.close();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: new URL(server.url).port, method, path, headers, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          text += d;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A header value node's client will send: no CR, LF, NUL or other control character. */
const headerValue = hostileText.map((v) =>
  v.replace(/[^\t\x20-\x7e\x80-\xff]/g, '').slice(0, 4000),
);

const pathOf = fc.oneof(
  fc.constantFrom(
    '/mcp',
    '/mcp/',
    '/mcp/x',
    '/mcp/%2e%2e',
    '/mcp/..%2f..%2fetc%2fpasswd',
    '/mcp?namespace=b',
    '/mcp?namespace=../../x',
    '//mcp',
    '/MCP',
    '/health',
    '/health/../mcp',
    '/ui',
    '/ui/api/memories',
    '/%00',
    '/mcp%00',
    '*',
  ),
  headerValue.map((p) => `/${encodeURI(p).slice(0, 2000)}`),
);

const headersOf = fc.record(
  {
    host: fc.oneof(
      fc.constant('HOST'),
      fc.constantFrom('evil.example.com', 'a.trycloudflare.com', 'localhost', '[::1]:1', ''),
      headerValue,
    ),
    origin: fc.oneof(
      fc.constantFrom('null', 'https://evil.example.com', 'http://HOST'),
      headerValue,
    ),
    'content-type': fc.oneof(
      fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'application/json; charset=utf-16',
        'application/json; charset=nope',
        'text/plain',
        'multipart/form-data; boundary=x',
        'application/x-www-form-urlencoded',
      ),
      headerValue,
    ),
    'content-encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-nope'),
    accept: fc.oneof(
      fc.constantFrom(
        'application/json, text/event-stream',
        'application/json',
        'text/event-stream',
        '*/*',
      ),
      headerValue,
    ),
    authorization: fc.oneof(
      fc.constantFrom(
        `Bearer ${TOKEN}`,
        `bearer\t${TOKEN}`,
        TOKEN,
        `Bearer ${TOKEN_B}`,
        'Bearer',
        'Basic dXNlcjpwYXNz',
      ),
      headerValue.map((v) => `Bearer ${v}`),
      headerValue,
    ),
    'mcp-session-id': headerValue,
    'mcp-protocol-version': fc.oneof(
      fc.constantFrom('2025-06-18', '2025-03-26', '1999-01-01'),
      headerValue,
    ),
    'sec-fetch-site': fc.constantFrom('same-origin', 'cross-site', 'none'),
  },
  { requiredKeys: [] },
);

const bodyOf = fc.oneof(
  { weight: 4, arbitrary: rpcish.map((m) => JSON.stringify(m)) },
  { weight: 1, arbitrary: fc.array(rpcish, { maxLength: 3 }).map((b) => JSON.stringify(b)) },
  { weight: 2, arbitrary: hostileText },
  { weight: 1, arbitrary: hostileJson.map((v) => JSON.stringify(v) ?? '') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(undefined, '', '{', '{"jsonrpc":"2.0"', `"${'a'.repeat(70_000)}"`),
  },
);

const METHODS = ['POST', 'GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];

/** A valid call after the garbage: the server still answers. */
async function stillServes(): Promise<void> {
  const res = await send(
    'POST',
    '/mcp',
    {
      host,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${TOKEN}`,
    },
    JSON.stringify({ jsonrpc: '2.0', id: 'after', method: 'tools/list' }),
  );
  assert.equal(res.status, 200, `a valid call after the garbage: ${res.status} ${clip(res.body)}`);
  assert.ok((JSON.parse(res.body) as { result: { tools: unknown[] } }).result.tools.length > 10);
}

function checkAnswer(method: string, path: string, res: Answer): void {
  const shown = `${method} ${clip(path, 80)} -> ${res.status} ${clip(res.body)}`;
  // A 500 is an error mnemo did not map: it must say nothing of it.
  if (res.status === 500)
    assert.equal(res.body, INTERNAL, `a 500 with more than it should: ${shown}`);
  assertNoInternals(res.body, 'an HTTP answer');
  assertNoInternals(JSON.stringify(res.headers), 'an HTTP header');
  for (const token of [TOKEN, TOKEN_B]) {
    assert.ok(!res.body.includes(token), `a token in the answer: ${shown}`);
  }
  if (method === 'HEAD' || res.body === '') return;
  assert.match(res.headers['content-type'] ?? '', /json/, `not JSON: ${shown}`);
  const parsed = JSON.parse(res.body) as Record<string, unknown> | Record<string, unknown>[];
  if (path.startsWith('/health') && res.status === 200) return;
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    assert.equal(message.jsonrpc, '2.0', `not a JSON-RPC answer: ${shown}`);
    if (res.status >= 400) {
      const error = message.error as { code?: unknown; message?: unknown } | undefined;
      assert.equal(typeof error?.code, 'number', `an error without a code: ${shown}`);
      assert.ok(typeof error?.message === 'string' && error.message !== '', `no message: ${shown}`);
    }
  }
}

describe('fuzz: the HTTP edge', () => {
  it('answers a body its parser refuses (Content-Encoding, charset) with a 4xx naming the header', async () => {
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const faults: Record<string, string>[] = [
      { 'content-encoding': 'gzip' },
      { 'content-encoding': 'x-nope' },
      { 'content-type': 'application/json; charset=nope' },
    ];
    for (const headers of faults) {
      const res = await send(
        'POST',
        '/mcp',
        {
          host,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${TOKEN}`,
          ...headers,
        },
        ping,
      );
      assert.ok(res.status >= 400 && res.status < 500, `${JSON.stringify(headers)}: ${res.status}`);
    }
  });

  it('answers a caller with the token whatever the body, its type and encoding', async () => {
    // With the right Host and token, so the garbage reaches the body parser and the MCP server.
    await fc.assert(
      fc.asyncProperty(
        headersOf,
        bodyOf,
        timeBoxed(3, async (headers, body) => {
          const sent: Record<string, string> = {
            ...headers,
            host,
            authorization: `Bearer ${TOKEN}`,
          };
          delete sent.origin;
          delete sent['sec-fetch-site'];
          const res = await send('POST', '/mcp', sent, body);
          checkAnswer('POST', '/mcp', res);
          await stillServes();
        }),
      ),
      bounded(300),
    );
  });

  it('answers any method, path, headers and body with JSON (a 500 only as the bare internal error) and keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...METHODS),
        pathOf,
        headersOf,
        bodyOf,
        timeBoxed(3, async (method, path, headers, body) => {
          const sent: Record<string, string> = {};
          for (const [name, value] of Object.entries(headers)) {
            sent[name] = value.replaceAll('HOST', host);
          }
          sent.host ??= host;
          const res = await send(
            method,
            path,
            sent,
            method === 'GET' || method === 'HEAD' ? undefined : body,
          );
          checkAnswer(method, path, res);
          await stillServes();
        }),
      ),
      bounded(300),
    );
  });
});
