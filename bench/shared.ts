// npm run bench:shared [-- --sizes 10000,100000 --calls 1000 --warmup 10 --probes 200 --poll-ms 2
//                         --read-seconds 10 --database-url URL --parts load,lag --quick --json FILE]
// One `mnemo serve` on a data dir (JSONL) against two `mnemo serve` replicas sharing one
// PostgreSQL database, over MCP streamable HTTP, in parts (PARTS below): save_memory and
// search_memory p50/p99 and calls/s with 1 and 16 clients, and where the CPU goes; the
// replication lag (saved through replica A, found by search_memory through replica B), idle and
// while 16 clients load both replicas; searches through B while 16 clients save through both;
// and each process's start. The database is postgres://postgres@127.0.0.1:5432/test unless
// --database-url says otherwise; the bench works in a schema of its own
// (mnemo_bench_shared_PID), dropped at the end.
import { setMaxListeners } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildVocabulary, ContentGenerator } from './lib/content.js';
import { groups, killGroup, signalGroup } from './lib/processes.js';
import { machine } from './lib/report.js';
import { LAG } from './shared/lag.js';
import { LOAD } from './shared/load.js';
import type { AnyPart, Options } from './shared/part.js';
import { READS } from './shared/reads.js';
import { MNEMO_CLI, type Workload } from './shared/serve.js';
import { type PartRows, runSize } from './shared/setups.js';
import { STARTS } from './shared/starts.js';

/**
 * The parts, in the order they run at each size (on each setup they name) and report. A new part
 * is a file in bench/shared/ exporting a Part (see part.ts) and one line here; `starts` stays
 * last, as it reads each process's peak memory after the others ran.
 */
const PARTS: readonly AnyPart[] = [
  LOAD, //   load.ts    save and search round trips, calls/s, CPU a call (JSONL and PostgreSQL)
  LAG, //    lag.ts     replication lag A -> B, idle and under load (PostgreSQL)
  READS, //  reads.ts   searches through B while 16 clients save (PostgreSQL)
  STARTS, // starts.ts  spawn to first search, peak RSS (JSONL and PostgreSQL)
];

const DEFAULT_DATABASE = 'postgres://postgres@127.0.0.1:5432/test';

// Ctrl-C: the children go at once, the calls to them fail, and the finally blocks still drop the
// schema.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.exitCode = 130;
    for (const child of groups) signalGroup(child, 'SIGKILL');
  });
}

const USAGE = `usage: npm run bench:shared -- [--sizes 10000,100000] [--calls 1000] [--warmup 10]
  [--probes 200] [--poll-ms 2] [--read-seconds 10] [--database-url URL] [--quick]
  [--parts ${PARTS.map((p) => p.name).join(',')}] [--json FILE]`;

function options(): Options | undefined {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string' },
      calls: { type: 'string' },
      warmup: { type: 'string' },
      probes: { type: 'string' },
      'poll-ms': { type: 'string', default: '2' },
      'read-seconds': { type: 'string' },
      'database-url': { type: 'string', default: DEFAULT_DATABASE },
      parts: { type: 'string' },
      quick: { type: 'boolean', default: false },
      json: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return undefined;
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
  const parts = values.parts?.split(',').map((s) => s.trim());
  const unknown = parts?.filter((name) => !PARTS.some((p) => p.name === name)) ?? [];
  if (unknown.length > 0) {
    throw new Error(
      `--parts: no part ${unknown.join(', ')}; the parts: ${PARTS.map((p) => p.name).join(', ')}`,
    );
  }
  return {
    sizes,
    calls: whole(values.calls, quick ? 100 : 1000, 'calls', 1),
    warmup: whole(values.warmup, quick ? 2 : 10, 'warmup', 0),
    probes: whole(values.probes, quick ? 20 : 200, 'probes', 1),
    pollMs: whole(values['poll-ms'], 2, 'poll-ms', 0),
    readSeconds: whole(values['read-seconds'], quick ? 3 : 10, 'read-seconds', 1),
    databaseUrl: values['database-url'],
    parts,
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
  if (opts === undefined) {
    console.log(USAGE);
    return;
  }
  const parts = PARTS.filter((p) => opts.parts === undefined || opts.parts.includes(p.name));
  if (!fs.existsSync(MNEMO_CLI)) throw new Error('dist/cli.js is missing: run npm run build');
  const m = machine();
  const loadBefore = os.loadavg();
  const admin = new pg.Client({ connectionString: opts.databaseUrl });
  await admin.connect();
  const schema = `mnemo_bench_shared_${process.pid}`;
  const rows: PartRows = new Map();
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
      const texts = corpus.slice(0, size);
      await runSize({ size, texts, options: opts, admin, schema, parts, makeWork }, rows);
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
  const pgVersion = /^PostgreSQL [\d.]+/.exec(postgres)?.[0] ?? postgres;
  const machineLine = `${m.cpu}, ${m.cores} cores, ${m.ramGb} GB RAM, Node ${m.node}, ${pgVersion} on the same machine, ${os.platform()} ${os.release()}; load average ${loadBefore[0]?.toFixed(2)} before, ${loadAfter[0]?.toFixed(2)} after`;
  const rowsOf = (name: string) => rows.get(name) ?? [];
  const targets = parts.flatMap((p) => p.targets?.(rowsOf(p.name)) ?? []);
  const sections = parts.flatMap((p) => ['', ...p.report(rowsOf(p.name), opts)]);
  console.log(`Machine: ${machineLine}\n`);
  console.log(
    [
      ...sections.slice(1),
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
      ...Object.fromEntries(parts.map((p) => [p.name, rowsOf(p.name)])),
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
