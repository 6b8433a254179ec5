// Part `load`: save_memory and search_memory round trips and calls/s with 1 and 16 clients, then
// 16 clients alternating the two, on each setup; and where the CPU of each row goes.
import os from 'node:os';
import type { Client } from '@modelcontextprotocol/client';
import { TICKS_PER_SECOND } from '../lib/cpu.js';
import { count, ms, rate, table } from '../lib/format.js';
import { type Summary, summarize } from '../lib/percentile.js';
import { type CpuPerCall, type CpuScope, cpuPerCall, cpuSnapshot } from './cpu-scope.js';
import type { Options, Part, PartContext } from './part.js';
import {
  call,
  closeAll,
  connectAll,
  type Replica,
  STORAGE_LABEL,
  type Storage,
  type ToolCall,
} from './serve.js';

const CONCURRENCY = [1, 16] as const;
/** The clients of the mixed row. */
const MIXED_CLIENTS = 16;

/** What the clients of a row call: one tool, or save and search in turn. */
type LoadKind = 'search' | 'save' | 'mixed';

export interface LoadRow {
  size: number;
  storage: Storage;
  /** Which processes the clients talked to, e.g. "A" or "A+B". */
  replicas: string;
  kind: LoadKind;
  tool: string;
  clients: number;
  summary: Summary;
  callsPerSecond: number;
  /** CPU time a call of the row (every tool), by who spent it. */
  cpu: CpuPerCall;
}

interface Timed {
  tools: Record<string, { summary: Summary; callsPerSecond: number }>;
  cpu: CpuPerCall;
}

/**
 * `clients` clients, client c on replica c mod the replicas, each warms up with `warmup` calls,
 * then they share `calls` calls (each client takes the next as soon as it is free). Timings are
 * kept by tool; a tool's calls/s is its calls over the wall time of the batch.
 */
async function load(
  scope: CpuScope,
  replicas: readonly Replica[],
  clients: number,
  calls: number,
  warmup: number,
  next: (i: number) => ToolCall,
): Promise<Timed> {
  const pool: Client[] = await connectAll(replicas, clients);
  try {
    await Promise.all(
      pool.map(async (client, c) => {
        for (let i = 0; i < warmup; i++) await call(client, next(c + i));
      }),
    );
    const timings = new Map<string, number[]>();
    let taken = 0;
    const cpuBefore = await cpuSnapshot(scope);
    const started = performance.now();
    await Promise.all(
      pool.map(async (client) => {
        while (taken < calls) {
          const request = next(taken++);
          const { ms } = await call(client, request);
          const list = timings.get(request[0]) ?? [];
          list.push(ms);
          timings.set(request[0], list);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpu = await cpuPerCall(scope, cpuBefore, calls);
    const tools: Timed['tools'] = {};
    for (const [tool, list] of timings) {
      tools[tool] = { summary: summarize(list), callsPerSecond: list.length / seconds };
    }
    return { tools, cpu };
  } finally {
    await closeAll(pool);
  }
}

/**
 * Searches alone, saves alone (1 and 16 clients), then 16 clients alternating the two: clients
 * spread over the setup's replicas.
 */
async function loadRows(ctx: PartContext): Promise<LoadRow[]> {
  const { replicas, storage, size } = ctx;
  const scope: CpuScope = { servers: replicas.map((r) => r.child), database: ctx.database };
  const work = ctx.work();
  const rows: LoadRow[] = [];
  const mixed = (i: number) => (i % 2 === 0 ? work.nextSave() : work.nextSearch());
  type Run = [LoadKind, number, (i: number) => ToolCall];
  const runs: Run[] = [
    ...CONCURRENCY.map((c): Run => ['search', c, work.nextSearch]),
    ...CONCURRENCY.map((c): Run => ['save', c, work.nextSave]),
    ['mixed', MIXED_CLIENTS, mixed],
  ];
  for (const [kind, clients, next] of runs) {
    const used = replicas.slice(0, Math.min(clients, replicas.length));
    const on = used.map((r) => r.name).join('+');
    process.stderr.write(
      `${storage} at ${size}: ${kind}, ${clients} client(s) on ${on}, ${work.calls} calls...\n`,
    );
    const { tools, cpu } = await load(scope, used, clients, work.calls, work.warmup, next);
    for (const [tool, r] of Object.entries(tools)) {
      rows.push({ size, storage, replicas: on, kind, tool, clients, ...r, cpu });
    }
  }
  return rows;
}

function loadTable(rows: readonly LoadRow[]): string {
  const header = [
    'memories',
    'storage',
    'clients',
    'save p50 ms',
    'save p99 ms',
    'save calls/s',
    'search p50 ms',
    'search p99 ms',
    'search calls/s',
  ];
  const body: string[][] = [];
  const keyOf = (r: LoadRow) =>
    `${r.size}|${r.storage}|${r.clients}|${r.kind === 'mixed' ? 'mixed' : 'alone'}`;
  for (const key of new Set(rows.map(keyOf))) {
    const of = (tool: string) => rows.find((r) => keyOf(r) === key && r.tool === tool);
    const save = of('save_memory');
    const search = of('search_memory');
    const first = (save ?? search) as LoadRow;
    const cells = (r: LoadRow | undefined) =>
      r ? [ms(r.summary.p50), ms(r.summary.p99), rate(r.callsPerSecond)] : ['', '', ''];
    body.push([
      count(first.size),
      STORAGE_LABEL[first.storage],
      `${first.clients}${first.replicas.includes('+') ? ' (A+B)' : ''}${first.kind === 'mixed' ? ', mixed' : ''}`,
      ...cells(save),
      ...cells(search),
    ]);
  }
  return table(header, 2, body);
}

function cpuTable(rows: readonly LoadRow[]): string {
  const header = [
    'memories',
    'storage',
    'clients',
    'calls',
    'calls/s',
    'CPU ms a call: mnemo',
    'PostgreSQL',
    'MCP clients',
    'cores busy',
  ];
  const body: string[][] = [];
  const keyOf = (r: LoadRow) => `${r.size}|${r.storage}|${r.clients}|${r.kind}`;
  for (const key of new Set(rows.map(keyOf))) {
    const same = rows.filter((r) => keyOf(r) === key);
    const r = same[0] as LoadRow;
    const calls = r.kind === 'mixed' ? 'save + search' : r.tool.replace('_memory', '');
    body.push([
      count(r.size),
      STORAGE_LABEL[r.storage],
      `${r.clients}${r.replicas.includes('+') ? ' (A+B)' : ''}`,
      calls,
      rate(same.reduce((sum, x) => sum + x.callsPerSecond, 0)),
      ms(r.cpu.mnemo),
      r.cpu.postgres === null ? '' : ms(r.cpu.postgres),
      ms(r.cpu.clients),
      r.cpu.cores.toFixed(2),
    ]);
  }
  return table(header, 4, body);
}

function report(rows: readonly LoadRow[], opts: Options): string[] {
  return [
    loadTable(rows),
    '',
    `- ${opts.calls} timed calls a row after ${opts.warmup} warm-up calls a client; each client is its own SDK Client over streamable HTTP (bearer auth on, rate limit off, MNEMO_EMBEDDINGS=off); calls/s is calls over the wall time of the row.`,
    '- JSONL: one `mnemo serve` on a data dir. PostgreSQL: two `mnemo serve` replicas A and B on one database (its own schema); 1 client talks to A, 16 clients are 8 on A and 8 on B.',
    '- search_memory: top_k 10, 1-3 content words; save_memory: new sentences of 10-40 words (each row adds its calls to the store); mixed: 16 clients, each alternating save_memory and search_memory, the calls of the row split between the two. Percentiles are nearest-rank, ms per MCP round trip.',
    '',
    cpuTable(rows),
    '',
    `- Where the time goes: CPU time (user + system, /proc, ${1000 / TICKS_PER_SECOND} ms ticks) a call of each row, of the mnemo processes (A and B both, whichever the clients used), of the PostgreSQL backends serving their connections, and of this process (the MCP clients); cores busy is their sum over the wall time (the machine has ${os.cpus().length}).`,
  ];
}

export const LOAD: Part<LoadRow> = {
  name: 'load',
  on: ['jsonl', 'postgres'],
  run: loadRows,
  report,
};
