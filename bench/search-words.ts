// Word search in process, without MCP: a store of N LoCoMo memories (as `npm run bench` fills
// it) indexed by a Retriever, and the bench's queries asked of `Recall.search` (top_k 10), timed
// one by one. What the stores bench's search figure is made of, less the round trip, at sizes
// (a million) where a full run takes minutes. `--build DIR` runs another build (e.g.
// /work/main/dist) for an A/B in the same conditions; `--check` also asks an exhaustive
// retriever and fails on the first answer that differs.
//
//   npm run build && node --import tsx bench/search-words.ts --size 100000 [--build DIR] [--check]
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { memorySettings } from '../src/config/derived.js';
import type * as Config from '../src/config/index.js';
import type * as Context from '../src/memory/context.js';
import type { MemorySettings } from '../src/memory/context.js';
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
    check: { type: 'boolean', default: false },
  },
});
const build = path.resolve(
  values.build ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '../dist'),
);
const load = <T>(file: string): Promise<T> => import(pathToFileURL(path.join(build, file)).href);
const { loadConfig } = await load<typeof Config>('config/index.js');
const { createContext } = await load<typeof Context>('memory/context.js');
const { Recall } = await load<typeof RecallModule>('memory/recall.js');
const { Retriever } = await load<typeof RetrieverModule>('search/retriever.js');

function settingsOf(): MemorySettings {
  const c = loadConfig({ env: { MNEMO_EMBEDDINGS: 'off' }, home: '/nonexistent' });
  return { ...memorySettings(c), autoReinforce: false };
}

function recallOver(records: readonly MemoryRecord[], exhaustive: boolean) {
  const settings = settingsOf();
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
  const size = Number(values.size);
  const count = Number(values.queries);
  const started = performance.now();
  const records = mnemoRecords(locomoTexts(size, 1), NOW);
  const recall = recallOver(records, false);
  const reference = values.check ? recallOver(records, true) : null;
  const built = performance.now() - started;
  const queries = locomoQueries(count + 50, 2);
  // The first 50 warm the JIT up, as the stores bench's first search does.
  for (const query of queries.slice(0, 50)) await recall.search({ query, top_k: 10 });
  const times: number[] = [];
  for (const query of queries.slice(50)) {
    const t = performance.now();
    const got = await recall.search({ query, top_k: 10 });
    times.push(performance.now() - t);
    if (reference) {
      assert.deepEqual(got, await reference.search({ query, top_k: 10 }), query);
    }
  }
  times.sort((a, b) => a - b);
  const ms = (v: number) => v.toFixed(3);
  console.log(
    JSON.stringify({
      build,
      size,
      queries: times.length,
      buildMs: Math.round(built),
      p50: ms(percentile(times, 50)),
      p90: ms(percentile(times, 90)),
      p99: ms(percentile(times, 99)),
      mean: ms(times.reduce((a, b) => a + b, 0) / times.length),
      checked: reference !== null,
    }),
  );
}

await main();
