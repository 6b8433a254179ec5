// Part `reads`: search_memory through replica B while 16 clients do nothing but save through
// both replicas: whether the writes hold the reads up.
import { setTimeout as sleep } from 'node:timers/promises';
import { count, ms, rate, table } from '../lib/format.js';
import { type Summary, summarize } from '../lib/percentile.js';
import type { Part, PartContext } from './part.js';
import { call, closeAll, connect, connectAll, type Replica } from './serve.js';

/** The clients saving while B is read. */
const WRITERS = 16;

export interface ReadsRow {
  size: number;
  /** Clients saving without pause, half through A, half through B. */
  writers: number;
  seconds: number;
  /** One client's search_memory through B, back to back, for as long as the writers write. */
  search: Summary & { max: number };
  savesPerSecond: number;
}

/**
 * Searches through B, one client back to back, while `WRITERS` clients do nothing but save
 * (half through A, half through B) for `seconds`. The search in flight when the writers stop is
 * awaited and counted: a search held up by the writes shows as one long call.
 */
async function readsUnderWrites(ctx: PartContext): Promise<ReadsRow[]> {
  const [a, b] = ctx.replicas as [Replica, Replica];
  const { size } = ctx;
  const seconds = ctx.options.readSeconds;
  const work = ctx.work();
  process.stderr.write(
    `postgres at ${size}: search through B while ${WRITERS} clients save, ${seconds} s...\n`,
  );
  const reader = await connect(b);
  const writers = await connectAll([a, b], WRITERS);
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
    return [
      {
        size,
        writers: WRITERS,
        seconds,
        search: { ...summarize(searches), max: Math.max(...searches) },
        savesPerSecond: saves / wall,
      },
    ];
  } finally {
    await closeAll([reader, ...writers]);
  }
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
  return table(
    header,
    1,
    rows.map((r) => [
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

export const READS: Part<ReadsRow> = {
  name: 'reads',
  on: ['postgres'],
  run: readsUnderWrites,
  report: (rows) => [
    readsTable(rows),
    '',
    `- Reads under writes: one client searches through B back to back while ${WRITERS} clients only save (8 through A, 8 through B); the search in flight when they stop is awaited and counted.`,
  ],
};
