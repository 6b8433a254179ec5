import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import pino from 'pino';
import { GatewayFault, transportFault } from '../../src/gateway/errors.js';
import { createGateway } from '../../src/gateway/proxy.js';
import { createHttpApp } from '../../src/transport/http.js';
import { listen } from '../../src/transport/listen.js';
import { handshakeAnswer } from './fake-handshake.js';

/** What the gateway sends the upstream in its configured Authorization header. */
const SECRET = 'upstream-secret-7f3a9c1e5b2d4e6f';
/** A long tail to the upstream's answer: none of it, nor its size, belongs in an error. */
const TAIL = 'tail-of-the-body;'.repeat(20_000);
/** More than any message naming the upstream and a status needs; far less than a body. */
const SHORT = 300;

/**
 * A streamable HTTP upstream by hand, behind two paths. /web/mcp opens as a 2025 server
 * (initialize) and answers tools/call as the tool's name says: `refuse`, HTTP 502 with a body
 * echoing the Authorization header it was sent and the tail; `garbled`, HTTP 200 "JSON" that is
 * the header's value; `odd_type`, HTTP 200 with the header in its Content-Type. /down/mcp answers every
 * request 404 with the echo and the tail, so it never starts.
 */
function echoingUpstream(): http.Server {
  return http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString();
    });
    req.on('end', () => {
      const echo = `you sent authorization: ${req.headers.authorization ?? ''}`;
      if (req.url === '/down/mcp') {
        return void res.writeHead(404, { 'content-type': 'text/plain' }).end(`${echo}\n${TAIL}`);
      }
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const { id, method, params } = JSON.parse(body) as {
        id?: unknown;
        method: string;
        params?: { name?: string; protocolVersion?: string };
      };
      if (id === undefined) return void res.writeHead(202).end();
      const json = (value: unknown) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (method === 'server/discover') {
        return json({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
      }
      const opening = handshakeAnswer(id, method, params, 'echoing');
      if (opening) return json(opening);
      if (params?.name === 'refuse') {
        return void res.writeHead(502, { 'content-type': 'text/plain' }).end(`${echo}\n${TAIL}`);
      }
      if (params?.name === 'garbled') {
        // V8's JSON.parse error quotes the start of what it could not parse.
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(req.headers.authorization);
      }
      if (params?.name === 'odd_type') {
        return void res
          .writeHead(200, { 'content-type': `text/x-echo; sent="${req.headers.authorization}"` })
          .end(echo);
      }
      json({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'ok' }] } });
    });
  });
}

/** The shape of /mcp/<label>'s JSON answer that these calls look at. */
interface RpcAnswer {
  result?: { content?: { text?: string }[] };
  error?: { code: number; message: string };
}

describe('an HTTP upstream that refuses with a body echoing its Authorization header', () => {
  it('the caller and the log learn the upstream and the status, never the token or the body', async (t) => {
    const upstream = echoingUpstream();
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const port = (upstream.address() as { port: number }).port;
    const lines: string[] = [];
    let downLogged: () => void = () => {};
    const down = new Promise<void>((resolve) => {
      downLogged = resolve;
    });
    const logger = pino(
      { level: 'debug' },
      {
        write(line: string) {
          lines.push(line);
          if (line.includes('"upstream":"down"') && line.includes('upstream did not start')) {
            downLogged();
          }
        },
      },
    );
    const headers = { Authorization: `Bearer ${SECRET}` };
    const gateway = createGateway({
      servers: {
        web: { url: `http://127.0.0.1:${port}/web/mcp`, headers },
        down: { url: `http://127.0.0.1:${port}/down/mcp`, headers },
      },
      logger,
      backoff: { initialMs: 60_000, maxMs: 60_000 },
    });
    const app = createHttpApp({
      createMcpServer: () => assert.fail('no memory calls here'),
      allowedHosts: [],
      bodyLimit: '1mb',
      logger,
      health: () => ({}),
      gateway,
    });
    const server = await listen(app, '127.0.0.1', 0);
    t.after(async () => {
      await server.close(0);
      await gateway.close();
      upstream.closeAllConnections();
      await new Promise((resolve) => upstream.close(resolve));
    });
    await gateway.upstream('web')?.whenReady(10_000);

    /** tools/call `name` on /mcp/web: as a 2025 client (the fast path), or a 2026-07-28 one. */
    const call = async (name: string, era: 'legacy' | 'modern' = 'legacy') => {
      const modern: Record<string, string> =
        era === 'modern'
          ? {
              'mcp-protocol-version': '2026-07-28',
              'mcp-method': 'tools/call',
              // The base64 form: the SDK's handler reads it, and relays the call.
              'mcp-name': `=?base64?${Buffer.from(name).toString('base64')}?=`,
            }
          : {};
      const _meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      };
      const res = await fetch(`${server.url}/mcp/web`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...modern,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name, arguments: {}, ...(era === 'modern' ? { _meta } : {}) },
        }),
        signal: AbortSignal.timeout(10_000),
      });
      return (await res.json()) as RpcAnswer;
    };
    const safe = (text: string, what: string) => {
      assert.ok(
        !text.includes(SECRET),
        `${what} holds the upstream's token: ${text.slice(0, 500)}`,
      );
      assert.ok(!text.includes('Bearer'), `${what} holds a piece of the upstream's answer`);
      assert.ok(!text.includes('you sent authorization'), `${what} holds the upstream's body`);
      assert.ok(!text.includes('tail-of-the-body'), `${what} holds the upstream's body`);
    };

    const answers: [string, RpcAnswer][] = [
      ['refuse', await call('refuse')],
      ['refuse (relayed)', await call('refuse', 'modern')],
      ['garbled', await call('garbled')],
      ['odd_type', await call('odd_type')],
    ];
    for (const [what, answer] of answers) {
      const message = answer.error?.message ?? assert.fail(`${what}: no error`);
      safe(message, `the error of ${what}`);
      assert.ok(message.length < SHORT, `${what}: ${message.length} characters`);
      assert.match(message, /^upstream "web" did not take the call: /, what);
    }
    assert.equal(
      answers[0]?.[1].error?.message,
      'upstream "web" did not take the call: it answered HTTP 502 (its body is withheld)',
    );
    assert.equal(answers[1]?.[1].error?.message, answers[0]?.[1].error?.message);
    // The upstream is still served.
    assert.equal((await call('ok')).result?.content?.[0]?.text, 'ok');

    await down;
    const failed = lines.find((l) => l.includes('upstream did not start')) ?? '';
    assert.match(failed, /"upstream":"down"/);
    assert.match(failed, /HTTP 404/);
    for (const line of lines) {
      safe(line, 'a log line');
      assert.ok(line.length < 1_000, `a log line of ${line.length} characters`);
    }
  });
});

describe('transportFault', () => {
  it("says what failed from the error's status or code, never from its message", () => {
    const echo = `Bearer ${SECRET}\n${TAIL}`;
    const refused = Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:9 ${echo}`), {
      code: 'ECONNREFUSED',
      syscall: 'connect',
    });
    const cases: [unknown, string][] = [
      [
        new SdkHttpError(
          SdkErrorCode.ClientHttpNotImplemented,
          `Error POSTing to endpoint: ${echo}`,
          {
            status: 401,
            statusText: echo,
            text: echo,
          },
        ),
        'it answered HTTP 401 (its body is withheld)',
      ],
      [
        // A status that is no status: the SDK error's code is all there is to say.
        new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, echo, { status: Number.NaN }),
        'the MCP SDK failed with CLIENT_HTTP_NOT_IMPLEMENTED',
      ],
      [
        new SdkError(
          SdkErrorCode.EraNegotiationFailed,
          `probe failed: fetch failed ${echo}`,
          {},
          {
            cause: new TypeError(`fetch failed ${echo}`, { cause: refused }),
          },
        ),
        'connect failed with ECONNREFUSED',
      ],
      [
        Object.assign(new Error(`spawn /opt/${SECRET} ENOENT`), {
          code: 'ENOENT',
          syscall: `spawn /opt/${SECRET}`,
        }),
        'spawn failed with ENOENT',
      ],
      [new SdkError(SdkErrorCode.RequestTimeout, echo), 'it did not answer in time'],
      [
        new SyntaxError(`Unexpected token 'B', "${echo}" is not valid JSON`),
        'it sent something that is not valid JSON',
      ],
      [new GatewayFault('Not connected'), 'Not connected'],
      [new Error(echo), 'the request to it failed'],
      [echo, 'the request to it failed'],
    ];
    for (const [error, said] of cases) assert.equal(transportFault(error), said);
  });
});
