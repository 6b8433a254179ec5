// Word search in process, without MCP: a store of N LoCoMo memories (as `npm run bench` fills
// it) indexed by a Retriever, and the bench's queries asked of `Recall.search` (top_k 10), timed
// one by one. What the stores bench's search figure is made of, less the round trip, at sizes
// (a million) where a full run takes minutes. It runs this checkout's sources (`src`, through
// tsx); `--build DIR` runs another source tree (e.g. a worktree's `src`). `--against DIR` asks
// the same queries of a second source tree in the same process, over the same memories, each
// query of both in turn (which first alternates): an A/B that the drift of a shared VM's speed
// (a tenth or more within minutes) does not decide. `--check` also asks an exhaustive retriever
// and fails on the first answer that differs.
//
//   node --import tsx bench/search-words.ts --size 100000 [--build DIR] [--against DIR] [--check]
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pino from 'pino';
import type * as Derived from '../src/config/derived.js';
import type * as Config from '../src/config/index.js';
import type * as Context from '../src/memory/context.js';
import type { Readiness } from '../src/memory/readiness.js';
import type * as RecallModule from '../src/memory/recall.js';
import type * as RetrieverModule from '../src/search/retriever.js';
import type { StorageEngine } from '../src/storage/engine.js';
import type { MemoryRecord } from '../src/storage/records.js';
import { locomoQueries, locomoTexts } from './lib/locomo-text.js';
import { percentile } from './lib/percentile.js';
import { mnemoRecords } from './lib/stores.js';

const NOW = 1_750_000_000;

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '400' },
    build: { type: 'string' },
    against: { type: 'string' },
    check: { type: 'boolean', default: false },
  },
});

type Recall = InstanceType<typeof RecallModule.Recall>;

/** A Recall of the sources in `dir` over `records` (exhaustive: every match scored). */
async function recallOf(dir: string, records: readonly MemoryRecord[], exhaustive: boolean) {
  const load = <T>(file: string): Promise<T> => import(pathToFileURL(path.join(dir, file)).href);
  const { loadConfig } = await load<typeof Config>('config/index.js');
  const { memorySettings } = await load<typeof Derived>('config/derived.js');
  const { createContext } = await load<typeof Context>('memory/context.js');
  const { Recall } = await load<typeof RecallModule>('memory/recall.js');
  const { Retriever } = await load<typeof RetrieverModule>('search/retriever.js');
  const c = loadConfig({ env: { MNEMO_EMBEDDINGS: 'off' }, home: '/nonexistent' });
  const settings = { ...memorySettings(c), autoReinforce: false };
  const memories = new Map(records.map((r) => [r.id, r]));
  const engine = { memories, refresh: async () => {} } as unknown as StorageEngine;
  const logger = pino({ level: 'silent' });
  const retriever = new Retriever({ engine, settings: { ...settings, exhaustive }, logger });
  for (const record of records) retriever.upsert(record, undefined);
  const ctx = createContext({
    engine,
    retriever,
    clock: () => NOW,
    settings,
    logger,
    readiness: { wait: async () => {} } as unknown as Readiness,
  });
  return new Recall(ctx);
}

async function main(): Promise<void> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const builds = [path.resolve(values.build ?? path.join(here, '../src'))];
  if (values.against) builds.push(path.resolve(values.against));
  const size = Number(values.size);
  const count = Number(values.queries);
  const started = performance.now();
  const records = mnemoRecords(locomoTexts(size, 1), NOW);
  const recalls: Recall[] = [];
  for (const build of builds) recalls.push(await recallOf(build, records, false));
  const reference = values.check ? await recallOf(builds[0] as string, records, true) : null;
  const built = performance.now() - started;
  const queries = locomoQueries(count + 50, 2);
  // The first 50 warm the JIT up, as the stores bench's first search does.
  for (const query of queries.slice(0, 50)) {
    for (const recall of recalls) await recall.search({ query, top_k: 10 });
  }
  const times = recalls.map((): number[] => []);
  for (const [q, query] of queries.slice(50).entries()) {
    for (let k = 0; k < recalls.length; k++) {
      const i = (k + q) % recalls.length;
      const t = performance.now();
      const got = await (recalls[i] as Recall).search({ query, top_k: 10 });
      (times[i] as number[]).push(performance.now() - t);
      if (reference && i === 0) {
        assert.deepEqual(got, await reference.search({ query, top_k: 10 }), query);
      }
    }
  }
  const ms = (v: number) => v.toFixed(3);
  builds.forEach((build, i) => {
    const sorted = [...(times[i] as number[])].sort((a, b) => a - b);
    console.log(
      JSON.stringify({
        build,
        size,
        queries: sorted.length,
        buildMs: Math.round(built),
        p50: ms(percentile(sorted, 50)),
        p90: ms(percentile(sorted, 90)),
        p99: ms(percentile(sorted, 99)),
        mean: ms(sorted.reduce((a, b) => a + b, 0) / sorted.length),
        checked: reference !== null && i === 0,
      }),
    );
  });
}

await main();
