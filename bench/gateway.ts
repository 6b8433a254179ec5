// npm run bench:gateway [-- --calls 500 --warmup 20 --json FILE --mnemo DIR]
// tools/call `echo` of the test upstream: directly over stdio; through mnemo serve at /mcp/echo,
// called by a 2025 client (initialize) and a 2026-07-28 one (no handshake); through supergateway
// (stateful and stateless streamable HTTP); and the floor of the same run: a no-op round trip to a
// bare node HTTP server, with fetch alone and with the SDK client. 1 and 16 concurrent clients;
// then mnemo's own search_memory over HTTP at 10k memories. Every client is the v2 SDK Client
// (the floor's first row is fetch). --mnemo DIR measures the dist/cli.js of another checkout (a
// commit before this one, say) in the same run shape.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { buildVocabulary, ContentGenerator } from './lib/content.js';
import { ms } from './lib/format.js';
import { type Summary, summarize } from './lib/percentile.js';
import { groups, killGroup, spawnGroup } from './lib/processes.js';
import { machine } from './lib/report.js';
import { writeMnemoStore } from './lib/stores.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIXTURE = path.join(ROOT, 'test/fixtures/echo-upstream.ts');
const SUPERGATEWAY = path.join(ROOT, 'node_modules/supergateway/dist/index.js');
const TOKEN = 'bench-gateway-token-0123456789';
const MEMORIES = 10_000;
const CONCURRENCY = [1, 16] as const;
const CALL_TIMEOUT_MS = 120_000;
const UPSTREAM_ARGS = ['--import', 'tsx', FIXTURE];
/** supergateway's stateless mode spawns the upstream for every POST: far fewer calls there. */
const SPAWN_PER_CALL_CALLS = 32;

const DIRECT = 'direct stdio';
const FLOOR_FETCH = 'floor: bare node http, fetch';
const FLOOR_SDK = 'floor: bare node http, SDK client (2025)';
const FLOOR_SDK_MODERN = 'floor: bare node http, SDK client (2026-07-28)';
const MNEMO_LEGACY = 'mnemo /mcp/echo, 2025 client';
const MNEMO_MODERN = 'mnemo /mcp/echo, 2026-07-28 client';

type ToolCall = [tool: string, args: Record<string, unknown>];

/** One client of a row: makes a call, says how long it took. */
interface Caller {
  call(call: ToolCall): Promise<number>;
  close(): Promise<void>;
}

type Connect = () => Promise<Caller>;

interface Row {
  path: string;
  clients: number;
  summary: Summary;
  callsPerSecond: number;
  seconds: number;
}

// ---- child processes: each in its own process group, killed as a group ----

/** Keeps the last few KB of a child's output, for error messages. */
function tail(child: ChildProcess): { text: string } {
  const kept = { text: '' };
  const keep = (chunk: Buffer) => {
    kept.text = (kept.text + chunk.toString('utf8')).slice(-4_096);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return kept;
}

async function until(check: () => Promise<boolean>, what: string, output: { text: string }) {
  const deadline = performance.now() + 60_000;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline)
      throw new Error(`timed out waiting for ${what}\n${output.text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

// ---- the servers under test ----

interface Mnemo {
  base: string;
  child: ChildProcess;
}

async function startMnemo(cli: string, dir: string): Promise<Mnemo> {
  const config = path.join(dir, 'gateway-config.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { echo: { command: process.execPath, args: UPSTREAM_ARGS, cwd: ROOT } },
    }),
  );
  const child = spawnGroup(
    ROOT,
    process.execPath,
    [cli, 'serve', '--port', '0', '--data-dir', dir],
    {
      MNEMO_LOG_LEVEL: 'warn',
      MNEMO_AUTH_TOKEN: TOKEN,
      MNEMO_GATEWAY_CONFIG: config,
      MNEMO_RATE_LIMIT: '0',
    },
  );
  const output = tail(child);
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /mnemo serve: (http:\/\/\S+)\/mcp/.exec(out);
      if (m) resolve(m[1] as string);
    });
    child.once('exit', () => reject(new Error(`mnemo serve exited early\n${output.text}`)));
  });
  await until(
    async () => {
      const health = (await (await fetch(`${base}/health`)).json()) as {
        store?: string;
        upstreams?: { label: string; state: string }[];
      };
      const echo = health.upstreams?.find((u) => u.label === 'echo')?.state;
      return health.store !== 'loading' && echo === 'ready';
    },
    'the store and the echo upstream of mnemo to be ready',
    output,
  );
  return { base, child };
}

async function startSupergateway(stateful: boolean): Promise<{ url: URL; child: ChildProcess }> {
  const port = await freePort();
  const command = [process.execPath, ...UPSTREAM_ARGS].map((a) => JSON.stringify(a)).join(' ');
  const args = [SUPERGATEWAY, '--stdio', command, '--outputTransport', 'streamableHttp'];
  args.push('--port', String(port), '--logLevel', 'none', '--healthEndpoint', '/healthz');
  if (stateful) args.push('--stateful');
  const child = spawnGroup(ROOT, process.execPath, args, {});
  const output = tail(child);
  const base = `http://127.0.0.1:${port}`;
  await until(async () => (await fetch(`${base}/healthz`)).ok, 'supergateway to listen', output);
  return { url: new URL(`${base}/mcp`), child };
}

/**
 * The floor: a node HTTP server that answers every request at once, as little as an MCP server
 * over HTTP can do (initialize and tools/call from a canned answer, notifications 202).
 */
async function startBareServer(): Promise<{ url: URL; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        id?: unknown;
        method: string;
        params?: { protocolVersion?: string; _meta?: unknown };
      };
      if (message.id === undefined) return void res.writeHead(202).end();
      const modern = message.method === 'server/discover' || message.params?._meta !== undefined;
      const result =
        message.method === 'initialize'
          ? {
              protocolVersion: message.params?.protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: 'bare', version: '1' },
            }
          : message.method === 'server/discover'
            ? {
                supportedVersions: ['2026-07-28'],
                capabilities: { tools: {} },
                _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'bare', version: '1' } },
              }
            : { content: [{ type: 'text', text: 'bare' }] };
      if (modern)
        Object.assign(result, { resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
      const body = JSON.stringify({ jsonrpc: '2.0', id: message.id, result });
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---- clients and load ----

function sdkCaller(client: Client): Caller {
  return {
    async call([name, args]) {
      const started = performance.now();
      const result = await client.callTool({ name, arguments: args }, { timeout: CALL_TIMEOUT_MS });
      const elapsed = performance.now() - started;
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
      return elapsed;
    },
    close: () => client.close(),
  };
}

const stdioClient: Connect = async () => {
  const client = new Client({ name: 'mnemo-bench-gateway', version: '0.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: UPSTREAM_ARGS,
    cwd: ROOT,
    stderr: 'ignore',
  });
  await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  return sdkCaller(client);
};

/** An SDK client over streamable HTTP: a 2025 one (initialize), or pinned to 2026-07-28. */
const httpClient =
  (url: URL, era: 'legacy' | 'modern', token?: string): Connect =>
  async () => {
    const client = new Client(
      { name: 'mnemo-bench-gateway', version: '0.0.0' },
      era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
    );
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
    });
    await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
    return sdkCaller(client);
  };

/** fetch alone: the JSON-RPC request posted, its JSON answer read; no SDK. */
const fetchClient =
  (url: URL): Connect =>
  async () => {
    let id = 0;
    return {
      async call([name, args]) {
        const started = performance.now();
        const res = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: ++id,
            method: 'tools/call',
            params: { name, arguments: args },
          }),
        });
        const answer = (await res.json()) as { result?: unknown };
        const elapsed = performance.now() - started;
        if (answer.result === undefined) throw new Error(`no result: ${JSON.stringify(answer)}`);
        return elapsed;
      },
      close: async () => {},
    };
  };

/**
 * `clients` clients, each its own Client, warm up with `warmup` calls each, then share `calls`
 * calls (each client takes the next one as soon as it is free); throughput is calls over the
 * wall time of the whole batch.
 */
async function load(
  label: string,
  connect: Connect,
  clients: number,
  calls: number,
  warmup: number,
  next: (i: number) => ToolCall,
): Promise<Row> {
  process.stderr.write(`${label}, ${clients} client(s), ${calls} calls...\n`);
  const pool = await Promise.all(Array.from({ length: clients }, () => connect()));
  try {
    await Promise.all(
      pool.map(async (caller, c) => {
        for (let i = 0; i < warmup; i++) await caller.call(next(-1 - c * warmup - i));
      }),
    );
    const timings: number[] = [];
    let taken = 0;
    const started = performance.now();
    await Promise.all(
      pool.map(async (caller) => {
        while (taken < calls) {
          const i = taken++;
          timings.push(await caller.call(next(i)));
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return {
      path: label,
      clients,
      summary: summarize(timings),
      callsPerSecond: calls / seconds,
      seconds,
    };
  } finally {
    await Promise.all(pool.map((caller) => caller.close().catch(() => {})));
  }
}

// ---- report ----

function table(rows: readonly Row[]): string {
  const header = ['path', 'tool', 'clients', 'calls', 'p50 ms', 'p99 ms', 'calls/s'];
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const out = [line(header), line(header.map((_, i) => (i < 2 ? '---' : '---:')))];
  for (const r of rows) {
    const tool = r.path.startsWith('mnemo /mcp (') ? 'search_memory' : 'echo';
    out.push(
      line([
        r.path,
        tool,
        String(r.clients),
        String(r.summary.n),
        ms(r.summary.p50),
        ms(r.summary.p99),
        r.callsPerSecond.toFixed(r.callsPerSecond < 10 ? 1 : 0),
      ]),
    );
  }
  return out.join('\n');
}

function options() {
  const { values } = parseArgs({
    options: {
      calls: { type: 'string', default: '500' },
      warmup: { type: 'string', default: '20' },
      json: { type: 'string' },
      mnemo: { type: 'string' },
    },
  });
  const calls = Number(values.calls);
  const warmup = Number(values.warmup);
  if (!Number.isInteger(calls) || calls < 1 || !Number.isInteger(warmup) || warmup < 0) {
    throw new Error('--calls takes a whole number >= 1, --warmup a whole number >= 0');
  }
  const cli = path.join(path.resolve(values.mnemo ?? ROOT), 'dist/cli.js');
  return { calls, warmup, json: values.json, cli };
}

/** Runs `rows` of one path, or records why it could not run. */
async function attempt(label: string, problems: string[], run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    problems.push(`${label}: ${(error as Error).message.split('\n')[0]}`);
    process.stderr.write(`${label} failed: ${(error as Error).message}\n`);
  }
}

function verdicts(rows: readonly Row[]): string[] {
  const find = (p: string, c: number) => rows.find((r) => r.path === p && r.clients === c);
  const out: string[] = [];
  for (const c of CONCURRENCY) {
    const direct = find(DIRECT, c);
    const floor = find(FLOOR_FETCH, c);
    for (const [era, floorPath] of [
      [MNEMO_LEGACY, FLOOR_SDK],
      [MNEMO_MODERN, FLOOR_SDK_MODERN],
    ] as const) {
      const viaMnemo = find(era, c);
      const sdkFloor = find(floorPath, c);
      if (!direct || !viaMnemo) continue;
      const added = viaMnemo.summary.p50 - direct.summary.p50;
      const target = c === 1 ? ` (target <= 1 ms: ${added <= 1 ? 'met' : 'NOT met'})` : '';
      const overFloor = sdkFloor
        ? `; ${ms(viaMnemo.summary.p50 - sdkFloor.summary.p50)} ms over the same client's HTTP floor`
        : '';
      out.push(
        `- ${era}, ${c} client(s): ${ms(added)} ms added at p50 over direct stdio${target}${overFloor}`,
      );
    }
    const legacyFloor = find(FLOOR_SDK, c);
    const modernFloor = find(FLOOR_SDK_MODERN, c);
    if (floor && legacyFloor && modernFloor) {
      out.push(
        `- the floor, ${c} client(s): fetch ${ms(floor.summary.p50)} ms, the SDK client ${ms(legacyFloor.summary.p50)} ms (2025) and ${ms(modernFloor.summary.p50)} ms (2026-07-28) at p50`,
      );
    }
    const viaMnemo = find(MNEMO_LEGACY, c);
    for (const sgPath of ['supergateway --stateful', 'supergateway (stateless)']) {
      const sg = find(sgPath, c);
      if (viaMnemo && sg) {
        const ratio = viaMnemo.callsPerSecond / sg.callsPerSecond;
        const beats = ratio > 1 ? 'beats' : 'does NOT beat';
        out.push(
          `- throughput, ${c} client(s): mnemo ${viaMnemo.callsPerSecond.toFixed(0)} calls/s ${beats} ${sgPath} ${sg.callsPerSecond.toFixed(1)} calls/s (x${ratio.toFixed(2)})`,
        );
      }
    }
  }
  return out;
}

async function main(): Promise<void> {
  const started = performance.now();
  const { calls, warmup, json, cli } = options();
  if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: run npm run build`);
  const m = machine();
  const machineLine = `${m.cpu}, ${m.cores} cores, ${m.ramGb} GB RAM, Node ${m.node}, ${os.platform()} ${os.release()}`;
  const echo = (i: number): ToolCall => ['echo', { text: `bench call ${i}` }];
  const rows: Row[] = [];
  const problems: string[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-gateway-'));
  try {
    // 1. Directly over stdio: the baseline (each client spawns its own upstream).
    for (const c of CONCURRENCY) rows.push(await load(DIRECT, stdioClient, c, calls, warmup, echo));

    // 2. The floor: the same round trip to a server that does nothing.
    const bare = await startBareServer();
    try {
      for (const c of CONCURRENCY) {
        rows.push(await load(FLOOR_FETCH, fetchClient(bare.url), c, calls, warmup, echo));
      }
      for (const c of CONCURRENCY) {
        rows.push(await load(FLOOR_SDK, httpClient(bare.url, 'legacy'), c, calls, warmup, echo));
      }
      for (const c of CONCURRENCY) {
        rows.push(
          await load(FLOOR_SDK_MODERN, httpClient(bare.url, 'modern'), c, calls, warmup, echo),
        );
      }
    } finally {
      await bare.close();
    }

    // 3. Through mnemo's gateway, in a data dir of its own: nothing else to do there.
    fs.mkdirSync(path.join(dir, 'gateway'));
    const gateway = await startMnemo(cli, path.join(dir, 'gateway'));
    try {
      const echoUrl = new URL(`${gateway.base}/mcp/echo`);
      for (const [label, era] of [
        [MNEMO_LEGACY, 'legacy'],
        [MNEMO_MODERN, 'modern'],
      ] as const) {
        await attempt(label, problems, async () => {
          for (const c of CONCURRENCY) {
            rows.push(await load(label, httpClient(echoUrl, era, TOKEN), c, calls, warmup, echo));
          }
        });
      }
    } finally {
      await killGroup(gateway.child);
    }

    // 4. mnemo's own tools over 10k memories at /mcp, once the store is loaded.
    const vocabulary = buildVocabulary();
    const corpus = new ContentGenerator(vocabulary, 1).sentences(MEMORIES);
    const queries = new ContentGenerator(vocabulary, 3).queries(calls + 16 * warmup);
    fs.mkdirSync(path.join(dir, 'memory'));
    const stored = path.join(dir, 'memory', 'memories.jsonl');
    writeMnemoStore(stored, corpus, Math.floor(Date.now() / 1000));
    const mnemo = await startMnemo(cli, path.join(dir, 'memory'));
    try {
      const search = (i: number): ToolCall => [
        'search_memory',
        { query: queries[((i % queries.length) + queries.length) % queries.length], top_k: 10 },
      ];
      const memUrl = new URL(`${mnemo.base}/mcp`);
      const label = `mnemo /mcp (${MEMORIES.toLocaleString('en-US')} memories)`;
      await attempt(label, problems, async () => {
        for (const c of CONCURRENCY) {
          rows.push(
            await load(label, httpClient(memUrl, 'legacy', TOKEN), c, calls, warmup, search),
          );
        }
      });
    } finally {
      await killGroup(mnemo.child);
    }

    // 5. Through supergateway: stateful (one upstream per session) and stateless (the default,
    // which spawns the upstream for every POST).
    for (const stateful of [true, false]) {
      const label = stateful ? 'supergateway --stateful' : 'supergateway (stateless)';
      const n = stateful ? calls : Math.min(calls, SPAWN_PER_CALL_CALLS);
      const w = stateful ? warmup : Math.min(warmup, 1);
      await attempt(label, problems, async () => {
        const sg = await startSupergateway(stateful);
        try {
          for (const c of CONCURRENCY) {
            rows.push(await load(label, httpClient(sg.url, 'legacy'), c, n, w, echo));
          }
        } finally {
          await killGroup(sg.child);
        }
      });
    }
  } finally {
    for (const child of [...groups]) await killGroup(child);
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const found = verdicts(rows);
  const seconds = (performance.now() - started) / 1000;
  console.log(`Machine: ${machineLine}\n`);
  console.log(table(rows));
  console.log(
    [
      '',
      `- ${calls} timed calls per row after ${warmup} warm-up calls per client (supergateway stateless: ${Math.min(calls, SPAWN_PER_CALL_CALLS)} calls, 1 warm-up, since it spawns the upstream for every POST); each client is its own v2 SDK Client (the fetch floor: fetch alone); calls/s is calls over the wall time of the row.`,
      '- direct stdio: every client spawns its own upstream (node --import tsx test/fixtures/echo-upstream.ts); mnemo and supergateway --stateful front it over streamable HTTP on 127.0.0.1 (mnemo: one upstream shared by all clients, bearer auth on, rate limit off; supergateway --stateful: one upstream per session).',
      '- the floor: a bare node:http server on 127.0.0.1 answering every POST at once from a canned answer, called with fetch alone and with the SDK client in either revision.',
      `- search_memory: top_k 10, queries of 1-3 content words, over ${MEMORIES.toLocaleString('en-US')} pre-filled memories.`,
      `- mnemo: ${cli}.`,
      '- Percentiles are nearest-rank, ms per MCP round trip.',
      '',
      ...found,
      ...problems.map((p) => `- did not run: ${p}`),
      '',
      `Gateway bench: ${seconds.toFixed(0)} s.`,
    ].join('\n'),
  );
  if (json) {
    const report = { machine: m, calls, warmup, cli, rows, verdicts: found, problems, seconds };
    fs.writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  }
}

main().catch((error: unknown) => {
  console.error((error as Error).stack ?? String(error));
  process.exitCode = 1;
});
