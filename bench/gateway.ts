// npm run bench:gateway [-- --calls 500 --warmup 20 --json FILE]
// tools/call `echo` of the test upstream: directly over stdio, through mnemo serve at /mcp/echo,
// and through supergateway (stateless and stateful streamable HTTP), with 1 and 16 concurrent
// clients; then mnemo's own search_memory over HTTP at 10k memories.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildVocabulary, ContentGenerator } from './lib/content.js';
import { type Summary, summarize } from './lib/percentile.js';
import { groups, killGroup, spawnGroup } from './lib/processes.js';
import { machine } from './lib/report.js';
import { writeMnemoStore } from './lib/stores.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MNEMO_CLI = path.join(ROOT, 'dist/cli.js');
const FIXTURE = path.join(ROOT, 'test/fixtures/echo-upstream.ts');
const SUPERGATEWAY = path.join(ROOT, 'node_modules/supergateway/dist/index.js');
const TOKEN = 'bench-gateway-token-0123456789';
const MEMORIES = 10_000;
const CONCURRENCY = [1, 16] as const;
const CALL_TIMEOUT_MS = 120_000;
const UPSTREAM_ARGS = ['--import', 'tsx', FIXTURE];
/** supergateway's stateless mode spawns the upstream for every POST: far fewer calls there. */
const SPAWN_PER_CALL_CALLS = 32;

type ToolCall = [tool: string, args: Record<string, unknown>];

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

async function startMnemo(dir: string): Promise<Mnemo> {
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
    [MNEMO_CLI, 'serve', '--port', '0', '--data-dir', dir],
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
        upstreams?: { label: string; state: string }[];
      };
      return health.upstreams?.find((u) => u.label === 'echo')?.state === 'ready';
    },
    'the echo upstream of mnemo to be ready',
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

// ---- clients and load ----

type Connect = () => Promise<Client>;

async function connected(transport: StdioClientTransport | StreamableHTTPClientTransport) {
  const client = new Client({ name: 'mnemo-bench-gateway', version: '0.0.0' });
  await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  return client;
}

const stdioClient: Connect = () =>
  connected(
    new StdioClientTransport({
      command: process.execPath,
      args: UPSTREAM_ARGS,
      cwd: ROOT,
      stderr: 'ignore',
    }),
  );

const httpClient =
  (url: URL, token?: string): Connect =>
  () =>
    connected(
      new StreamableHTTPClientTransport(url, {
        requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
      }),
    );

async function call(client: Client, [name, args]: ToolCall): Promise<number> {
  const started = performance.now();
  const result = await client.callTool({ name, arguments: args }, undefined, {
    timeout: CALL_TIMEOUT_MS,
  });
  const elapsed = performance.now() - started;
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return elapsed;
}

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
      pool.map(async (client, c) => {
        for (let i = 0; i < warmup; i++) await call(client, next(-1 - c * warmup - i));
      }),
    );
    const timings: number[] = [];
    let taken = 0;
    const started = performance.now();
    await Promise.all(
      pool.map(async (client) => {
        while (taken < calls) {
          const i = taken++;
          timings.push(await call(client, next(i)));
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
    await Promise.all(pool.map((client) => client.close().catch(() => {})));
  }
}

// ---- report ----

const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

function table(rows: readonly Row[]): string {
  const header = ['path', 'tool', 'clients', 'calls', 'p50 ms', 'p99 ms', 'calls/s'];
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const out = [line(header), line(header.map((_, i) => (i < 2 ? '---' : '---:')))];
  for (const r of rows) {
    const tool = r.path.startsWith('mnemo /mcp ') ? 'search_memory' : 'echo';
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
    },
  });
  const calls = Number(values.calls);
  const warmup = Number(values.warmup);
  if (!Number.isInteger(calls) || calls < 1 || !Number.isInteger(warmup) || warmup < 0) {
    throw new Error('--calls takes a whole number >= 1, --warmup a whole number >= 0');
  }
  return { calls, warmup, json: values.json };
}

async function main(): Promise<void> {
  const started = performance.now();
  const { calls, warmup, json } = options();
  if (!fs.existsSync(MNEMO_CLI)) throw new Error('dist/cli.js is missing: run npm run build');
  const m = machine();
  const machineLine = `${m.cpu}, ${m.cores} cores, ${m.ramGb} GB RAM, Node ${m.node}, ${os.platform()} ${os.release()}`;
  const echo = (i: number): ToolCall => ['echo', { text: `bench call ${i}` }];
  const rows: Row[] = [];
  const problems: string[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-gateway-'));
  try {
    // 1. Directly over stdio: the baseline (each client spawns its own upstream).
    for (const c of CONCURRENCY) {
      rows.push(await load('direct stdio', stdioClient, c, calls, warmup, echo));
    }

    // 2. Through mnemo, which also serves its own tools over 10k memories at /mcp.
    const vocabulary = buildVocabulary();
    const corpus = new ContentGenerator(vocabulary, 1).sentences(MEMORIES);
    const queries = new ContentGenerator(vocabulary, 3).queries(calls + 16 * warmup);
    writeMnemoStore(path.join(dir, 'memories.jsonl'), corpus, Math.floor(Date.now() / 1000));
    const mnemo = await startMnemo(dir);
    try {
      const echoUrl = new URL(`${mnemo.base}/mcp/echo`);
      for (const c of CONCURRENCY) {
        rows.push(
          await load('mnemo /mcp/echo', httpClient(echoUrl, TOKEN), c, calls, warmup, echo),
        );
      }
      const search = (i: number): ToolCall => [
        'search_memory',
        { query: queries[((i % queries.length) + queries.length) % queries.length], top_k: 10 },
      ];
      const memUrl = new URL(`${mnemo.base}/mcp`);
      for (const c of CONCURRENCY) {
        const label = `mnemo /mcp (${MEMORIES.toLocaleString('en-US')} memories)`;
        rows.push(await load(label, httpClient(memUrl, TOKEN), c, calls, warmup, search));
      }
    } finally {
      await killGroup(mnemo.child);
    }

    // 3. Through supergateway: stateful (one upstream per session) and stateless (the default,
    // which spawns the upstream for every POST).
    for (const stateful of [true, false]) {
      const label = stateful ? 'supergateway --stateful' : 'supergateway (stateless)';
      const n = stateful ? calls : Math.min(calls, SPAWN_PER_CALL_CALLS);
      const w = stateful ? warmup : Math.min(warmup, 1);
      try {
        const sg = await startSupergateway(stateful);
        try {
          for (const c of CONCURRENCY) {
            rows.push(await load(label, httpClient(sg.url), c, n, w, echo));
          }
        } finally {
          await killGroup(sg.child);
        }
      } catch (error) {
        problems.push(`${label}: ${(error as Error).message}`);
        process.stderr.write(`${label} failed: ${(error as Error).message}\n`);
      }
    }
  } finally {
    for (const child of [...groups]) await killGroup(child);
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const find = (p: string, c: number) => rows.find((r) => r.path === p && r.clients === c);
  const verdicts: string[] = [];
  for (const c of CONCURRENCY) {
    const direct = find('direct stdio', c);
    const viaMnemo = find('mnemo /mcp/echo', c);
    if (direct && viaMnemo) {
      const added = viaMnemo.summary.p50 - direct.summary.p50;
      const target =
        c === 1 ? (added <= 1 ? ' (target <= 1 ms: met)' : ' (target <= 1 ms: NOT met)') : '';
      verdicts.push(
        `- mnemo added p50 over direct stdio, ${c} client(s): ${ms(added)} ms${target}`,
      );
    }
    for (const sgPath of ['supergateway --stateful', 'supergateway (stateless)']) {
      const sg = find(sgPath, c);
      if (viaMnemo && sg) {
        const ratio = viaMnemo.callsPerSecond / sg.callsPerSecond;
        const beats = ratio > 1 ? 'beats' : 'does NOT beat';
        verdicts.push(
          `- throughput, ${c} client(s): mnemo ${viaMnemo.callsPerSecond.toFixed(0)} calls/s ${beats} ${sgPath} ${sg.callsPerSecond.toFixed(1)} calls/s (x${ratio.toFixed(2)})`,
        );
      }
    }
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`Machine: ${machineLine}\n`);
  console.log(table(rows));
  console.log(
    [
      '',
      `- ${calls} timed calls per row after ${warmup} warm-up calls per client (supergateway stateless: ${Math.min(calls, SPAWN_PER_CALL_CALLS)} calls, 1 warm-up, since it spawns the upstream for every POST); each client is its own SDK Client; calls/s is calls over the wall time of the row.`,
      '- direct stdio: every client spawns its own upstream (node --import tsx test/fixtures/echo-upstream.ts); mnemo and supergateway --stateful front it over streamable HTTP on 127.0.0.1 (mnemo: one upstream shared by all clients, bearer auth on, rate limit off; supergateway --stateful: one upstream per session).',
      `- search_memory: top_k 10, queries of 1-3 content words, over ${MEMORIES.toLocaleString('en-US')} pre-filled memories.`,
      '- Percentiles are nearest-rank, ms per MCP round trip.',
      '',
      ...verdicts,
      ...problems.map((p) => `- did not run: ${p}`),
      '',
      `Gateway bench: ${seconds.toFixed(0)} s.`,
    ].join('\n'),
  );
  if (json) {
    const report = { machine: m, calls, warmup, rows, verdicts, problems, seconds };
    fs.writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  }
}

main().catch((error: unknown) => {
  console.error((error as Error).stack ?? String(error));
  process.exitCode = 1;
});
