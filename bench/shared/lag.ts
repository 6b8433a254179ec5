// Part `lag`: the replication lag between the PostgreSQL replicas: saved through A, found by
// search_memory through B; idle, and while 16 clients load both replicas.
import { setTimeout as sleep } from 'node:timers/promises';
import { count, ms, rate, table } from '../lib/format.js';
import { type Summary, summarize } from '../lib/percentile.js';
import type { Part, PartContext } from './part.js';
import { call, closeAll, connect, connectAll, type Replica, type Workload } from './serve.js';

/** The clients that load the replicas while the lag is measured. */
export const LOAD_CLIENTS = 16;
/** A probe not found through B by then fails the bench (a lost change, not a slow one). */
const PROBE_GIVE_UP_MS = 30_000;

export interface LagRow {
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
  probes: number,
  pollMs: number,
  loadClients: number,
  work: Workload,
): Promise<LagRow> {
  process.stderr.write(
    `postgres at ${work.size}: replication lag, ${probes} probes, ${loadClients} clients loading...\n`,
  );
  const run = Math.random()
    .toString(36)
    .replace(/[^a-z]/g, '')
    .slice(0, 6);
  const saver = await connect(a);
  const poller = await connect(b);
  const loaders = await connectAll([a, b], loadClients);
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
      size: work.size,
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
    await closeAll([saver, poller, ...loaders]);
  }
}

async function run(ctx: PartContext): Promise<LagRow[]> {
  const [a, b] = ctx.replicas as [Replica, Replica];
  const rows: LagRow[] = [];
  for (const clients of [0, LOAD_CLIENTS]) {
    const { probes, pollMs } = ctx.options;
    rows.push(await measureLag(a, b, probes, pollMs, clients, ctx.work()));
  }
  return rows;
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
  const body = rows.map((r) => [
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
  ]);
  return [
    table(header, 1, body),
    '',
    `(B polled every ${pollMs} ms after each answer that did not find the probe.)`,
  ].join('\n');
}

export const LAG: Part<LagRow> = {
  name: 'lag',
  on: ['postgres'],
  run,
  report: (rows, opts) => [
    lagTable(rows, opts.pollMs),
    '',
    `- Lag: save_memory of a sentence with a word of its own through A (its own client), then search_memory of that word through B (its own client) until B answers the id; from A's answer to the answer of B's first search that finds it, nothing subtracted. Under load, ${LOAD_CLIENTS} more clients (8 on A, 8 on B) alternate save_memory and search_memory without pause.`,
  ],
  targets: (rows) =>
    rows
      .filter((r) => r.loadClients === LOAD_CLIENTS)
      .map(
        (r) =>
          `- replication lag p99 <= 200 ms with ${LOAD_CLIENTS} clients, ${count(r.size)} memories: ${ms(r.lag.p99)} ms, ${r.lag.p99 <= 200 ? 'met' : 'NOT met'}`,
      ),
};
