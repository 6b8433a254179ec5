import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import pino from 'pino';
import { createGateway, type Gateway } from '../../src/gateway/proxy.js';
import { type Timers, Upstream, type UpstreamState } from '../../src/gateway/upstream.js';
import { createServer } from '../../src/server.js';
import { createHttpApp, listen, type RunningHttp } from '../../src/transport/http.js';
import { INITIALIZE_REQUEST, isAlive, openTestMemory, type TestMemory } from '../support.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'echo-upstream.ts');
const TOKEN = 'global-token-0123456789abcdef';
const ECHO_TOKEN = 'echo-token-0123456789abcdef';
const OTHER_TOKEN = 'other-token-0123456789abcdef';
const NO_SUCH_COMMAND = path.join(ROOT, 'no-such-dir', 'no-such-mcp-server');

const echoSpec = (token: string) => ({
  command: process.execPath,
  args: ['--import', 'tsx', FIXTURE],
  cwd: ROOT,
  token,
});

function post(url: string, authorization: string | undefined, body: unknown) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  if (authorization) headers.authorization = authorization;
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      const req = http.request(url, { method: 'POST', headers }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => {
          text += d.toString();
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
        );
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    },
  );
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

describe('the gateway at /mcp/<label>', () => {
  let t: TestMemory;
  let gateway: Gateway;
  let server: RunningHttp;
  const clients: Client[] = [];

  const connect = async (route: string, token = TOKEN) => {
    const client = new Client({ name: 'gateway-test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}${route}`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  };
  const stateOf = (label: string) => gateway.health().find((h) => h.label === label)?.state;

  before(async () => {
    t = await openTestMemory();
    const logger = pino({ level: 'silent' });
    gateway = createGateway({
      servers: {
        echo: echoSpec(ECHO_TOKEN),
        other: echoSpec(OTHER_TOKEN),
        ghost: { command: NO_SUCH_COMMAND, args: [] },
      },
      logger,
      backoff: { initialMs: 20, maxMs: 200 },
    });
    const app = createHttpApp({
      createMcpServer: () => createServer({ memory: t.memory, logger: t.logger }),
      authToken: TOKEN,
      allowedHosts: [],
      bodyLimit: '64kb',
      logger,
      health: () => ({ status: 'ok', upstreams: gateway.health() }),
      gateway,
    });
    server = await listen(app, '127.0.0.1', 0);
    await gateway.upstream('echo')?.whenReady(30_000);
    await gateway.upstream('other')?.whenReady(30_000);
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await server.close(100);
    await gateway.close();
    t.close();
  });

  it('lists and calls the upstream tools through an SDK client with a bearer token', async () => {
    const client = await connect('/mcp/echo');
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
    await eventually(
      () => gateway.health().find((h) => h.label === 'echo')?.tools === 7,
      'health to count the tools',
    );
  });

  it('forwards resources and prompts', async () => {
    const client = await connect('/mcp/echo');
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

  it("accepts an upstream's own token on its route only", async () => {
    const own = await connect('/mcp/echo', ECHO_TOKEN);
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

  it('an upstream that never starts: health says so, calls name it, /mcp still works', async () => {
    await eventually(
      () => ['failed', 'restarting'].includes(stateOf('ghost') ?? ''),
      'the ghost upstream to fail',
    );
    const client = await connect('/mcp/ghost');
    await assert.rejects(client.listTools(), /upstream "ghost" is not available/);
    await assert.rejects(client.callTool({ name: 'anything', arguments: {} }), /upstream "ghost"/);
    const memory = await connect('/mcp');
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

  it('a crash mid-call answers an error naming the label, and the upstream comes back', async () => {
    const client = await connect('/mcp/echo');
    const before = text(await client.callTool({ name: 'echo', arguments: { text: 'a' } }));
    await assert.rejects(client.callTool({ name: 'crash', arguments: {} }), /upstream "echo"/);
    // Until the restart is done, calls fail fast with the label; then they work again.
    await eventually(() => stateOf('echo') === 'ready', 'echo to restart');
    const afterCrash = text(await client.callTool({ name: 'echo', arguments: { text: 'a' } }));
    assert.match(afterCrash, /^a \(pid \d+\)$/);
    assert.notEqual(afterCrash, before, 'a new process answers');
    assert.ok((gateway.health().find((h) => h.label === 'echo')?.restarts ?? 0) >= 1);
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
    const client = upstream.connectedClient();
    const pidOf = async (name: string) =>
      Number(/\d+/.exec(text(await client.callTool({ name, arguments: { text: '' } })))?.[0]);
    const child = await pidOf('echo');
    const helper = await pidOf('spawn_helper');
    assert.ok(isAlive(child) && isAlive(helper));
    await gateway.close();
    await eventually(() => !isAlive(child) && !isAlive(helper), 'the child and its helper to end');
  });
});

describe('the proxy server in process', () => {
  it("gives a stdio upstream its config's env and the basics, never mnemo's MNEMO_* secrets", async () => {
    // An upstream is trusted with its own answers, never with mnemo's tokens or database.
    const secrets = {
      MNEMO_AUTH_TOKEN: 'env-secret-token-0123456789abcdef',
      MNEMO_DATABASE_URL: 'postgres://mnemo:env-secret-password@db/mnemo',
    };
    Object.assign(process.env, secrets);
    const gateway = createGateway({
      servers: { env: { ...echoSpec(ECHO_TOKEN), env: { UPSTREAM_SETTING: 'given' } } },
      logger: pino({ level: 'silent' }),
    });
    try {
      await gateway.upstream('env')?.whenReady(30_000);
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await gateway.createProxyServer('env').connect(serverSide);
      const client = new Client({ name: 'env-test', version: '1' });
      await client.connect(clientSide);
      const seen = text(await client.callTool({ name: 'environment', arguments: {} }));
      const env = JSON.parse(seen) as Record<string, string>;
      assert.equal(env.UPSTREAM_SETTING, 'given');
      assert.ok(env.PATH, 'what a program needs to run');
      assert.deepEqual(
        Object.keys(env).filter((name) => name.startsWith('MNEMO_')),
        [],
      );
      for (const value of Object.values(secrets)) assert.ok(!seen.includes(value));
      await client.close();
    } finally {
      for (const name of Object.keys(secrets)) delete process.env[name];
      await gateway.close();
    }
  });

  it('answers a timeout naming the label when the upstream hangs, and forwards progress', async () => {
    const gateway = createGateway({
      servers: { slow: echoSpec(ECHO_TOKEN) },
      logger: pino({ level: 'silent' }),
      callTimeoutMs: 300,
    });
    try {
      await gateway.upstream('slow')?.whenReady(30_000);
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const proxy = gateway.createProxyServer('slow');
      await proxy.connect(serverSide);
      const client = new Client({ name: 'hang-test', version: '1' });
      await client.connect(clientSide);
      await assert.rejects(
        client.callTool({ name: 'hang', arguments: {} }),
        (e: unknown) =>
          e instanceof McpError &&
          e.code === ErrorCode.RequestTimeout &&
          /upstream "slow": Request timed out/.test(e.message),
      );
      const seen: number[] = [];
      const counted = await client.callTool({ name: 'count', arguments: {} }, undefined, {
        onprogress: (p) => {
          seen.push(p.progress);
          if (seen.length === 3) void client.callTool({ name: 'release', arguments: {} });
        },
      });
      assert.equal(text(counted), 'done');
      assert.deepEqual(seen, [1, 2, 3], 'progress comes through the proxy');
      // The upstream itself is still up.
      assert.match(
        text(await client.callTool({ name: 'echo', arguments: { text: 'ok' } })),
        /^ok /,
      );
      await client.close();
    } finally {
      await gateway.close();
    }
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
    await assert.rejects(
      async () => upstream.connectedClient(),
      /upstream "ghost" is not available \(failed\)/,
    );
    await upstream.close();
  });
});
