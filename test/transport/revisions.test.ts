// Hostile requests about protocol revisions, sent to the built CLI (`npm run build` first): bodies
// and headers of different revisions mixed, a revision nobody serves, Mcp-Method and Mcp-Name
// missing or contradicting the body, and a huge `_meta`. Each gets a clear JSON-RPC error with the
// code and HTTP status the 2026-07-28 revision gives it, refused calls do nothing, and the
// server goes on serving. On stdio a refusal comes before the answer to a request sent after it
// (it waits on nothing that one does not); what the big lines cost is the scan's and parse's,
// checked in jsonrpc.test.ts and http.test.ts by what they read and what reaches JSON.parse. Codes (spec 2026-07-28, basic/index and transports/streamable-http):
// -32602 a request missing a required `_meta` field, -32020 HeaderMismatch, -32022
// UnsupportedProtocolVersion with `data.supported` and `data.requested`; each at HTTP 400.
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { CLI_PATH, makeTempDir, removeDir } from '../e2e/helpers.js';
import { type ServeProcess, startServe } from '../e2e/serve-process.js';

const MODERN = '2026-07-28';
const UNKNOWN = '2099-01-01';
/** The revisions mnemo serves (issue 22): each must be named where a version is refused. */
const SERVED = [MODERN, '2025-11-25', '2025-06-18', '2025-03-26'];
const LEGACY = SERVED.slice(1);
const HEADER_MISMATCH = -32020;
const UNSUPPORTED_VERSION = -32022;
const INVALID_PARAMS = -32602;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
/** Methods of the initialize-based revisions that 2026-07-28 removed. */
const REMOVED = [
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
];
const TOKEN = 'revisions-token-0123456789abcdef';
/** A reply not come by then never comes: the request fails instead of hanging the run. */
const HANG_MS = 60_000;
/** No refusal echoes what it refused: a 5 MB field never comes back. */
const SMALL_REPLY = 64 * 1024;

type Json = Record<string, unknown>;
interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}
interface Reply {
  jsonrpc?: string;
  id?: unknown;
  result?: Json;
  error?: RpcError;
}

const envelope = (version = MODERN, extra: Json = {}): Json => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientInfo': { name: 'revisions-test', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
  ...extra,
});
const rpc = (id: number, method: string, params?: Json): Json => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params ? { params } : {}),
});
const saveParams = (content: string): Json => ({ name: 'save_memory', arguments: { content } });

/** `_meta` nested `depth` objects deep, written out: JSON.stringify would recurse as deep. */
function deepMetaLine(id: number, depth: number): string {
  const nested = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const meta = JSON.stringify(envelope()).slice(0, -1);
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{"_meta":${meta},"com.example/deep":${nested}}}}`;
}
/** `_meta` with `count` keys besides the envelope. */
function manyKeysMeta(count: number): Json {
  const meta = envelope();
  for (let i = 0; i < count; i++) meta[i.toString(36)] = 1;
  return meta;
}
const FIVE_MB = 'x'.repeat(5 << 20);

/** The error, checked for what every refusal must be: JSON-RPC, a short readable message, small. */
function refusal(reply: Reply | undefined, raw: string, what: string): RpcError {
  assert.ok(reply?.error, `${what}: no JSON-RPC error but ${raw.slice(0, 600)}`);
  assert.equal(reply.jsonrpc, '2.0');
  assert.equal(reply.result, undefined);
  const { message } = reply.error;
  assert.ok(
    message.length > 0 && message.length < 1000,
    `${what}: a message of ${message.length} characters: ${message.slice(0, 200)}`,
  );
  assert.ok(
    raw.length < SMALL_REPLY,
    `${what}: a reply of ${raw.length} bytes: ${raw.slice(0, 200)}`,
  );
  return reply.error;
}

/**
 * -32022 echoing the revision asked for and listing `supported`: for a request with the `_meta`
 * envelope the revisions served without a handshake (what server/discover names, as the
 * conformance suite requires), for one without it every revision served.
 */
function assertUnsupported(
  error: RpcError,
  requested: string,
  supported: readonly string[] = [MODERN],
): void {
  assert.equal(error.code, UNSUPPORTED_VERSION, JSON.stringify(error));
  const data = error.data as { supported?: unknown; requested?: unknown } | undefined;
  assert.ok(Array.isArray(data?.supported), `no data.supported: ${JSON.stringify(error)}`);
  const missing = supported.filter((v) => !(data.supported as unknown[]).includes(v));
  assert.deepEqual(
    missing,
    [],
    `data.supported leaves out served revisions: ${JSON.stringify(data)}`,
  );
  assert.equal(data.requested, requested);
}

describe('mnemo serve: requests that mix, misname or overload protocol revisions', () => {
  let dir: string;
  let serve: ServeProcess;
  before(async () => {
    dir = makeTempDir();
    serve = await startServe(dir, {
      MNEMO_AUTH_TOKEN: TOKEN,
      MNEMO_LOG_LEVEL: 'warn',
      MNEMO_EMBEDDINGS: 'off',
      MNEMO_RATE_LIMIT: '0',
    });
  });
  after(async () => {
    await serve.stop();
    removeDir(dir);
  });

  interface Answer {
    status: number;
    raw: string;
    reply: Reply | undefined;
    headers: Headers;
  }

  /** POST /mcp with the token; the JSON-RPC answer from a JSON body or the SSE stream's last one. */
  async function post(headers: Record<string, string>, body: Json | string): Promise<Answer> {
    const res = await fetch(serve.url, {
      signal: AbortSignal.timeout(HANG_MS),
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${TOKEN}`,
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const raw = await res.text();
    let reply: Reply | undefined;
    if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      const messages = raw
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => JSON.parse(l.slice(5)) as Reply);
      reply = messages.filter((m) => 'result' in m || 'error' in m).at(-1);
    } else if (raw.trim()) {
      reply = JSON.parse(raw) as Reply;
    }
    return { status: res.status, raw, reply, headers: res.headers };
  }

  const modernHeaders = (method: string, name?: string, version = MODERN) => ({
    'mcp-protocol-version': version,
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
  });

  /** A refusal at `status` with one of `codes`; then a 2026-07-28 call still succeeds. */
  async function refused(
    answer: Answer,
    status: number,
    codes: number[],
    what: string,
  ): Promise<RpcError> {
    const error = refusal(answer.reply, answer.raw, what);
    assert.ok(
      codes.includes(error.code),
      `${what}: code ${error.code}, not ${codes}: ${answer.raw}`,
    );
    assert.equal(
      answer.status,
      status,
      `${what}: HTTP ${answer.status}: ${answer.raw.slice(0, 600)}`,
    );
    await stillServing();
    return error;
  }

  async function stillServing(): Promise<void> {
    const ok = await post(
      modernHeaders('tools/list'),
      rpc(99, 'tools/list', { _meta: envelope() }),
    );
    assert.equal(ok.status, 200, `a 2026-07-28 tools/list after it: ${ok.raw.slice(0, 600)}`);
    assert.ok(Array.isArray(ok.reply?.result?.tools), ok.raw.slice(0, 600));
    assert.ok(serve.alive(), serve.stderr());
  }

  it('a 2026-07-28 header on a 2025 body (no _meta): 400, -32602 naming the missing _meta', async () => {
    for (const [method, params, name] of [
      ['tools/list', undefined, undefined],
      ['tools/call', saveParams('a 2025 body under a 2026 header'), 'save_memory'],
    ] as const) {
      const answer = await post(modernHeaders(method, name), rpc(1, method, params));
      const error = await refused(answer, 400, [INVALID_PARAMS, HEADER_MISMATCH], method);
      assert.match(error.message, /_meta|envelope|protocolVersion/i, error.message);
      assert.equal(answer.reply?.id, 1, 'the error answers the request by its id');
    }
  });

  it('a 2025-11-25 header on a 2026-07-28 body: 400, -32020 HeaderMismatch', async () => {
    const answer = await post(
      modernHeaders('tools/list', undefined, '2025-11-25'),
      rpc(2, 'tools/list', { _meta: envelope() }),
    );
    await refused(answer, 400, [HEADER_MISMATCH], '2025-11-25 header, 2026-07-28 envelope');
  });

  it('initialize under a 2026-07-28 header: refused, not a handshake', async () => {
    const init = rpc(3, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'revisions-test', version: '1' },
    });
    const answer = await post(modernHeaders('initialize'), init);
    const error = refusal(answer.reply, answer.raw, 'initialize with a 2026-07-28 header');
    assert.ok([HEADER_MISMATCH, INVALID_PARAMS, METHOD_NOT_FOUND].includes(error.code), answer.raw);
    assert.equal(answer.status, error.code === METHOD_NOT_FOUND ? 404 : 400, answer.raw);
    await stillServing();
  });

  it('Mcp-Method missing, or naming another method than the body: 400, -32020, and the call does not run', async () => {
    const call = rpc(4, 'tools/call', {
      ...saveParams('must not be saved: no Mcp-Method'),
      _meta: envelope(),
    });
    const missing = await post({ 'mcp-protocol-version': MODERN, 'mcp-name': 'save_memory' }, call);
    const absent = await refused(missing, 400, [HEADER_MISMATCH], 'no Mcp-Method');
    assert.match(absent.message, /Mcp-Method/i);
    const contradicting = await post(modernHeaders('tools/list', 'save_memory'), call);
    const other = await refused(contradicting, 400, [HEADER_MISMATCH], 'Mcp-Method: tools/list');
    assert.match(other.message, /Mcp-Method|method/i);
  });

  it('Mcp-Name missing, or naming another tool than params.name: 400, -32020, and the call does not run', async () => {
    const call = rpc(5, 'tools/call', {
      ...saveParams('must not be saved: Mcp-Name disagrees'),
      _meta: envelope(),
    });
    const other = await post(modernHeaders('tools/call', 'search_memory'), call);
    const disagrees = await refused(other, 400, [HEADER_MISMATCH], 'Mcp-Name: search_memory');
    assert.match(disagrees.message, /Mcp-Name|name/i);
    await refused(
      await post(modernHeaders('tools/call'), call),
      400,
      [HEADER_MISMATCH],
      'no Mcp-Name',
    );
  });

  it('methods 2026-07-28 removed (initialize, ping, logging/setLevel, resources/subscribe, resources/unsubscribe), sent as 2026-07-28 requests: 404, -32601, before their params are judged', async () => {
    for (const [i, method] of REMOVED.entries()) {
      const answer = await post(modernHeaders(method), rpc(20 + i, method, { _meta: envelope() }));
      await refused(answer, 404, [METHOD_NOT_FOUND], method);
    }
  });

  it(`${UNKNOWN} in the header and the _meta envelope: 400, -32022 listing the 2026 revisions`, async () => {
    const answer = await post(
      modernHeaders('tools/list', undefined, UNKNOWN),
      rpc(6, 'tools/list', { _meta: envelope(UNKNOWN) }),
    );
    assertUnsupported(await refused(answer, 400, [UNSUPPORTED_VERSION], UNKNOWN), UNKNOWN);
  });

  it(`${UNKNOWN} in the header of a 2025 body: 400, -32022 listing the revisions served`, async () => {
    const answer = await post({ 'mcp-protocol-version': UNKNOWN }, rpc(7, 'tools/list'));
    assertUnsupported(await refused(answer, 400, [UNSUPPORTED_VERSION], UNKNOWN), UNKNOWN, SERVED);
  });

  it(`a 2026-07-28 header over an envelope naming ${UNKNOWN}: 400, -32020 or -32022`, async () => {
    const answer = await post(
      modernHeaders('tools/list'),
      rpc(8, 'tools/list', { _meta: envelope(UNKNOWN) }),
    );
    await refused(answer, 400, [HEADER_MISMATCH, UNSUPPORTED_VERSION], 'header and envelope');
  });

  it(`a 2025 initialize asking for ${UNKNOWN} is answered with a revision mnemo serves`, async () => {
    const answer = await post(
      {},
      rpc(9, 'initialize', {
        protocolVersion: UNKNOWN,
        capabilities: {},
        clientInfo: { name: 'revisions-test', version: '1' },
      }),
    );
    assert.equal(answer.status, 200, answer.raw.slice(0, 600));
    assert.ok(LEGACY.includes(String(answer.reply?.result?.protocolVersion)), answer.raw);
  });

  it('a 5 MB _meta: 413 with a JSON-RPC error', async () => {
    const answer = await post(
      modernHeaders('tools/list'),
      rpc(10, 'tools/list', { _meta: envelope(MODERN, { 'com.example/big': FIVE_MB }) }),
    );
    await refused(answer, 413, [INVALID_REQUEST], '5 MB _meta');
  });

  it('a _meta nested 100,000 deep, or with 100,000 keys: 400, -32600', async () => {
    const deep = await post(modernHeaders('tools/list'), deepMetaLine(11, 100_000));
    await refused(deep, 400, [INVALID_REQUEST], 'deep _meta');
    // Keys of at most 4 characters: the body stays under the 1 MB cap, so its shape is what is refused.
    const many = await post(
      modernHeaders('tools/list'),
      rpc(12, 'tools/list', { _meta: manyKeysMeta(100_000) }),
    );
    await refused(many, 400, [INVALID_REQUEST], '100,000 keys in _meta');
  });

  it('ran none of the refused calls', async () => {
    const answer = await post(
      modernHeaders('tools/call', 'memory_stats'),
      rpc(13, 'tools/call', { name: 'memory_stats', arguments: {}, _meta: envelope() }),
    );
    const stats = answer.reply?.result?.structuredContent as { total?: number } | undefined;
    assert.equal(stats?.total, 0, answer.raw.slice(0, 600));
  });
});

/** `mnemo stdio` written to line by line; replies are read by id (or id null for a refusal). */
class StdioLines {
  readonly child: ChildProcessWithoutNullStreams;
  private stderrText = '';
  private partial = '';
  /** Replies not yet taken, each with its place in the order they came. */
  private unread: { raw: string; reply: Reply; seq: number }[] = [];
  private replies = 0;
  private wake: (() => void)[] = [];

  constructor(dataDir: string) {
    this.child = spawn(process.execPath, [CLI_PATH, 'stdio', '--data-dir', dataDir], {
      env: { PATH: process.env.PATH ?? '', MNEMO_LOG_LEVEL: 'warn', MNEMO_EMBEDDINGS: 'off' },
    });
    this.child.stdout.on('data', (d: Buffer) => {
      const lines = (this.partial + d.toString('utf8')).split('\n');
      this.partial = lines.pop() ?? '';
      for (const raw of lines) {
        this.unread.push({ raw, reply: JSON.parse(raw) as Reply, seq: this.replies++ });
      }
      for (const w of this.wake.splice(0)) w();
    });
    this.child.stderr.on('data', (d: Buffer) => {
      this.stderrText += d.toString('utf8');
    });
    this.child.on('exit', () => {
      for (const w of this.wake.splice(0)) w();
    });
  }

  get stderr(): string {
    return this.stderrText;
  }

  alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends `line`; the reply to `id` (or an id-null refusal of it). */
  send(line: string, id: number): Promise<{ raw: string; reply: Reply; seq: number }> {
    this.child.stdin.write(`${line}\n`);
    return this.reply(id);
  }

  /** The reply to `id` (or an id-null refusal), with its place among the replies. */
  async reply(id: number): Promise<{ raw: string; reply: Reply; seq: number }> {
    for (;;) {
      const i = this.unread.findIndex(
        ({ reply }) => reply.id === id || (reply.id === null && reply.error !== undefined),
      );
      if (i !== -1) {
        const [got] = this.unread.splice(i, 1);
        if (got) return got;
      }
      if (!this.alive())
        throw new Error(`mnemo stdio exited before answering ${id}\n${this.stderr}`);
      await new Promise<void>((resolve) => this.wake.push(resolve));
    }
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    if (this.alive()) await new Promise((resolve) => this.child.on('exit', resolve));
  }
}

// A reply that never comes fails the test instead of hanging the run.
describe('mnemo stdio: requests that mix, misname or overload protocol revisions', {
  timeout: 60_000,
}, () => {
  const dirs: string[] = [];
  /**
   * The process of the tests whose requests are each judged alone (2026-07-28, no handshake, no
   * save): one for all of them, which goes on serving after every refusal. The first line and
   * the 2025 handshake get a process of their own.
   */
  let one: StdioLines | undefined;
  after(async () => {
    await one?.close();
    for (const d of dirs) removeDir(d);
  });
  const open = () => {
    const dir = makeTempDir();
    dirs.push(dir);
    return new StdioLines(dir);
  };
  const shared = () => {
    one ??= open();
    return one;
  };

  /**
   * The reply to `line`, and to a 2026-07-28 tools/list written with it: the first must come
   * first, so it waited on nothing the call after it did not, however slow the machine.
   */
  async function answeredBefore(s: StdioLines, line: string, id: number, what: string) {
    const next = JSON.stringify(rpc(1000 + id, 'tools/list', { _meta: envelope() }));
    s.child.stdin.write(`${line}\n${next}\n`);
    const first = await s.reply(id);
    const ok = await s.reply(1000 + id);
    assert.ok(first.seq < ok.seq, `${what}: answered after a tools/list sent after it`);
    return { first, ok };
  }

  /** The refusal, checked: one of `codes`, small, before a later call; which still succeeds. */
  async function refused(
    s: StdioLines,
    line: string,
    id: number,
    codes: number[],
    what: string,
  ): Promise<RpcError> {
    const { first, ok } = await answeredBefore(s, line, id, what);
    const { raw, reply } = first;
    const error = refusal(reply, raw, what);
    assert.ok(codes.includes(error.code), `${what}: code ${error.code}, not ${codes}: ${raw}`);
    assert.ok(
      Array.isArray(ok.reply.result?.tools),
      `still serving after ${what}: ${ok.raw.slice(0, 600)}`,
    );
    return error;
  }

  it(`opened with ${UNKNOWN}: -32022 listing the revisions served`, async () => {
    const s = open();
    try {
      const line = JSON.stringify(rpc(1, 'tools/list', { _meta: envelope(UNKNOWN) }));
      const error = await refused(
        s,
        line,
        1,
        [UNSUPPORTED_VERSION],
        `${UNKNOWN} as the first line`,
      );
      assertUnsupported(error, UNKNOWN);
    } finally {
      await s.close();
    }
  });

  it(`${UNKNOWN} after 2026-07-28 requests: -32022 still (each request is judged alone)`, async () => {
    const s = shared();
    const ok = await s.send(JSON.stringify(rpc(1, 'tools/list', { _meta: envelope() })), 1);
    assert.ok(Array.isArray(ok.reply.result?.tools), ok.raw.slice(0, 600));
    for (const [id, version] of [
      [2, UNKNOWN],
      [3, '9'.repeat(200)],
    ] as const) {
      const line = JSON.stringify(rpc(id, 'tools/list', { _meta: envelope(version) }));
      const error = await refused(
        s,
        line,
        id,
        [UNSUPPORTED_VERSION],
        `${version.slice(0, 20)} later`,
      );
      // What is given back of an unknown revision is bounded (64 characters).
      assert.equal(
        (error.data as { requested?: unknown } | undefined)?.requested,
        version.slice(0, 64),
      );
    }
  });

  it('methods 2026-07-28 removed, sent as 2026-07-28 requests: -32601 before their params are judged (initialize: an error)', async () => {
    const s = shared();
    await s.send(JSON.stringify(rpc(1, 'tools/list', { _meta: envelope() })), 1);
    for (const [i, method] of REMOVED.entries()) {
      const line = JSON.stringify(rpc(20 + i, method, { _meta: envelope() }));
      // On stdio the code a modern server gives initialize is the implementation's to choose.
      const codes =
        method === 'initialize'
          ? [METHOD_NOT_FOUND, INVALID_PARAMS, INVALID_REQUEST, UNSUPPORTED_VERSION]
          : [METHOD_NOT_FOUND];
      await refused(s, line, 20 + i, codes, method);
    }
  });

  it('a 2025 body (no _meta) among 2026-07-28 requests, or an envelope without clientCapabilities: -32602', async () => {
    const s = shared();
    await s.send(JSON.stringify(rpc(1, 'tools/list', { _meta: envelope() })), 1);
    const bare = await refused(
      s,
      JSON.stringify(rpc(2, 'tools/list')),
      2,
      [INVALID_PARAMS],
      'no _meta',
    );
    assert.match(bare.message, /_meta|envelope/i);
    const partial = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 'revisions-test', version: '1' },
    };
    const noCaps = await refused(
      s,
      JSON.stringify(rpc(3, 'tools/list', { _meta: partial })),
      3,
      [INVALID_PARAMS],
      'no clientCapabilities',
    );
    assert.match(noCaps.message, /clientCapabilities|_meta|envelope/i);
    const save = rpc(4, 'tools/call', saveParams('must not be saved: no _meta'));
    await refused(s, JSON.stringify(save), 4, [INVALID_PARAMS], 'tools/call without _meta');
    const stats = await s.send(
      JSON.stringify(
        rpc(5, 'tools/call', { name: 'memory_stats', arguments: {}, _meta: envelope() }),
      ),
      5,
    );
    const total = (stats.reply.result?.structuredContent as { total?: number } | undefined)?.total;
    assert.equal(total, 0, 'the refused call saved nothing');
  });

  it('a 5 MB protocolVersion: -32022 that does not echo it back', async () => {
    const s = shared();
    const huge = '9'.repeat(5 << 20);
    const line = JSON.stringify(rpc(1, 'tools/list', { _meta: envelope(huge) }));
    await refused(s, line, 1, [UNSUPPORTED_VERSION, INVALID_PARAMS], '5 MB protocolVersion');
  });

  it('a 5 MB value in _meta is answered before the next call, and the answer is small', async () => {
    const s = shared();
    const line = JSON.stringify(
      rpc(1, 'tools/list', { _meta: envelope(MODERN, { 'com.example/big': FIVE_MB }) }),
    );
    const { first, ok } = await answeredBefore(s, line, 1, '5 MB value');
    const { raw, reply } = first;
    assert.ok(reply.result !== undefined || reply.error !== undefined, raw.slice(0, 600));
    assert.ok(raw.length < 1 << 20, `a reply of ${raw.length} bytes`);
    assert.ok(Array.isArray(ok.reply.result?.tools), ok.raw.slice(0, 600));
  });

  it('a _meta nested 100,000 deep, or with 100,000 keys: -32600', async () => {
    const s = shared();
    await s.send(JSON.stringify(rpc(1, 'tools/list', { _meta: envelope() })), 1);
    await refused(s, deepMetaLine(2, 100_000), 2, [INVALID_REQUEST], 'deep _meta');
    const many = JSON.stringify(rpc(3, 'tools/list', { _meta: manyKeysMeta(100_000) }));
    await refused(s, many, 3, [INVALID_REQUEST], '100,000 keys in _meta');
    assert.ok(s.alive(), s.stderr);
  });

  it(`a 2025 initialize asking for ${UNKNOWN} gets a revision mnemo serves; calls work after it`, async () => {
    const s = open();
    try {
      const init = await s.send(
        JSON.stringify(
          rpc(1, 'initialize', {
            protocolVersion: UNKNOWN,
            capabilities: {},
            clientInfo: { name: 'revisions-test', version: '1' },
          }),
        ),
        1,
      );
      assert.ok(LEGACY.includes(String(init.reply.result?.protocolVersion)), init.raw);
      s.child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
      );
      const listed = await s.send(JSON.stringify(rpc(2, 'tools/list')), 2);
      assert.ok(Array.isArray(listed.reply.result?.tools), listed.raw.slice(0, 600));
    } finally {
      await s.close();
    }
  });
});
