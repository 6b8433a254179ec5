// npm run bench:shared [-- --sizes 10000,100000 --calls 1000 --warmup 10 --probes 200 --poll-ms 2
//                         --read-seconds 10 --database-url URL --quick --json FILE]
// One `mnemo serve` on a data dir (JSONL) against two `mnemo serve` replicas sharing one
// PostgreSQL database, over MCP streamable HTTP: save_memory and search_memory p50/p99 and
// calls/s with 1 and 16 clients, and where the CPU goes; the replication lag (saved through
// replica A, found by search_memory through replica B), idle and while 16 clients load both
// replicas; and searches through B while 16 clients save through both. The database is
// postgres://postgres@127.0.0.1:5432/test unless --database-url says otherwise; the bench works in
// a schema of its own (mnemo_bench_shared_PID), dropped at the end.
import type { ChildProcess } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import pg from 'pg';
import { DEFAULT_NAMESPACE } from '../src/storage/engine.js';
import { MEMORY_COLUMNS, memoryValues } from '../src/storage/postgres/rows.js';
import { migrate } from '../src/storage/postgres/schema.js';
import { buildVocabulary, ContentGenerator } from './lib/content.js';
import { type Summary, summarize } from './lib/percentile.js';
import { groups, killGroup, signalGroup, spawnGroup } from './lib/processes.js';
import { machine } from './lib/report.js';
import { mnemoRecords, writeMnemoStore } from './lib/stores.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MNEMO_CLI = path.join(ROOT, 'dist/cli.js');
const TOKEN = 'bench-shared-token-0123456789abcdef';
const DEFAULT_DATABASE = 'postgres://postgres@127.0.0.1:5432/test';
const CONCURRENCY = [1, 16] as const;
/** The clients that load the replicas while the lag is measured. */
const LOAD_CLIENTS = 16;
const CALL_TIMEOUT_MS = 120_000;
/** A probe not found through B by then fails the bench (a lost change, not a slow one). */
const PROBE_GIVE_UP_MS = 30_000;
const INSERT_BATCH = 1_000;

type ToolCall = [tool: string, args: Record<string, unknown>];
type Storage = 'jsonl' | 'postgres';
/** What the clients of a row call: one tool, or save and search in turn. */
type LoadKind = 'search' | 'save' | 'mixed';

interface LoadRow {
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

interface CpuPerCall {
  /** The mnemo serve processes. */
  mnemo: number;
  /** The PostgreSQL backends of their connections (null on JSONL). */
  postgres: number | null;
  /** This process: the MCP clients. */
  clients: number;
  /** CPU of all three over the wall time of the row, in cores. */
  cores: number;
}

interface StartRow {
  size: number;
  storage: Storage;
  process: string;
  /** Spawn to the answer of the first search_memory (which waits for the store's load). */
  firstSearchMs: number;
  /** After the whole run. */
  peakRssMb: number;
}

interface LagRow {
  size: number;
  /** Clients loading the replicas meanwhile (0: idle). */
  loadClients: number;
  lag: Summary & { max: number };
  pollsPerProbe: number;
  /** The share of probes B's first search found. */
  firstPollShare: number;
  /** One search_memory round trip through B while polling. */
  poll: Summary;
  /** Calls/s of the clients loading the replicas, during the probes. */
  loadCallsPerSecond: number;
  /** Their round trips, by tool. */
  loadSave: Summary;
  loadSearch: Summary;
}

interface ReadsRow {
  size: number;
  /** Clients saving without pause, half through A, half through B. */
  writers: number;
  seconds: number;
  /** One client's search_memory through B, back to back, for as long as the writers write. */
  search: Summary & { max: number };
  savesPerSecond: number;
}

// ---- child processes: each in its own process group, killed as a group (as bench/gateway.ts) ----

// Ctrl-C: the children go at once, the calls to them fail, and the finally blocks below still
// drop the schema.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.exitCode = 130;
    for (const child of groups) signalGroup(child, 'SIGKILL');
  });
}

/** The child's peak resident set (VmHWM), in MB. */
function peakRssMb(child: ChildProcess): number {
  try {
    const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const kb = /^VmHWM:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? Number.NaN : Number(kb) / 1024;
  } catch {
    return Number.NaN;
  }
}

// ---- mnemo serve ----

interface Replica {
  name: string;
  url: URL;
  child: ChildProcess;
  spawnedAt: number;
  output: { text: string };
}

/** Spawns `mnemo serve --port 0` and resolves once it printed its URL. */
async function startServe(name: string, dir: string, databaseUrl?: string): Promise<Replica> {
  const env: Record<string, string> = {
    MNEMO_LOG_LEVEL: 'warn',
    MNEMO_AUTH_TOKEN: TOKEN,
    MNEMO_RATE_LIMIT: '0',
    // Storage and indexes of words: the embeddings are measured by npm run bench.
    MNEMO_EMBEDDINGS: 'off',
  };
  if (databaseUrl) env.MNEMO_DATABASE_URL = databaseUrl;
  const spawnedAt = performance.now();
  const child = spawnGroup(
    ROOT,
    process.execPath,
    [MNEMO_CLI, 'serve', '--port', '0', '--data-dir', dir],
    env,
  );
  const output = { text: '' };
  const keep = (chunk: Buffer) => {
    output.text = (output.text + chunk.toString('utf8')).slice(-4_096);
  };
  child.stderr?.on('data', keep);
  const url = await new Promise<URL>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      keep(d);
      out += d.toString();
      const m = /mnemo serve: (http:\/\/\S+\/mcp)/.exec(out);
      if (m) resolve(new URL(m[1] as string));
    });
    child.once('exit', () => reject(new Error(`mnemo serve ${name} exited\n${output.text}`)));
  });
  return { name, url, child, spawnedAt, output };
}

async function connect(replica: Replica): Promise<Client> {
  const client = new Client({ name: 'mnemo-bench-shared', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(replica.url, {
    requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
  });
  await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  return client;
}

async function call(
  client: Client,
  [name, args]: ToolCall,
): Promise<{ ms: number; structured: Record<string, unknown> }> {
  const started = performance.now();
  const result = await client.callTool(
    { name, arguments: args },
    {
      timeout: CALL_TIMEOUT_MS,
    },
  );
  const ms = performance.now() - started;
  if (result.isError) {
    throw new Error(`${name} failed: ${JSON.stringify(result.content).slice(0, 500)}`);
  }
  return { ms, structured: (result.structuredContent ?? {}) as Record<string, unknown> };
}

/** Spawn to the first search answer of each replica, started together. */
async function firstSearches(replicas: readonly Replica[], query: string): Promise<number[]> {
  return Promise.all(
    replicas.map(async (r) => {
      const client = await connect(r);
      try {
        await call(client, ['search_memory', { query, top_k: 10 }]);
        return performance.now() - r.spawnedAt;
      } catch (error) {
        throw new Error(`${(error as Error).message}\n${r.output.text}`);
      } finally {
        await client.close().catch(() => {});
      }
    }),
  );
}

// ---- CPU time: where the time of a row goes ----

/** Clock ticks a second of /proc/PID/stat (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** User + system CPU time of process `pid` so far, in ms (0 once it is gone). */
function cpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command's closing parenthesis: state, then utime and stime at 11 and 12.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** The local ports of process `pid`'s TCP connections to remote port `port`. */
function portsTo(pid: number, port: number): number[] {
  const inodes = new Set<string>();
  try {
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1] as string);
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const row of text.split('\n').slice(1)) {
      const f = row.trim().split(/\s+/);
      if (f.length < 10 || !inodes.has(f[9] as string)) continue;
      const remote = Number.parseInt(f[2]?.split(':')[1] ?? '', 16);
      if (remote === port) out.push(Number.parseInt(f[1]?.split(':')[1] ?? '', 16));
    }
  }
  return out;
}

/** What a row's CPU is measured on: the servers, and the database they use (if any). */
interface CpuScope {
  servers: readonly ChildProcess[];
  database?: { admin: pg.Client; port: number };
}

interface CpuSnapshot {
  at: number;
  clients: NodeJS.CpuUsage;
  mnemo: number;
  backends: Map<number, number>;
}

/** The PostgreSQL backends serving the servers' connections, with their CPU ms so far. */
async function backendsOf(scope: CpuScope): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (!scope.database) return out;
  const ports = scope.servers.flatMap((s) =>
    s.pid === undefined ? [] : portsTo(s.pid, scope.database?.port ?? 5432),
  );
  const rows = await scope.database.admin.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1)',
    [ports],
  );
  for (const { pid } of rows.rows) out.set(pid, cpuMs(pid));
  return out;
}

async function cpuSnapshot(scope: CpuScope): Promise<CpuSnapshot> {
  return {
    at: performance.now(),
    clients: process.cpuUsage(),
    mnemo: scope.servers.reduce((sum, s) => sum + (s.pid === undefined ? 0 : cpuMs(s.pid)), 0),
    backends: await backendsOf(scope),
  };
}

/**
 * CPU ms a call between two snapshots. A backend seen only at the end started during the row (a
 * pool grows under load): all its time counts; one that ended during the row is missed.
 */
async function cpuPerCall(scope: CpuScope, before: CpuSnapshot, calls: number) {
  const after = await cpuSnapshot(scope);
  const clients = process.cpuUsage(before.clients);
  const mnemo = after.mnemo - before.mnemo;
  let postgres = 0;
  for (const [pid, ms] of after.backends) postgres += ms - (before.backends.get(pid) ?? 0);
  const clientsMs = (clients.user + clients.system) / 1000;
  const wall = after.at - before.at;
  return {
    mnemo: mnemo / calls,
    postgres: scope.database ? postgres / calls : null,
    clients: clientsMs / calls,
    cores: (mnemo + postgres + clientsMs) / wall,
  };
}

// ---- load ----

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
  const pool = await Promise.all(
    Array.from({ length: clients }, (_, c) => connect(replicas[c % replicas.length] as Replica)),
  );
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
    await Promise.all(pool.map((client) => client.close().catch(() => {})));
  }
}

interface Workload {
  size: number;
  calls: number;
  warmup: number;
  nextSave: () => ToolCall;
  nextSearch: () => ToolCall;
}

/**
 * Searches alone, saves alone (1 and 16 clients), then 16 clients alternating the two: clients
 * spread over `replicas`.
 */
async function loadRows(
  storage: Storage,
  replicas: readonly Replica[],
  work: Workload,
  database?: CpuScope['database'],
): Promise<LoadRow[]> {
  const scope: CpuScope = { servers: replicas.map((r) => r.child), database };
  const rows: LoadRow[] = [];
  const mixed = (i: number) => (i % 2 === 0 ? work.nextSave() : work.nextSearch());
  type Run = [LoadKind, number, (i: number) => ToolCall];
  const runs: Run[] = [
    ...CONCURRENCY.map((c): Run => ['search', c, work.nextSearch]),
    ...CONCURRENCY.map((c): Run => ['save', c, work.nextSave]),
    ['mixed', LOAD_CLIENTS, mixed],
  ];
  for (const [kind, clients, next] of runs) {
    const used = replicas.slice(0, Math.min(clients, replicas.length));
    const on = used.map((r) => r.name).join('+');
    process.stderr.write(
      `${storage} at ${work.size}: ${kind}, ${clients} client(s) on ${on}, ${work.calls} calls...\n`,
    );
    const { tools, cpu } = await load(scope, used, clients, work.calls, work.warmup, next);
    for (const [tool, r] of Object.entries(tools)) {
      rows.push({ size: work.size, storage, replicas: on, kind, tool, clients, ...r, cpu });
    }
  }
  return rows;
}

// ---- replication lag ----

/**
 * A word no other memory holds. With a digit in it the tokenizer keeps it whole (no stemming, which
 * would make "...qs" and "...qe" the same word).
 */
function probeWord(run: string, i: number): string {
  return `lagprobe${run}n${i}`;
}

/**
 * `probes` times, one at a time: save a memory with a word of its own through A, then search that
 * word through B every `pollMs` until B answers the memory's id. The lag is from A's answer to the
 * answer of B's first search that finds it: nothing is subtracted (it includes the round trip of
 * that search). Meanwhile `loadClients` clients (half on A, half on B) alternate save_memory and
 * search_memory without pause.
 */
async function measureLag(
  a: Replica,
  b: Replica,
  size: number,
  probes: number,
  pollMs: number,
  loadClients: number,
  work: Workload,
): Promise<LagRow> {
  process.stderr.write(
    `postgres at ${size}: replication lag, ${probes} probes, ${loadClients} clients loading...\n`,
  );
  const run = Math.random()
    .toString(36)
    .replace(/[^a-z]/g, '')
    .slice(0, 6);
  const saver = await connect(a);
  const poller = await connect(b);
  const loaders = await Promise.all(
    Array.from({ length: loadClients }, (_, c) => connect(c % 2 === 0 ? a : b)),
  );
  let stop = false;
  let measuring = false;
  let loadCalls = 0;
  const loadTimes: Record<string, number[]> = { save_memory: [], search_memory: [] };
  // A failed load call ends the load and fails the probes at their next step (never an unhandled
  // rejection, which would end the process before the schema is dropped).
  let loadFailure: Error | undefined;
  const loading = Promise.all(
    loaders.map(async (client, c) => {
      for (let i = c; !stop; i++) {
        const request = i % 2 === 0 ? work.nextSave() : work.nextSearch();
        const { ms } = await call(client, request);
        if (measuring) {
          loadCalls++;
          loadTimes[request[0]]?.push(ms);
        }
      }
    }),
  ).catch((error: unknown) => {
    stop = true;
    loadFailure = error as Error;
  });
  try {
    // The load gets going before the first probe.
    if (loadClients > 0) await sleep(500);
    const lags: number[] = [];
    const polls: number[] = [];
    let firstPollFinds = 0;
    const loadStarted = performance.now();
    measuring = true;
    for (let i = 0; i < probes; i++) {
      if (loadFailure) throw loadFailure;
      const word = probeWord(run, i);
      const saved = await call(saver, [
        'save_memory',
        { content: `Replication probe ${word}: ${work.nextSave()[1].content as string}` },
      ]);
      const acked = performance.now();
      const id = saved.structured.memory_id as string;
      let found = false;
      for (let tries = 0; !found; tries++) {
        const answer = await call(poller, [
          'search_memory',
          { query: word, top_k: 1, include_review_candidates: false },
        ]);
        polls.push(answer.ms);
        const hits = (answer.structured.results ?? []) as { memory_id: string }[];
        found = hits.some((h) => h.memory_id === id);
        const since = performance.now() - acked;
        if (found) {
          lags.push(since);
          if (tries === 0) firstPollFinds++;
        } else if (since > PROBE_GIVE_UP_MS) {
          throw new Error(`probe ${i} (${id}) saved through A not found through B after 30 s`);
        } else await sleep(pollMs);
      }
    }
    measuring = false;
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    const lag = summarize(lags);
    return {
      size,
      loadClients,
      lag: { ...lag, max: Math.max(...lags) },
      pollsPerProbe: polls.length / probes,
      firstPollShare: firstPollFinds / probes,
      poll: summarize(polls),
      loadCallsPerSecond: loadCalls / loadSeconds,
      loadSave: summarize(loadTimes.save_memory ?? []),
      loadSearch: summarize(loadTimes.search_memory ?? []),
    };
  } finally {
    stop = true;
    await loading;
    await Promise.all([saver, poller, ...loaders].map((client) => client.close().catch(() => {})));
  }
}

/**
 * Searches through B, one client back to back, while `LOAD_CLIENTS` clients do nothing but save
 * (half through A, half through B) for `seconds`. The search in flight when the writers stop is
 * awaited and counted: a search held up by the writes shows as one long call.
 */
async function readsUnderWrites(
  a: Replica,
  b: Replica,
  size: number,
  seconds: number,
  work: Workload,
): Promise<ReadsRow> {
  process.stderr.write(
    `postgres at ${size}: search through B while ${LOAD_CLIENTS} clients save, ${seconds} s...\n`,
  );
  const reader = await connect(b);
  const writers = await Promise.all(
    Array.from({ length: LOAD_CLIENTS }, (_, c) => connect(c % 2 === 0 ? a : b)),
  );
  try {
    let stop = false;
    let saves = 0;
    const started = performance.now();
    const writing = Promise.all(
      writers.map(async (client) => {
        while (!stop) {
          await call(client, work.nextSave());
          saves++;
        }
      }),
    );
    const stopping = sleep(seconds * 1000).then(() => {
      stop = true;
    });
    const searches: number[] = [];
    // The writers' failure ends the reading too, and is thrown below.
    const failed = writing.then(
      () => false,
      () => {
        stop = true;
        return true;
      },
    );
    while (!stop) searches.push((await call(reader, work.nextSearch())).ms);
    const wall = (performance.now() - started) / 1000;
    await stopping;
    if (await failed) await writing;
    return {
      size,
      writers: LOAD_CLIENTS,
      seconds,
      search: { ...summarize(searches), max: Math.max(...searches) },
      savesPerSecond: saves / wall,
    };
  } finally {
    await Promise.all([reader, ...writers].map((client) => client.close().catch(() => {})));
  }
}

// ---- PostgreSQL ----

/** The bench's own schema in the database of `base`: the URL that selects it. */
function schemaUrl(base: string, schema: string): string {
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

/**
 * Makes the schema afresh, migrates it as a replica would, and inserts the memories as rows (as
 * if saved long ago: the replicas load the table when they start, no change rows needed).
 */
async function preloadPostgres(
  admin: pg.Client,
  url: string,
  schema: string,
  texts: readonly string[],
  now: number,
): Promise<number> {
  const started = performance.now();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    await migrate(pool, url);
    const records = mnemoRecords(texts, now);
    const width = MEMORY_COLUMNS.length;
    for (let start = 0; start < records.length; start += INSERT_BATCH) {
      const part = records.slice(start, start + INSERT_BATCH);
      const rows = part.map(
        (_, r) => `(${MEMORY_COLUMNS.map((_, c) => `$${r * width + c + 1}`).join(', ')})`,
      );
      await pool.query(
        `INSERT INTO mnemo_memories (${MEMORY_COLUMNS.join(', ')}) VALUES ${rows.join(', ')}`,
        part.flatMap((record) => memoryValues(record, DEFAULT_NAMESPACE)),
      );
    }
    await pool.query('ANALYZE mnemo_memories');
  } finally {
    await pool.end();
  }
  return performance.now() - started;
}

// ---- one size ----

interface SizeResult {
  load: LoadRow[];
  starts: StartRow[];
  lags: LagRow[];
  reads: ReadsRow[];
  preloadMs: { jsonl: number; postgres: number };
}

async function runSize(
  size: number,
  texts: readonly string[],
  options: Options,
  admin: pg.Client,
  schema: string,
  makeWork: (size: number) => Workload,
): Promise<SizeResult> {
  const now = Math.floor(Date.now() / 1000);
  const out: SizeResult = {
    load: [],
    starts: [],
    lags: [],
    reads: [],
    preloadMs: { jsonl: 0, postgres: 0 },
  };
  const firstQuery = 'project deploy';

  // One process on a data dir.
  const jsonlDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-shared-jsonl-'));
  try {
    process.stderr.write(`jsonl at ${size}: writing memories.jsonl...\n`);
    let started = performance.now();
    writeMnemoStore(path.join(jsonlDir, 'memories.jsonl'), texts, now);
    out.preloadMs.jsonl = performance.now() - started;
    const one = await startServe('jsonl', jsonlDir);
    try {
      const [first] = await firstSearches([one], firstQuery);
      out.load.push(...(await loadRows('jsonl', [one], makeWork(size))));
      out.starts.push({
        size,
        storage: 'jsonl',
        process: 'one',
        firstSearchMs: first as number,
        peakRssMb: peakRssMb(one.child),
      });
    } finally {
      await killGroup(one.child);
    }

    // Two replicas on one database.
    process.stderr.write(`postgres at ${size}: inserting ${size} rows...\n`);
    const url = schemaUrl(options.databaseUrl, schema);
    out.preloadMs.postgres = await preloadPostgres(admin, url, schema, texts, now);
    started = performance.now();
    const dirs = ['A', 'B'].map((name) =>
      fs.mkdtempSync(path.join(os.tmpdir(), `bench-shared-pg-${name}-`)),
    );
    try {
      const a = await startServe('A', dirs[0] as string, url);
      const b = await startServe('B', dirs[1] as string, url);
      try {
        const [firstA, firstB] = await firstSearches([a, b], firstQuery);
        const database = { admin, port: Number(new URL(url).port || 5432) };
        out.load.push(...(await loadRows('postgres', [a, b], makeWork(size), database)));
        for (const clients of [0, LOAD_CLIENTS]) {
          out.lags.push(
            await measureLag(a, b, size, options.probes, options.pollMs, clients, makeWork(size)),
          );
        }
        out.reads.push(await readsUnderWrites(a, b, size, options.readSeconds, makeWork(size)));
        for (const [r, ms] of [
          [a, firstA],
          [b, firstB],
        ] as const) {
          out.starts.push({
            size,
            storage: 'postgres',
            process: `replica ${r.name}`,
            firstSearchMs: ms as number,
            peakRssMb: peakRssMb(r.child),
          });
        }
      } finally {
        await Promise.all([killGroup(a.child), killGroup(b.child)]);
      }
    } finally {
      for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    fs.rmSync(jsonlDir, { recursive: true, force: true });
  }
  return out;
}

// ---- report ----

const count = (n: number) => n.toLocaleString('en-US');
const ms = (x: number) => (x >= 100 ? count(Math.round(x)) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const rate = (x: number) => (x >= 100 ? count(Math.round(x)) : x.toFixed(1));
const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
const rule = (header: string[], left: number) =>
  line(header.map((_, i) => (i < left ? '---' : '---:')));

const STORAGE_LABEL: Record<Storage, string> = {
  jsonl: 'JSONL, one process',
  postgres: 'PostgreSQL, two replicas',
};

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
  const out = [line(header), rule(header, 2)];
  const keyOf = (r: LoadRow) =>
    `${r.size}|${r.storage}|${r.clients}|${r.kind === 'mixed' ? 'mixed' : 'alone'}`;
  for (const key of new Set(rows.map(keyOf))) {
    const of = (tool: string) => rows.find((r) => keyOf(r) === key && r.tool === tool);
    const save = of('save_memory');
    const search = of('search_memory');
    const first = (save ?? search) as LoadRow;
    const cells = (r: LoadRow | undefined) =>
      r ? [ms(r.summary.p50), ms(r.summary.p99), rate(r.callsPerSecond)] : ['', '', ''];
    out.push(
      line([
        count(first.size),
        STORAGE_LABEL[first.storage],
        `${first.clients}${first.replicas.includes('+') ? ' (A+B)' : ''}${first.kind === 'mixed' ? ', mixed' : ''}`,
        ...cells(save),
        ...cells(search),
      ]),
    );
  }
  return out.join('\n');
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
  const out = [line(header), rule(header, 4)];
  const keyOf = (r: LoadRow) => `${r.size}|${r.storage}|${r.clients}|${r.kind}`;
  for (const key of new Set(rows.map(keyOf))) {
    const same = rows.filter((r) => keyOf(r) === key);
    const r = same[0] as LoadRow;
    const calls = r.kind === 'mixed' ? 'save + search' : r.tool.replace('_memory', '');
    out.push(
      line([
        count(r.size),
        STORAGE_LABEL[r.storage],
        `${r.clients}${r.replicas.includes('+') ? ' (A+B)' : ''}`,
        calls,
        rate(same.reduce((sum, x) => sum + x.callsPerSecond, 0)),
        ms(r.cpu.mnemo),
        r.cpu.postgres === null ? '' : ms(r.cpu.postgres),
        ms(r.cpu.clients),
        r.cpu.cores.toFixed(2),
      ]),
    );
  }
  return out.join('\n');
}

function lagTable(rows: readonly LagRow[], pollMs: number): string {
  const header = [
    'memories',
    'clients loading A+B',
    'probes',
    'lag p50 ms',
    'lag p99 ms',
    'lag max ms',
    'polls a probe',
    'found by 1st poll',
    'poll p50 ms',
    'load calls/s',
    'load save / search p50 ms',
  ];
  const out = [line(header), rule(header, 1)];
  for (const r of rows) {
    out.push(
      line([
        count(r.size),
        r.loadClients === 0 ? '0 (idle)' : String(r.loadClients),
        String(r.lag.n),
        ms(r.lag.p50),
        ms(r.lag.p99),
        ms(r.lag.max),
        r.pollsPerProbe.toFixed(1),
        `${Math.round(r.firstPollShare * 100)}%`,
        ms(r.poll.p50),
        r.loadClients === 0 ? '' : rate(r.loadCallsPerSecond),
        r.loadClients === 0 ? '' : `${ms(r.loadSave.p50)} / ${ms(r.loadSearch.p50)}`,
      ]),
    );
  }
  out.push('', `(B polled every ${pollMs} ms after each answer that did not find the probe.)`);
  return out.join('\n');
}

function readsTable(rows: readonly ReadsRow[]): string {
  const header = [
    'memories',
    'clients saving (A+B)',
    'seconds',
    'searches answered',
    'search p50 ms',
    'search p99 ms',
    'search max ms',
    'saves/s',
  ];
  const out = [line(header), rule(header, 1)];
  for (const r of rows) {
    out.push(
      line([
        count(r.size),
        String(r.writers),
        String(r.seconds),
        count(r.search.n),
        ms(r.search.p50),
        ms(r.search.p99),
        ms(r.search.max),
        rate(r.savesPerSecond),
      ]),
    );
  }
  return out.join('\n');
}

function startTable(rows: readonly StartRow[], preload: Record<number, SizeResult['preloadMs']>) {
  const header = [
    'memories',
    'storage',
    'process',
    'preload s',
    'spawn → first search ms',
    'peak RSS MB',
  ];
  const out = [line(header), rule(header, 3)];
  for (const r of rows) {
    out.push(
      line([
        count(r.size),
        STORAGE_LABEL[r.storage],
        r.process,
        ((preload[r.size]?.[r.storage] ?? Number.NaN) / 1000).toFixed(1),
        count(Math.round(r.firstSearchMs)),
        r.peakRssMb.toFixed(0),
      ]),
    );
  }
  return out.join('\n');
}

// ---- options and main ----

interface Options {
  sizes: number[];
  calls: number;
  warmup: number;
  probes: number;
  pollMs: number;
  readSeconds: number;
  databaseUrl: string;
  json: string | undefined;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string' },
      calls: { type: 'string' },
      warmup: { type: 'string' },
      probes: { type: 'string' },
      'poll-ms': { type: 'string', default: '2' },
      'read-seconds': { type: 'string' },
      'database-url': { type: 'string', default: DEFAULT_DATABASE },
      quick: { type: 'boolean', default: false },
      json: { type: 'string' },
    },
  });
  const quick = values.quick;
  const whole = (value: string | undefined, fallback: number, name: string, min: number) => {
    const n = Number(value ?? fallback);
    if (!Number.isInteger(n) || n < min)
      throw new Error(`--${name} takes a whole number >= ${min}`);
    return n;
  };
  const sizes = (values.sizes ?? (quick ? '1000' : '10000,100000'))
    .split(',')
    .map((s) => Number(s.trim()));
  if (sizes.some((n) => !Number.isInteger(n) || n < 1)) {
    throw new Error('--sizes takes whole numbers, e.g. 10000,100000');
  }
  return {
    sizes,
    calls: whole(values.calls, quick ? 100 : 1000, 'calls', 1),
    warmup: whole(values.warmup, quick ? 2 : 10, 'warmup', 0),
    probes: whole(values.probes, quick ? 20 : 200, 'probes', 1),
    pollMs: whole(values['poll-ms'], 2, 'poll-ms', 0),
    readSeconds: whole(values['read-seconds'], quick ? 3 : 10, 'read-seconds', 1),
    databaseUrl: values['database-url'],
    json: values.json,
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  // Each SDK transport passes one AbortSignal to every fetch, and Node 20's fetch removes its abort
  // listener only when the request is garbage-collected (nodejs/node#52635): thousands of polls
  // through one client warn of a leak that is not one.
  setMaxListeners(0);
  const opts = options();
  if (!fs.existsSync(MNEMO_CLI)) throw new Error('dist/cli.js is missing: run npm run build');
  const m = machine();
  const loadBefore = os.loadavg();
  const admin = new pg.Client({ connectionString: opts.databaseUrl });
  await admin.connect();
  const schema = `mnemo_bench_shared_${process.pid}`;
  const results: SizeResult[] = [];
  let postgres = '';
  try {
    postgres = (await admin.query<{ version: string }>('SELECT version()')).rows[0]?.version ?? '';
    const vocabulary = buildVocabulary();
    const corpus = new ContentGenerator(vocabulary, 1).sentences(Math.max(...opts.sizes));
    // One stream of new sentences and one of queries for the whole run: no save repeats another.
    const saves = new ContentGenerator(vocabulary, 2);
    const queries = new ContentGenerator(vocabulary, 3);
    const makeWork = (size: number): Workload => ({
      size,
      calls: opts.calls,
      warmup: opts.warmup,
      nextSave: () => ['save_memory', { content: saves.sentence() }],
      nextSearch: () => ['search_memory', { query: queries.query(), top_k: 10 }],
    });
    for (const size of opts.sizes) {
      results.push(await runSize(size, corpus.slice(0, size), opts, admin, schema, makeWork));
    }
  } finally {
    for (const child of [...groups]) await killGroup(child);
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch((error: unknown) => {
      process.stderr.write(`could not drop schema ${schema}: ${(error as Error).message}\n`);
    });
    await admin.end();
  }

  const seconds = (performance.now() - started) / 1000;
  const loadAfter = os.loadavg();
  const loadRowsAll = results.flatMap((r) => r.load);
  const lagRows = results.flatMap((r) => r.lags);
  const readsRows = results.flatMap((r) => r.reads);
  const startRows = results.flatMap((r) => r.starts);
  const preload = Object.fromEntries(results.map((r, i) => [opts.sizes[i], r.preloadMs]));
  const pgVersion = /^PostgreSQL [\d.]+/.exec(postgres)?.[0] ?? postgres;
  const machineLine = `${m.cpu}, ${m.cores} cores, ${m.ramGb} GB RAM, Node ${m.node}, ${pgVersion} on the same machine, ${os.platform()} ${os.release()}; load average ${loadBefore[0]?.toFixed(2)} before, ${loadAfter[0]?.toFixed(2)} after`;
  const targets = lagRows
    .filter((r) => r.loadClients === LOAD_CLIENTS)
    .map(
      (r) =>
        `- replication lag p99 <= 200 ms with ${LOAD_CLIENTS} clients, ${count(r.size)} memories: ${ms(r.lag.p99)} ms, ${r.lag.p99 <= 200 ? 'met' : 'NOT met'}`,
    );
  console.log(`Machine: ${machineLine}\n`);
  console.log(loadTable(loadRowsAll));
  console.log(
    [
      '',
      `- ${opts.calls} timed calls a row after ${opts.warmup} warm-up calls a client; each client is its own SDK Client over streamable HTTP (bearer auth on, rate limit off, MNEMO_EMBEDDINGS=off); calls/s is calls over the wall time of the row.`,
      '- JSONL: one `mnemo serve` on a data dir. PostgreSQL: two `mnemo serve` replicas A and B on one database (its own schema); 1 client talks to A, 16 clients are 8 on A and 8 on B.',
      '- search_memory: top_k 10, 1-3 content words; save_memory: new sentences of 10-40 words (each row adds its calls to the store); mixed: 16 clients, each alternating save_memory and search_memory, the calls of the row split between the two. Percentiles are nearest-rank, ms per MCP round trip.',
      '',
      cpuTable(loadRowsAll),
      '',
      `- Where the time goes: CPU time (user + system, /proc, ${1000 / TICKS_PER_SECOND} ms ticks) a call of each row, of the mnemo processes (A and B both, whichever the clients used), of the PostgreSQL backends serving their connections, and of this process (the MCP clients); cores busy is their sum over the wall time (the machine has ${m.cores}).`,
      '',
      lagTable(lagRows, opts.pollMs),
      '',
      `- Lag: save_memory of a sentence with a word of its own through A (its own client), then search_memory of that word through B (its own client) until B answers the id; from A's answer to the answer of B's first search that finds it, nothing subtracted. Under load, ${LOAD_CLIENTS} more clients (8 on A, 8 on B) alternate save_memory and search_memory without pause.`,
      '',
      readsTable(readsRows),
      '',
      `- Reads under writes: one client searches through B back to back while ${LOAD_CLIENTS} clients only save (8 through A, 8 through B); the search in flight when they stop is awaited and counted.`,
      '',
      startTable(startRows, preload),
      '',
      '- preload: writing memories.jsonl (fsynced), or the schema, its migration and multi-row INSERTs of every memory, before the processes start; spawn → first search: the processes start together, the first search waits for the store to load.',
      '',
      ...targets,
      '',
      `Shared-storage bench: ${seconds.toFixed(0)} s.`,
    ].join('\n'),
  );
  if (opts.json) {
    const report = {
      machine: { ...m, postgres, loadBefore, loadAfter },
      options: { ...opts, databaseUrl: undefined },
      load: loadRowsAll,
      lag: lagRows,
      reads: readsRows,
      starts: startRows,
      preloadMs: preload,
      targets,
      seconds,
    };
    fs.writeFileSync(opts.json, `${JSON.stringify(report, null, 2)}\n`);
  }
}

// The tenants part (issue 26: many namespaces across replicas) lives in bench/tenants.ts.
(process.argv.includes('--tenants') ? import('./tenants.js').then(() => {}) : main()).catch(
  (error: unknown) => {
    console.error((error as Error).stack ?? String(error));
    process.exitCode = 1;
  },
);
