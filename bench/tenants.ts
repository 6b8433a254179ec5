// npm run bench:shared -- --tenants [--namespaces 1000 --per 2000 --replicas 3 --cache-mb 512
//   --clients 64 --spread 200 --seconds 60 --writers 32 --baseline /path/to/old/dist/cli.js
//   --database-url URL --json FILE]
// Many agents on PostgreSQL (issue 26): `--namespaces` namespaces of `--per` memories in one
// database, `--replicas` `mnemo serve` replicas with MNEMO_CACHE_MB, each namespace's calls sent
// to one replica (as a load balancer hashing X-Mnemo-Namespace would). Measures each replica's
// spawn to first answer, the first answer in a namespace not loaded yet, the peak RSS while
// `--clients` clients spread over `--spread` namespaces, and saves a second with `--writers`
// clients each in its own namespace and all in one (against `--baseline`, an older build's
// dist/cli.js, in a schema of its own, when given). Load average before and after.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import pg from 'pg';
import { MEMORY_COLUMNS, memoryValues } from '../src/storage/postgres/rows.js';
import { migrate } from '../src/storage/postgres/schema.js';
import { buildVocabulary, ContentGenerator } from './lib/content.js';
import { peakRssMb } from './lib/cpu.js';
import { summarize } from './lib/percentile.js';
import { groups, killGroup } from './lib/processes.js';
import { mnemoRecords } from './lib/stores.js';
import { type Replica, startServe } from './shared/serve.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = 'bench-tenants-token-0123456789abcdef';
const BATCH = 1000;

const { values } = parseArgs({
  strict: false,
  options: {
    namespaces: { type: 'string', default: '1000' },
    per: { type: 'string', default: '2000' },
    replicas: { type: 'string', default: '3' },
    'cache-mb': { type: 'string', default: '512' },
    clients: { type: 'string', default: '64' },
    spread: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '60' },
    writers: { type: 'string', default: '32' },
    baseline: { type: 'string' },
    'database-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
    json: { type: 'string' },
  },
});
const num = (k: string) => Number(values[k]);
const opts = {
  namespaces: num('namespaces'),
  per: num('per'),
  replicas: num('replicas'),
  cacheMb: num('cache-mb'),
  clients: num('clients'),
  spread: num('spread'),
  seconds: num('seconds'),
  writers: num('writers'),
  baseline: values.baseline as string | undefined,
  databaseUrl: values['database-url'] as string,
};
// The token holds the namespaces made: a call past them is refused (403), and the bench would end
// with a connection refused by the replicas it stopped, naming neither.
if (opts.spread > opts.namespaces || opts.writers > opts.namespaces) {
  throw new Error(
    `--spread (${opts.spread}) and --writers (${opts.writers}) must be at most --namespaces (${opts.namespaces})`,
  );
}
const nsName = (i: number) => `t${String(i).padStart(5, '0')}`;

function schemaUrl(schema: string): string {
  const url = new URL(opts.databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

const replicasStarted: Replica[] = [];

/** A replica of the tenants' setup: tokens per namespace, the cache budget, `cli`'s build. */
async function startTenantServe(cli: string, databaseUrl: string, dir: string): Promise<Replica> {
  const replica = await startServe(`replica ${replicasStarted.length + 1}`, dir, databaseUrl, {
    cli,
    env: {
      MNEMO_AUTH_TOKEN: undefined,
      MNEMO_TOKENS: path.join(dir, 'tokens'),
      MNEMO_CACHE_MB: String(opts.cacheMb),
    },
  });
  replicasStarted.push(replica);
  return replica;
}

async function connect(replica: Replica, ns: string): Promise<Client> {
  const client = new Client({ name: 'mnemo-bench-tenants', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(replica.url, {
    requestInit: { headers: { Authorization: `Bearer ${TOKEN}`, 'X-Mnemo-Namespace': ns } },
  });
  await client.connect(transport, { timeout: 120_000 });
  return client;
}

/** Calls answered with a transient error ("retry in a moment"): counted, not timed. */
const transient = { count: 0 };

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const started = performance.now();
  const result = await client.callTool({ name, arguments: args }, { timeout: 120_000 });
  if (result.isError) {
    const text = JSON.stringify(result.content).slice(0, 300);
    if (!/retry in a moment/.test(text)) throw new Error(`${name}: ${text}`);
    transient.count++;
  }
  return performance.now() - started;
}

/** The schema afresh, migrated by `cli`'s build when given (else this one), with the memories. */
async function fill(admin: pg.Client, schema: string, texts: string[], n: number, per: number) {
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = schemaUrl(schema);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  try {
    await migrate(pool, url);
    const width = MEMORY_COLUMNS.length;
    for (let i = 0; i < n; i++) {
      const records = mnemoRecords(texts.slice(0, per), Math.floor(Date.now() / 1000), 1000 + i);
      for (let start = 0; start < records.length; start += BATCH) {
        const part = records.slice(start, start + BATCH);
        const rows = part.map(
          (_, r) => `(${MEMORY_COLUMNS.map((_, c) => `$${r * width + c + 1}`).join(', ')})`,
        );
        await pool.query(
          `INSERT INTO mnemo_memories (${MEMORY_COLUMNS.join(', ')}) VALUES ${rows.join(', ')}`,
          part.flatMap((record) => memoryValues(record, nsName(i))),
        );
      }
    }
    await pool.query(
      `INSERT INTO mnemo_namespaces (namespace) SELECT DISTINCT namespace FROM mnemo_memories
       ON CONFLICT DO NOTHING`,
    );
    // As a database that held these rows before the replicas started would be: vacuumed (else
    // autovacuum takes up the insert-only tables just as the replicas start) and checkpointed
    // (else the checkpointer writes the fill's pages out meanwhile).
    await pool.query('VACUUM ANALYZE');
    await pool.query('CHECKPOINT').catch(() => {});
  } finally {
    await pool.end();
  }
}

/** `writers` clients saving for `seconds`, client c in namespace `nsOf(c)`: saves a second. */
async function saves(
  replicas: Replica[],
  writers: number,
  nsOf: (c: number) => number,
  seconds: number,
  next: () => string,
): Promise<number> {
  const clients = await Promise.all(
    Array.from({ length: writers }, (_, c) =>
      connect(replicas[c % replicas.length] as Replica, nsName(nsOf(c))),
    ),
  );
  for (const client of clients) await call(client, 'save_memory', { content: next() });
  let done = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < end) {
        await call(client, 'save_memory', { content: next() });
        done++;
      }
    }),
  );
  const rate = done / ((performance.now() - started) / 1000);
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  return rate;
}

async function run(
  cli: string,
  schema: string,
  _admin: pg.Client,
  _texts: string[],
  dir: string,
  savesOnly = false,
) {
  const report: Record<string, unknown> = { cli };
  const gen = new ContentGenerator(buildVocabulary(), 5);
  const url = schemaUrl(schema);
  const replicas = await Promise.all(
    Array.from({ length: opts.replicas }, () => startTenantServe(cli, url, dir)),
  );
  const home = (ns: number) => replicas[ns % replicas.length] as Replica;
  if (!savesOnly) await spreadParts(report, replicas, home, gen);
  const writeSeconds = Math.max(5, Math.floor(opts.seconds / 3));
  report.savesOwnNamespace = await saves(
    replicas,
    opts.writers,
    (c) => c,
    writeSeconds,
    () => gen.sentence(),
  );
  report.savesOneNamespace = await saves(
    replicas,
    opts.writers,
    () => 0,
    writeSeconds,
    () => gen.sentence(),
  );
  for (const child of [...groups]) await killGroup(child);
  return report;
}

async function spreadParts(
  report: Record<string, unknown>,
  replicas: Replica[],
  home: (ns: number) => Replica,
  gen: ContentGenerator,
): Promise<void> {
  // Spawn to first answer: a search in a namespace of each replica's own.
  report.firstAnswerMs = await Promise.all(
    replicas.map(async (r, i) => {
      const client = await connect(r, nsName(i));
      await call(client, 'search_memory', { query: 'the', top_k: 5 });
      await client.close();
      return Math.round(performance.now() - r.spawnedAt);
    }),
  );
  // The first answer in a namespace not loaded yet (those past the spread).
  const cold: number[] = [];
  for (let i = opts.spread; i < Math.min(opts.namespaces, opts.spread + 30); i++) {
    const client = await connect(home(i), nsName(i));
    cold.push(await call(client, 'search_memory', { query: 'the', top_k: 5 }));
    await client.close();
  }
  report.coldFirstAnswer = summarize(cold);
  // Clients spread over `spread` namespaces, each call to a namespace picked at random.
  const cache = new Map<number, Client>();
  const clientOf = async (ns: number) => {
    let c = cache.get(ns);
    if (!c) {
      c = await connect(home(ns), nsName(ns));
      cache.set(ns, c);
    }
    return c;
  };
  const times: number[] = [];
  let calls = 0;
  const end = performance.now() + opts.seconds * 1000;
  let seed = 1;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const lags = lagProbes(replicas, home, end);
  await Promise.all(
    Array.from({ length: opts.clients }, async (_, w) => {
      let i = 0;
      while (performance.now() < end) {
        const ns = Math.floor(rnd() * opts.spread);
        const client = await clientOf(ns);
        times.push(
          (i++ + w) % 2 === 0
            ? await call(client, 'save_memory', { content: gen.sentence() })
            : await call(client, 'search_memory', { query: gen.query(), top_k: 10 }),
        );
        calls++;
      }
    }),
  );
  for (const c of cache.values()) await c.close().catch(() => {});
  report.spread = { calls, perSecond: calls / opts.seconds, summary: summarize(times) };
  report.lag = summarize(await lags);
  // The lag as each replica measures it (/health): from a change row's write to its application
  // there, without a poller's round trip; mostly the probes' namespace (the rest are routed home).
  report.replicaLag = await Promise.all(
    replicas.map(async (r) => {
      const health = (await (await fetch(new URL('/health', r.url))).json()) as {
        replication_lag?: unknown;
      };
      return health.replication_lag ?? null;
    }),
  );
  report.peakRssMb = replicas.map((r) => Math.round(peakRssMb(r.child.pid) ?? Number.NaN));
  report.transientErrors = transient.count;
}

/**
 * Replication lag while the spread load runs, until `end`: one at a time, a memory with a word
 * of its own saved through the replica a namespace is routed to, then searched for through
 * another one every 5 ms until it answers it. The lag is from the save's answer to the answer
 * of the search that finds it (that search's round trip included).
 */
async function lagProbes(
  replicas: Replica[],
  home: (ns: number) => Replica,
  end: number,
): Promise<number[]> {
  const a = home(0);
  const b = replicas[(replicas.indexOf(a) + 1) % replicas.length] as Replica;
  const saver = await connect(a, nsName(0));
  const poller = await connect(b, nsName(0));
  // The other replica holds the namespace before the first probe (a load is not a lag).
  await poller.callTool({ name: 'search_memory', arguments: { query: 'warm', top_k: 1 } });
  const lags: number[] = [];
  try {
    for (let i = 0; performance.now() < end; i++) {
      const word = `lagprobe${process.pid}n${i}`;
      const saved = await saver.callTool({
        name: 'save_memory',
        arguments: { content: `Replication probe ${word}` },
      });
      const acked = performance.now();
      const id = (saved.structuredContent as { memory_id?: string } | undefined)?.memory_id;
      if (saved.isError || !id) continue;
      for (;;) {
        const found = await poller.callTool({
          name: 'search_memory',
          arguments: { query: word, top_k: 1, include_review_candidates: false },
        });
        const hits = ((found.structuredContent as { results?: { memory_id: string }[] })?.results ??
          []) as { memory_id: string }[];
        if (hits.some((h) => h.memory_id === id)) break;
        if (performance.now() - acked > 30_000)
          throw new Error(`lag probe ${id}: not seen in 30 s`);
        await sleep(5);
      }
      lags.push(performance.now() - acked);
    }
  } finally {
    await saver.close().catch(() => {});
    await poller.close().catch(() => {});
  }
  return lags;
}

async function main(): Promise<void> {
  const loadBefore = os.loadavg();
  const admin = new pg.Client({ connectionString: opts.databaseUrl });
  await admin.connect();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-bench-tenants-'));
  const names = Array.from({ length: opts.namespaces }, (_, i) => nsName(i));
  fs.writeFileSync(path.join(dir, 'tokens'), `${TOKEN} ${names.join(',')}\n`);
  const texts = new ContentGenerator(buildVocabulary(), 1).sentences(opts.per);
  const schema = `mnemo_bench_tenants_${process.pid}`;
  const reports: Record<string, unknown>[] = [];
  try {
    const fillStarted = performance.now();
    await fill(admin, schema, texts, opts.namespaces, opts.per);
    const fillSeconds = (performance.now() - fillStarted) / 1000;
    reports.push({
      build: 'this',
      fillSeconds,
      ...(await run(path.join(ROOT, 'dist/cli.js'), schema, admin, texts, dir)),
    });
    if (opts.baseline) {
      // The older build migrates its own schema: the memories without the newer tables.
      const old = `${schema}_base`;
      await admin.query(`DROP SCHEMA IF EXISTS ${old} CASCADE`);
      await admin.query(`CREATE SCHEMA ${old}`);
      // Saves only: an empty schema (the older build loads every namespace at its start).
      reports.push({
        build: 'baseline',
        ...(await run(opts.baseline, old, admin, texts, dir, true)),
      });
    }
  } catch (error) {
    for (const r of replicasStarted) process.stderr.write(`--- ${r.name}\n${r.output.text}\n`);
    throw error;
  } finally {
    for (const child of [...groups]) await killGroup(child);
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
    await admin.query(`DROP SCHEMA IF EXISTS ${schema}_base CASCADE`).catch(() => {});
    await admin.end();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const loadAfter = os.loadavg();
  const out = { options: { ...opts, databaseUrl: undefined }, loadBefore, loadAfter, reports };
  console.log(JSON.stringify(out, null, 2));
  if (values.json) fs.writeFileSync(values.json as string, `${JSON.stringify(out, null, 2)}\n`);
}

await main();
