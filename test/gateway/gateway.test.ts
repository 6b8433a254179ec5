import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  type CallToolResult,
  Client,
  ProtocolError,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import pino, { type Logger } from 'pino';
import { z } from 'zod';
import { UpstreamError } from '../../src/gateway/errors.js';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway/proxy.js';
import { type Timers, Upstream, type UpstreamState } from '../../src/gateway/upstream.js';
import { createServer } from '../../src/server.js';
import { createHttpApp } from '../../src/transport/http.js';
import { listen, type RunningHttp } from '../../src/transport/listen.js';
import { nodeScript } from '../node-script.js';
import { INITIALIZE_REQUEST, isAlive, openTestMemory, type TestMemory } from '../support.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'echo-upstream.ts');
const MODERN_FIXTURE = path.join(ROOT, 'test', 'fixtures', 'modern-upstream.ts');
const TOKEN = 'global-token-0123456789abcdef';
const ECHO_TOKEN = 'echo-token-0123456789abcdef';
const OTHER_TOKEN = 'other-token-0123456789abcdef';
const NO_SUCH_COMMAND = path.join(ROOT, 'no-such-dir', 'no-such-mcp-server');
const SUPPORTED = [
  '2026-07-28',
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];

const echoSpec = (token?: string) => ({
  command: process.execPath,
  args: nodeScript(FIXTURE),
  cwd: ROOT,
  ...(token ? { token } : {}),
});
const modernSpec = {
  command: process.execPath,
  args: nodeScript(MODERN_FIXTURE),
  cwd: ROOT,
};

/** The two kinds of caller: a 2025 client (initialize) and a 2026-07-28 one (no handshake). */
type Era = 'legacy' | 'modern';
const ERAS: Era[] = ['legacy', 'modern'];

/** A 2026-07-28 request's `_meta`, as a client sends it with every request. */
const envelope = (version = '2026-07-28') => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json(): {
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: unknown };
  };
}

function post(
  url: string,
  authorization: string | undefined,
  body: unknown,
  extra: Record<string, string> = {},
): Promise<Answer> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...extra,
  };
  if (authorization) headers.authorization = authorization;
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => {
        text += d.toString();
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: text,
          // An SSE answer (the SDK's 2025 leg) holds the message in its data line.
          json: () => JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text),
        }),
      );
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** Polls (bounded) until `check` holds; no fixed sleeps. */
async function eventually(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const text = (result: unknown) =>
  (result as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/** Timers that never fire by themselves: a test fires those of a given delay. */
class FakeTimers implements Timers {
  private next = 0;
  readonly pending = new Map<number, { fn: () => void; ms: number }>();
  setTimeout(fn: () => void, ms: number): unknown {
    this.pending.set(++this.next, { fn, ms });
    return this.next;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  now(): number {
    return 0;
  }
  has(ms: number): boolean {
    return [...this.pending.values()].some((t) => t.ms === ms);
  }
  /** Runs the timers set for `ms`, as if that long had passed. */
  fire(ms: number): void {
    for (const [handle, timer] of [...this.pending]) {
      if (timer.ms !== ms) continue;
      this.pending.delete(handle);
      timer.fn();
    }
  }
}

/** A gateway behind the HTTP app on port 0, as `mnemo serve` runs it. */
async function serveGateway(
  options: Omit<GatewayOptions, 'logger'>,
  extra: { authToken?: string; memory?: TestMemory; logger?: Logger } = {},
): Promise<{ gateway: Gateway; server: RunningHttp; close(): Promise<void> }> {
  const logger = extra.logger ?? pino({ level: 'silent' });
  const gateway = createGateway({ ...options, logger });
  const app = createHttpApp({
    createMcpServer: () => {
      const memory = extra.memory ?? assert.fail('no memory calls here');
      return createServer({ memory: memory.memory, logger: memory.logger });
    },
    ...(extra.authToken ? { authToken: extra.authToken } : {}),
    allowedHosts: [],
    bodyLimit: '64kb',
    logger,
    health: () => ({ status: 'ok', upstreams: gateway.health() }),
    gateway,
  });
  const server = await listen(app, '127.0.0.1', 0);
  return {
    gateway,
    server,
    async close() {
      await server.close(100);
      await gateway.close();
    },
  };
}

async function connect(url: string, era: Era, token?: string): Promise<Client> {
  const client = new Client(
    { name: 'gateway-test', version: '1' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
    }),
  );
  return client;
}

describe('the gateway at /mcp/<label>', () => {
  let t: TestMemory;
  let gateway: Gateway;
  let server: RunningHttp;
  let stop: () => Promise<void>;
  const clients: Client[] = [];
  const open = async (route: string, era: Era, token = TOKEN) => {
    const client = await connect(`${server.url}${route}`, era, token);
    clients.push(client);
    return client;
  };
  const stateOf = (label: string) => gateway.health().find((h) => h.label === label)?.state;

  before(async () => {
    t = await openTestMemory();
    ({
      gateway,
      server,
      close: stop,
    } = await serveGateway(
      {
        servers: {
          echo: echoSpec(ECHO_TOKEN),
          other: echoSpec(OTHER_TOKEN),
          modern: modernSpec,
          ghost: { command: NO_SUCH_COMMAND, args: [] },
        },
        backoff: { initialMs: 20, maxMs: 200 },
      },
      { authToken: TOKEN, memory: t },
    ));
    await Promise.all(
      ['echo', 'other', 'modern'].map((label) => gateway.upstream(label)?.whenReady(30_000)),
    );
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await stop();
    t.close();
  });

  it('speaks to each upstream in its own revision', () => {
    const versions = Object.fromEntries(gateway.health().map((h) => [h.label, h.protocolVersion]));
    assert.equal(versions.echo, '2025-11-25', 'the v1 SDK server knows no server/discover');
    assert.equal(versions.modern, '2026-07-28', 'the 2026-only server refuses initialize');
  });

  for (const era of ERAS) {
    it(`a ${era} client lists and calls a 2025-only upstream's tools, resources and prompts`, async () => {
      const client = await open('/mcp/echo', era);
      assert.equal(client.getProtocolEra(), era);
      assert.equal(client.getServerVersion()?.name, 'echo-upstream');
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), [
        'count',
        'crash',
        'echo',
        'environment',
        'hang',
        'release',
        'spawn_helper',
      ]);
      const result = await client.callTool({ name: 'echo', arguments: { text: 'hi there' } });
      assert.match(text(result), /^hi there \(pid \d+\)$/);
      const { resources } = await client.listResources();
      assert.deepEqual(
        resources.map((r) => r.uri),
        ['echo://greeting'],
      );
      const read = await client.readResource({ uri: 'echo://greeting' });
      assert.equal((read.contents[0] as { text: string }).text, 'hello from echo');
      const prompt = await client.getPrompt({ name: 'say', arguments: { word: 'yes' } });
      assert.deepEqual(prompt.messages[0]?.content, { type: 'text', text: 'say yes' });
    });

    it(`a ${era} client calls a 2026-07-28-only upstream, its answers in the client's revision`, async () => {
      const client = await open('/mcp/modern', era);
      assert.equal(client.getProtocolEra(), era);
      assert.equal(client.getServerVersion()?.name, 'modern-upstream');
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), ['count', 'echo', 'hang', 'numbers']);
      const numbers = tools.find((tool) => tool.name === 'numbers');
      const result = await client.callTool({ name: 'echo', arguments: { text: 'new' } });
      assert.match(text(result), /^new \(pid \d+\)$/);
      const listed = await client.callTool({ name: 'numbers', arguments: {} });
      if (era === 'modern') {
        assert.equal(numbers?.outputSchema?.type, 'array');
        assert.deepEqual(listed.structuredContent, [1, 2, 3]);
      } else {
        // 2025 wants objects there: the list is wrapped, as the SDK's 2025 codec wraps it.
        assert.equal(numbers?.outputSchema?.type, 'object');
        assert.deepEqual(listed.structuredContent, { result: [1, 2, 3] });
      }
      const read = await client.readResource({ uri: 'modern://greeting' });
      assert.equal((read.contents[0] as { text: string }).text, 'hello from 2026');
      const seen: number[] = [];
      const counted = await client.callTool(
        { name: 'count', arguments: {} },
        {
          onprogress: (p) => seen.push(p.progress),
        },
      );
      assert.equal(text(counted), 'done');
      assert.deepEqual(seen, [1, 2, 3], 'progress comes through the gateway');
    });
  }

  it('a raw 2025-06-18 initialize gets that revision and only the capabilities the gateway can honour', async () => {
    const res = await post(`${server.url}/mcp/echo`, `Bearer ${TOKEN}`, INITIALIZE_REQUEST);
    assert.equal(res.status, 200);
    const result = res.json().result as { protocolVersion: string; capabilities: unknown };
    assert.equal(result.protocolVersion, '2025-06-18');
    // The upstream (a v1 McpServer) says tools: { listChanged: true }: not true of a stateless route.
    assert.deepEqual(gateway.upstream('echo')?.identity?.capabilities.tools, { listChanged: true });
    assert.deepEqual(result.capabilities, { tools: {}, resources: {}, prompts: {} });
  });

  it('a raw 2026-07-28 request needs no handshake: server/discover, then a call', async () => {
    const url = `${server.url}/mcp/echo`;
    const discover = await post(
      url,
      `Bearer ${TOKEN}`,
      { jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: envelope() } },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
    );
    assert.equal(discover.status, 200);
    const result = discover.json().result as { supportedVersions: string[]; capabilities: unknown };
    assert.ok(result.supportedVersions.includes('2026-07-28'));
    assert.deepEqual(result.capabilities, { tools: {}, resources: {}, prompts: {} });
    const call = await post(
      url,
      `Bearer ${TOKEN}`,
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'raw' }, _meta: envelope() },
      },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
    );
    assert.equal(call.status, 200);
    const answer = JSON.parse(call.body) as { id: number; result: Record<string, unknown> };
    assert.equal(answer.id, 7);
    assert.equal(answer.result.resultType, 'complete');
    assert.match(text(answer.result), /^raw \(pid \d+\)$/);
    // A name sent in the header's base64 form is the SDK's to read: it serves it, and relays.
    const encoded = await post(
      url,
      `Bearer ${TOKEN}`,
      {
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'relayed' }, _meta: envelope() },
      },
      {
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': `=?base64?${Buffer.from('echo').toString('base64')}?=`,
      },
    );
    assert.equal(encoded.status, 200);
    assert.match(text(encoded.json().result), /^relayed \(pid \d+\)$/);
  });

  it('an unsupported revision gets -32022 naming the supported ones, HTTP 400, in either era', async () => {
    const url = `${server.url}/mcp/echo`;
    const legacy = await post(
      url,
      `Bearer ${TOKEN}`,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { 'mcp-protocol-version': '1999-01-01' },
    );
    const modern = await post(
      url,
      `Bearer ${TOKEN}`,
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: envelope('2099-01-01') } },
      { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
    );
    // As on /mcp: a 2025 body lists every revision served; a request with the _meta envelope
    // those served without a handshake, as server/discover does.
    for (const [res, requested, supported] of [
      [legacy, '1999-01-01', SUPPORTED],
      [modern, '2099-01-01', ['2026-07-28']],
    ] as const) {
      assert.equal(res.status, 400);
      const error = res.json().error;
      assert.equal(error?.code, -32022);
      assert.deepEqual(error?.data, { supported, requested });
      assert.match(error?.message ?? '', /mnemo serves 2026-07-28 .* and 2025-11-25/);
    }
  });

  it('requests that mix revisions get the revision’s own error, HTTP 400, saying what is wrong', async () => {
    const call = (meta: boolean) => ({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x' }, ...(meta ? { _meta: envelope() } : {}) },
    });
    const cases: [string, unknown, Record<string, string>, number][] = [
      [
        'Mcp-Method contradicts the body',
        call(true),
        { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list', 'mcp-name': 'echo' },
        -32020,
      ],
      [
        'no Mcp-Method',
        call(true),
        { 'mcp-protocol-version': '2026-07-28', 'mcp-name': 'echo' },
        -32020,
      ],
      [
        'a 2026-07-28 header on a 2025 body',
        call(false),
        { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
        -32602,
      ],
    ];
    for (const [what, body, headers, code] of cases) {
      const res = await post(`${server.url}/mcp/echo`, `Bearer ${TOKEN}`, body, headers);
      assert.equal(res.status, 400, what);
      const error = res.json().error;
      assert.equal(error?.code, code, what);
      assert.ok((error?.message.length ?? 0) > 20, `${what}: says what is wrong`);
    }
  });

  it("accepts an upstream's own token on its route only", async () => {
    const own = await open('/mcp/echo', 'legacy', ECHO_TOKEN);
    assert.match(text(await own.callTool({ name: 'echo', arguments: { text: 'x' } })), /^x /);
    for (const route of ['/mcp', '/mcp/other', '/mcp/nope']) {
      const res = await post(`${server.url}${route}`, `Bearer ${ECHO_TOKEN}`, INITIALIZE_REQUEST);
      assert.equal(res.status, 401, route);
      assert.equal(res.headers['www-authenticate'], 'Bearer');
      assert.ok(!res.body.includes(ECHO_TOKEN));
    }
    for (const authorization of [undefined, 'Bearer wrong-token-0123456789']) {
      const res = await post(`${server.url}/mcp/echo`, authorization, INITIALIZE_REQUEST);
      assert.equal(res.status, 401);
    }
    const other = await post(`${server.url}/mcp/other`, OTHER_TOKEN, INITIALIZE_REQUEST);
    assert.equal(other.status, 200);
  });

  it('answers 404 naming an unknown label', async () => {
    const res = await post(`${server.url}/mcp/nope`, `Bearer ${TOKEN}`, INITIALIZE_REQUEST);
    assert.equal(res.status, 404);
    assert.match(JSON.parse(res.body).error.message, /"nope"/);
  });

  it('an upstream that never starts: 503 with Retry-After naming it once, health says so, /mcp still works', async () => {
    await eventually(
      () => ['failed', 'restarting'].includes(stateOf('ghost') ?? ''),
      'the ghost upstream to fail',
    );
    for (const body of [
      INITIALIZE_REQUEST,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x' } },
    ]) {
      const res = await post(`${server.url}/mcp/ghost`, `Bearer ${TOKEN}`, body);
      assert.equal(res.status, 503);
      assert.match(res.headers['retry-after'] ?? '', /^\d+$/);
      const message = res.json().error?.message ?? '';
      assert.match(
        message,
        /^upstream "ghost" failed to start and is being restarted: retry in a moment$/,
      );
    }
    await assert.rejects(open('/mcp/ghost', 'legacy'), SdkHttpError);
    const memory = await open('/mcp', 'legacy');
    const { tools } = await memory.listTools();
    assert.ok(tools.some((tool) => tool.name === 'save_memory'));
    const health = await new Promise<string>((resolve, reject) => {
      http
        .get(`${server.url}/health`, (res) => {
          let body = '';
          res.on('data', (d: Buffer) => {
            body += d.toString();
          });
          res.on('end', () => resolve(body));
        })
        .on('error', reject);
    });
    const ghost = (JSON.parse(health).upstreams as { label: string; state: string }[]).find(
      (u) => u.label === 'ghost',
    );
    assert.ok(ghost && ['failed', 'restarting'].includes(ghost.state));
    assert.ok(!health.includes(ECHO_TOKEN) && !health.includes(NO_SUCH_COMMAND));
  });
});

describe('the revision each upstream is spoken to in', () => {
  it('a server that exits on server/discover (as rmcp ones do) is opened with initialize from then on', async (t) => {
    // 2025 over stdio by hand, ending at any request before initialize.
    const script = `
      const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
      let initialized = false;
      require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
        const { id, method, params } = JSON.parse(line);
        if (id === undefined) return;
        if (method === 'initialize') {
          initialized = true;
          send({ jsonrpc: '2.0', id, result: { protocolVersion: params.protocolVersion,
            capabilities: { tools: {} }, serverInfo: { name: 'strict', version: '1' } } });
        } else if (!initialized) process.exit(1);
        else send({ jsonrpc: '2.0', id, result: method === 'tools/list' ? { tools: [] } :
          { content: [{ type: 'text', text: 'ok' }] } });
      });`;
    const timers = new FakeTimers();
    const { gateway, server, close } = await serveGateway({
      servers: { strict: { command: process.execPath, args: ['-e', script] } },
      timers,
      backoff: { initialMs: 60_000, maxMs: 60_000 },
    });
    t.after(close);
    const upstream = gateway.upstream('strict');
    assert.ok(upstream);
    await eventually(() => timers.has(60_000), 'the probe to end the first start');
    assert.equal(upstream.state, 'failed');
    timers.fire(60_000);
    await upstream.whenReady(10_000);
    assert.match(upstream.health().protocolVersion ?? '', /^2025-/);
    const client = await connect(`${server.url}/mcp/strict`, 'modern');
    t.after(() => client.close());
    assert.equal(text(await client.callTool({ name: 'anything', arguments: {} })), 'ok');
  });

  it('a 2026-07-28-only streamable HTTP upstream: both eras call it, and a caller that gives up aborts its request', async (t) => {
    let aborted = 0;
    let started = 0;
    const build = () => {
      const server = new McpServer({ name: 'http-modern', version: '1' });
      server.registerTool(
        'echo',
        { inputSchema: z.object({ text: z.string() }) },
        async ({ text }) => ({ content: [{ type: 'text', text }] }),
      );
      server.registerTool('hang', { description: 'Answers when aborted' }, (ctx) => {
        started++;
        return new Promise((resolve) => {
          ctx.mcpReq.signal.addEventListener('abort', () => {
            aborted++;
            resolve({ content: [] });
          });
        });
      });
      return server;
    };
    const handler = toNodeHandler(createMcpHandler(build, { legacy: 'reject' }));
    const upstreamServer = http.createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => upstreamServer.listen(0, '127.0.0.1', resolve));
    t.after(async () => {
      upstreamServer.closeAllConnections();
      await new Promise((resolve) => upstreamServer.close(resolve));
    });
    const port = (upstreamServer.address() as { port: number }).port;
    const { gateway, server, close } = await serveGateway({
      servers: { web: { url: `http://127.0.0.1:${port}/mcp` } },
    });
    t.after(close);
    const upstream = gateway.upstream('web');
    await upstream?.whenReady(10_000);
    assert.equal(upstream?.health().protocolVersion, '2026-07-28');
    for (const era of ERAS) {
      const client = await connect(`${server.url}/mcp/web`, era);
      t.after(() => client.close());
      assert.equal(text(await client.callTool({ name: 'echo', arguments: { text: era } })), era);
    }
    const client = await connect(`${server.url}/mcp/web`, 'modern');
    t.after(() => client.close());
    const stop = new AbortController();
    const hung = client.callTool({ name: 'hang', arguments: {} }, { signal: stop.signal });
    await eventually(() => started === 1, 'the call to reach the upstream');
    stop.abort();
    await assert.rejects(hung);
    await eventually(() => aborted === 1, 'the upstream to see its request aborted');
    assert.equal(upstream?.inFlight, 0);
  });
});

describe('an upstream that restarts', () => {
  it('a crash mid-call is one error naming the label; while it restarts, 503 and Retry-After; then it answers again', async (t) => {
    const timers = new FakeTimers();
    const { gateway, server, close } = await serveGateway({
      servers: { echo: echoSpec() },
      timers,
      backoff: { initialMs: 60_000, maxMs: 60_000 },
    });
    t.after(close);
    const upstream = gateway.upstream('echo');
    assert.ok(upstream);
    await upstream.whenReady(30_000);
    const legacy = await connect(`${server.url}/mcp/echo`, 'legacy');
    const modern = await connect(`${server.url}/mcp/echo`, 'modern');
    t.after(() => Promise.all([legacy.close(), modern.close()]));
    const before = text(await legacy.callTool({ name: 'echo', arguments: { text: 'a' } }));

    await assert.rejects(legacy.callTool({ name: 'crash', arguments: {} }), (e: unknown) => {
      assert.ok(e instanceof ProtocolError);
      assert.equal(
        e.message,
        'upstream "echo" closed its connection before answering; it is restarting',
      );
      return true;
    });
    await eventually(() => timers.has(60_000), 'the restart to be scheduled');
    assert.equal(upstream.state, 'restarting');

    const call = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'echo' } };
    const res = await post(`${server.url}/mcp/echo`, undefined, call);
    assert.equal(res.status, 503);
    assert.equal(res.headers['retry-after'], '60');
    assert.deepEqual(JSON.parse(res.body), {
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32000, message: 'upstream "echo" is restarting: retry in a moment' },
    });
    for (const client of [legacy, modern]) {
      await assert.rejects(client.callTool({ name: 'echo', arguments: { text: 'b' } }), (e) => {
        const message = (e as Error).message;
        assert.equal(message.match(/upstream \\?"echo/g)?.length, 1, `named once: ${message}`);
        assert.doesNotMatch(message, /MCP error -32000: MCP error/);
        return true;
      });
    }

    timers.fire(60_000);
    await upstream.whenReady(30_000);
    for (const client of [legacy, modern]) {
      const afterCrash = text(await client.callTool({ name: 'echo', arguments: { text: 'a' } }));
      assert.match(afterCrash, /^a \(pid \d+\)$/);
      assert.notEqual(afterCrash, before, 'a new process answers');
    }
    assert.equal(upstream.health().restarts, 1);
  });
});

describe('calls in flight', () => {
  it('a call past the timeout is cancelled and answered once, naming the label; progress restarts the count and comes through', async (t) => {
    const timers = new FakeTimers();
    const { gateway, server, close } = await serveGateway({
      servers: { slow: echoSpec() },
      timers,
      callTimeoutMs: 300_000,
    });
    t.after(close);
    await gateway.upstream('slow')?.whenReady(30_000);
    for (const era of ERAS) {
      const client = await connect(`${server.url}/mcp/slow`, era);
      t.after(() => client.close());
      const hung = client.callTool({ name: 'hang', arguments: {} });
      await eventually(() => timers.has(300_000), 'the call to be in flight');
      timers.fire(300_000);
      await assert.rejects(hung, (e: unknown) => {
        assert.ok(e instanceof ProtocolError);
        assert.equal(
          e.message,
          'upstream "slow" did not answer within 300000 ms: the call is cancelled',
        );
        return true;
      });

      const seen: number[] = [];
      const counted = await client.callTool(
        { name: 'count', arguments: {} },
        {
          onprogress: (p) => {
            seen.push(p.progress);
            if (seen.length === 3) void client.callTool({ name: 'release', arguments: {} });
          },
        },
      );
      assert.equal(text(counted), 'done');
      assert.deepEqual(seen, [1, 2, 3], `progress through the gateway to a ${era} client`);
      // The upstream itself is still up.
      assert.match(
        text(await client.callTool({ name: 'echo', arguments: { text: 'ok' } })),
        /^ok /,
      );
    }
  });

  it('a 2026-07-28 client that gives up (closes its request) cancels the call, upstream of either revision', async (t) => {
    const said: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        const line = JSON.parse(chunk.toString()) as { upstream?: string; stderr?: string };
        if (line.stderr !== undefined) said.push(`${line.upstream}: ${line.stderr}`);
        done();
      },
    });
    const { gateway, server, close } = await serveGateway(
      { servers: { echo: echoSpec(), modern: modernSpec } },
      { logger: pino(sink) },
    );
    t.after(close);
    for (const label of ['echo', 'modern']) {
      const upstream = gateway.upstream(label);
      assert.ok(upstream);
      await upstream.whenReady(30_000);
      const client = await connect(`${server.url}/mcp/${label}`, 'modern');
      t.after(() => client.close());
      const stop = new AbortController();
      const hung = client.callTool({ name: 'hang', arguments: {} }, { signal: stop.signal });
      await eventually(() => upstream.inFlight === 1, 'the call to reach the upstream');
      stop.abort();
      await assert.rejects(hung);
      await eventually(() => said.includes(`${label}: hang cancelled`), `${label} to be told`);
      assert.equal(upstream.inFlight, 0);
    }
  });
});

describe('closing the gateway', () => {
  it("ends each stdio upstream's whole process group", async () => {
    const gateway = createGateway({
      servers: { echo: echoSpec(ECHO_TOKEN) },
      logger: pino({ level: 'silent' }),
    });
    const upstream = gateway.upstream('echo');
    assert.ok(upstream);
    await upstream.whenReady(30_000);
    const pidOf = async (name: string) => {
      const answer = await upstream.call('tools/call', { name, arguments: { text: '' } }).answer;
      assert.ok('result' in answer);
      return Number(/\d+/.exec(text(answer.result))?.[0]);
    };
    const child = await pidOf('echo');
    const helper = await pidOf('spawn_helper');
    assert.ok(isAlive(child) && isAlive(helper));
    await gateway.close();
    await eventually(() => !isAlive(child) && !isAlive(helper), 'the child and its helper to end');
  });
});

describe('what a stdio upstream is started with', () => {
  it("its config's env and the basics, never mnemo's MNEMO_* secrets", async (t) => {
    // An upstream is trusted with its own answers, never with mnemo's tokens or database.
    const secrets = {
      MNEMO_AUTH_TOKEN: 'env-secret-token-0123456789abcdef',
      MNEMO_DATABASE_URL: 'postgres://mnemo:env-secret-password@db/mnemo',
    };
    Object.assign(process.env, secrets);
    t.after(() => {
      for (const name of Object.keys(secrets)) delete process.env[name];
    });
    const { gateway, server, close } = await serveGateway({
      servers: { env: { ...echoSpec(), env: { UPSTREAM_SETTING: 'given' } } },
    });
    t.after(close);
    await gateway.upstream('env')?.whenReady(30_000);
    const client = await connect(`${server.url}/mcp/env`, 'modern');
    t.after(() => client.close());
    const seen = text(await client.callTool({ name: 'environment', arguments: {} }));
    const env = JSON.parse(seen) as Record<string, string>;
    assert.equal(env.UPSTREAM_SETTING, 'given');
    assert.ok(env.PATH, 'what a program needs to run');
    assert.deepEqual(
      Object.keys(env).filter((name) => name.startsWith('MNEMO_')),
      [],
    );
    for (const value of Object.values(secrets)) assert.ok(!seen.includes(value));
  });
});

describe('upstream restart backoff', () => {
  it('doubles the delay per failed start up to the cap, on an injected timer', async () => {
    const pending: { fn: () => void; ms: number }[] = [];
    const timers: Timers = {
      setTimeout: (fn, ms) => {
        pending.push({ fn, ms });
        return pending.length;
      },
      clearTimeout: () => {},
      now: () => 0,
    };
    const upstream = new Upstream({
      label: 'ghost',
      spec: { command: NO_SUCH_COMMAND, args: [] },
      logger: pino({ level: 'silent' }),
      timers,
      backoff: { initialMs: 100, maxMs: 1_000 },
    });
    const states: UpstreamState[] = [upstream.state];
    upstream.start();
    for (let i = 0; i < 6; i++) {
      await eventually(() => pending.length === i + 1, `restart ${i + 1} to be scheduled`);
      states.push(upstream.state);
      pending[i]?.fn();
    }
    assert.deepEqual(
      pending.map((p) => p.ms),
      [100, 200, 400, 800, 1_000, 1_000],
    );
    assert.equal(states[0], 'starting');
    assert.ok(states.slice(1).every((s) => s === 'failed'));
    assert.throws(
      () => upstream.call('tools/list', undefined),
      (e: unknown) =>
        e instanceof UpstreamError &&
        e.retryAfterSeconds !== undefined &&
        /^upstream "ghost" failed to start and is being restarted: retry in a moment$/.test(
          e.message,
        ),
    );
    await upstream.close();
  });
});
