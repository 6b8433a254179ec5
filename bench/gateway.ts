import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  ROOT,
  startBareServer,
  startMnemo,
  startSupergateway,
  TOKEN,
  UPSTREAM_ARGS,
} from './gateway/servers.js';
import { buildVocabulary, ContentGenerator } from './lib/content.js';
import { ms } from './lib/format.js';
import { type Summary, summarize } from './lib/percentile.js';
import { groups, killGroup } from './lib/processes.js';
import { machine } from './lib/report.js';
import { writeMnemoStore } from './lib/stores.js';

const MEMORIES = 10_000;
const CONCURRENCY = [1, 16] as const;
const CALL_TIMEOUT_MS = 120_000;
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
