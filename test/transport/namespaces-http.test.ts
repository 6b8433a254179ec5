import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import pino from 'pino';
import { createServer } from '../../src/server.js';
import { createHttpApp, listen, type RunningHttp } from '../../src/transport/http.js';
import { parseTokenFile, TokenFileError } from '../../src/transport/tokens.js';
import { errorText, INITIALIZE_REQUEST, openTestMemory, type TestMemory } from '../support.js';

const DEFAULT_TOKEN = 'default-token-0123456789abcdef';
const TOKEN_A = 'token-of-a-0123456789abcdef';
const TOKEN_B = 'token-of-b-0123456789abcdef';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

function post(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => {
          body += d.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(INITIALIZE_REQUEST));
  });
}

describe('namespaces over HTTP: the token decides', () => {
  let t: TestMemory;
  let server: RunningHttp;
  const logged: string[] = [];
  const clients: Client[] = [];

  before(async () => {
    t = await openTestMemory({ MNEMO_EMBEDDINGS: 'static' });
    await t.opened.readiness.wait('store');
    const logger = pino({ level: 'debug' }, { write: (line: string) => void logged.push(line) });
    const app = createHttpApp({
      createMcpServer: (namespace) =>
        createServer({ memory: t.opened.memoryFor(namespace), logger: t.logger }),
      authToken: DEFAULT_TOKEN,
      tokens: parseTokenFile(`${TOKEN_A} a\n${TOKEN_B} b,shared\n`, 'tokens.txt'),
      allowedHosts: [],
      bodyLimit: '64kb',
      logger,
      health: () => ({ status: 'ok' }),
    });
    server = await listen(app, '127.0.0.1', 0);
  });
  after(async () => {
    for (const client of clients) await client.close();
    await server.close(100);
    await t.close();
  });

  async function connect(token: string, namespace?: string, via: 'header' | 'query' = 'header') {
    const url = new URL(`${server.url}/mcp`);
    const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
    if (namespace !== undefined && via === 'header') headers['X-Mnemo-Namespace'] = namespace;
    if (namespace !== undefined && via === 'query') url.searchParams.set('namespace', namespace);
    const client = new Client({ name: 'ns-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    clients.push(client);
    const call = async (name: string, args: Record<string, unknown> = {}) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult;
    const ok = async <T = Record<string, unknown>>(name: string, args = {}) => {
      const result = await call(name, args);
      if (result.isError) throw new Error(`${name}: ${errorText(result)}`);
      return result.structuredContent as T;
    };
    return { call, ok };
  }

  it("a token for a never reads, writes or counts b's memories, by any tool", async () => {
    const b = await connect(TOKEN_B);
    const idB = (
      await b.ok<{ memory_id: string }>('save_memory', {
        content: 'the lighthouse keeper feeds the gulls at dawn',
      })
    ).memory_id;
    const other = (
      await b.ok<{ memory_id: string }>('save_memory', { content: 'gulls nest on the cliff' })
    ).memory_id;
    await b.ok('create_relation', {
      from_memory_id: idB,
      to_memory_id: other,
      relation_type: 'related',
    });

    const a = await connect(TOKEN_A);
    const search = await a.ok<{ results: unknown[] }>('search_memory', { query: 'gulls' });
    assert.deepEqual(search.results, []);
    const unified = await a.ok<{ results: unknown[] }>('search_unified', { query: 'gulls' });
    assert.deepEqual(unified.results, []);
    const stats = await a.ok<{ total: number; relations: number }>('memory_stats');
    assert.deepEqual([stats.total, stats.relations], [0, 0]);
    const gc = await a.ok<{ removed_count: number }>('gc', { dry_run: true });
    assert.equal(gc.removed_count, 0);
    const clusters = await a.ok<{ clusters: unknown[] }>('cluster_memories');
    assert.deepEqual(clusters.clusters, []);

    const mine = (await a.ok<{ memory_id: string }>('save_memory', { content: 'a of a' }))
      .memory_id;
    const calls: [string, (id: string) => Record<string, unknown>][] = [
      ['open_memories', (id) => ({ memory_ids: [id] })],
      ['touch_memory', (id) => ({ memory_id: id })],
      ['observe_memory_usage', (id) => ({ memory_ids: [id] })],
      ['promote_memory', (id) => ({ memory_id: id, dry_run: false, force: true })],
      ['archive_memory', (id) => ({ memory_id: id })],
      ['delete_memory', (id) => ({ memory_id: id })],
      ['restore_memory', (id) => ({ memory_id: id })],
      [
        'create_relation',
        (id) => ({ from_memory_id: mine, to_memory_id: id, relation_type: 'related' }),
      ],
    ];
    for (const [name, args] of calls) {
      const theirs = await a.call(name, args(idB));
      const nobody = await a.call(name, args(UNKNOWN));
      assert.equal(theirs.isError, nobody.isError, name);
      assert.equal(
        errorText(theirs).replaceAll(idB, '<id>'),
        errorText(nobody).replaceAll(UNKNOWN, '<id>'),
        name,
      );
    }
    // b's memories are as they were.
    const own = await b.ok<{ memories: { id: string; use_count: number; status: string }[] }>(
      'open_memories',
      { memory_ids: [idB, other] },
    );
    assert.deepEqual(
      own.memories.map((m) => [m.use_count, m.status]),
      [
        [0, 'active'],
        [0, 'active'],
      ],
    );
    const bStats = await b.ok<{ total: number; relations: number }>('memory_stats');
    assert.deepEqual([bStats.total, bStats.relations], [2, 1]);
    // The default token's namespace sees neither.
    const d = await connect(DEFAULT_TOKEN);
    const dStats = await d.ok<{ total: number }>('memory_stats');
    assert.equal(dStats.total, 0);
  });

  it('a token picks among its namespaces by header or query; its first by default', async () => {
    const shared = await connect(TOKEN_B, 'shared', 'query');
    await shared.ok('save_memory', { content: 'kept in shared' });
    const viaHeader = await connect(TOKEN_B, 'shared');
    assert.equal((await viaHeader.ok<{ total: number }>('memory_stats')).total, 1);
    const first = await connect(TOKEN_B);
    const found = await first.ok<{ results: unknown[] }>('search_memory', { query: 'shared' });
    assert.deepEqual(found.results, []);
  });

  it('a namespace the token does not hold: 403, the same answer whether it exists or not', async () => {
    const asked = async (token: string, ns: string, via: 'header' | 'query') =>
      post(via === 'query' ? `${server.url}/mcp?namespace=${ns}` : `${server.url}/mcp`, {
        authorization: `Bearer ${token}`,
        ...(via === 'header' ? { 'x-mnemo-namespace': ns } : {}),
      });
    for (const via of ['header', 'query'] as const) {
      const existing = await asked(TOKEN_A, 'b', via);
      const missing = await asked(TOKEN_A, 'nobody-has-this', via);
      const invalid = await asked(TOKEN_A, 'NOT A NAME', via);
      assert.equal(existing.status, 403);
      assert.equal(missing.body, existing.body);
      assert.equal(invalid.body, existing.body);
      assert.deepEqual([missing.status, invalid.status], [403, 403]);
      // The default token holds the default namespace only.
      assert.equal((await asked(DEFAULT_TOKEN, 'a', via)).status, 403);
    }
    const twice = await post(`${server.url}/mcp?namespace=a&namespace=b`, {
      authorization: `Bearer ${TOKEN_A}`,
    });
    assert.equal(twice.status, 400);
    const noToken = await post(`${server.url}/mcp`, { 'x-mnemo-namespace': 'a' });
    assert.equal(noToken.status, 401);
    const wrong = await post(`${server.url}/mcp`, {
      authorization: 'Bearer not-a-token-0123456789',
      'x-mnemo-namespace': 'a',
    });
    assert.equal(wrong.status, 401);
    for (const token of [DEFAULT_TOKEN, TOKEN_A, TOKEN_B]) {
      assert.ok(!logged.some((line) => line.includes(token)), 'a token is never logged');
    }
  });
});

describe('namespaces over HTTP without a token (a loopback server)', () => {
  it('any namespace by name, the default one without; a bad name is a 400', async () => {
    const t = await openTestMemory();
    const app = createHttpApp({
      createMcpServer: (namespace) =>
        createServer({ memory: t.opened.memoryFor(namespace), logger: t.logger }),
      allowedHosts: [],
      bodyLimit: '64kb',
      logger: pino({ level: 'silent' }),
      health: () => ({ status: 'ok' }),
    });
    const server = await listen(app, '127.0.0.1', 0);
    try {
      assert.equal((await post(`${server.url}/mcp`, {})).status, 200);
      assert.equal((await post(`${server.url}/mcp?namespace=x`, {})).status, 200);
      assert.equal((await post(`${server.url}/mcp`, { 'x-mnemo-namespace': 'Bad!' })).status, 400);
    } finally {
      await server.close(100);
      await t.close();
    }
  });
});

describe('the token file', () => {
  it('reads lines (comments and blank lines skipped) and JSON', () => {
    const lines = parseTokenFile(
      `# agents\n\n${TOKEN_A} a\n${TOKEN_B}   b,shared  # two of them\n`,
      'tokens.txt',
    );
    assert.deepEqual(lines, [
      { token: TOKEN_A, namespaces: ['a'] },
      { token: TOKEN_B, namespaces: ['b', 'shared'] },
    ]);
    const json = parseTokenFile(
      JSON.stringify({ [TOKEN_A]: ['a'], [TOKEN_B]: 'b,shared' }),
      'tokens.json',
    );
    assert.deepEqual(json, lines);
  });

  it('a bad file: an error naming MNEMO_TOKENS, the line and the fix, never the token', () => {
    const cases: [string, RegExp][] = [
      [`${TOKEN_A} a\nshort a\n`, /MNEMO_TOKENS \(t\), line 2: a token must be 16 or more/],
      [`${TOKEN_A}\n`, /line 1: expected a token and its namespaces, found 1 field/],
      [`${TOKEN_A} a b\n`, /line 1: expected a token and its namespaces, found 3 field/],
      [`\n${TOKEN_A} a,Bad\n`, /line 2: "Bad" is not a namespace name/],
      [`${TOKEN_A} a\n${TOKEN_A} b\n`, /line 2: this token is given twice/],
      ['# nothing\n', /the whole file: no token in it/],
      ['{"oops"', /its JSON: it cannot be read/],
      [JSON.stringify({ [TOKEN_A]: [] }), /entry 1: no namespace/],
      [JSON.stringify({ [TOKEN_A]: ['a'], [TOKEN_B]: [7] }), /entry 2: 7 is not a namespace/],
    ];
    for (const [text, message] of cases) {
      assert.throws(
        () => parseTokenFile(text, 't'),
        (error: Error) => {
          assert.ok(error instanceof TokenFileError);
          assert.match(error.message, message);
          assert.match(error.message, /write one "<token> <namespace>/);
          assert.ok(!error.message.includes(TOKEN_A) && !error.message.includes(TOKEN_B));
          return true;
        },
      );
    }
  });
});
