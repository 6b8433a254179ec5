// What the pruned-ranking tests share: a seeded corpus over a Zipf vocabulary, a stand-in for
// the meaning side, recalls over both, and the queries and inputs they are asked.
import assert from 'node:assert/strict';
import pino from 'pino';
import { seededRandom } from '../../bench/lib/content.js';
import { memorySettings } from '../../src/config/derived.js';
import { loadConfig } from '../../src/config/index.js';
import type { SearchMemoryInput } from '../../src/contract/search-memory.js';
import { DAY } from '../../src/decay/index.js';
import { createContext, type MemorySettings } from '../../src/memory/context.js';
import type { Readiness } from '../../src/memory/readiness.js';
import { Recall } from '../../src/memory/recall.js';
import { Retriever } from '../../src/search/retriever.js';
import type { SemanticIndex } from '../../src/search/semantic-index.js';
import type { StorageEngine } from '../../src/storage/engine.js';
import {
  type MemoryRecord,
  type MemoryStatus,
  newMemoryRecord,
} from '../../src/storage/records.js';
import { T0 } from '../support.js';

/** mulberry32, as the bench draws its content: floats in [0, 1). */
export const seeded = seededRandom;

/** Draws 0..n-1 with probability proportional to 1 / (rank + 1): a few words are everywhere. */
export function zipf(n: number, random: () => number): () => number {
  const cdf = new Float64Array(n);
  let total = 0;
  for (let r = 0; r < n; r++) cdf[r] = total += 1 / (r + 1);
  return () => {
    const u = random() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cdf[mid] as number) < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const SYLLABLES = 'ka lo mi nu pe ra si to vu ze ba do fi gu ho'.split(' ');
export const word = (i: number) =>
  `${SYLLABLES[i % 15]}${SYLLABLES[Math.floor(i / 15) % 15]}${SYLLABLES[Math.floor(i / 225) % 15]}x`;
const capitalised = (w: string) => `${w[0]?.toUpperCase()}${w.slice(1)}`;
export const TAGS = ['work', 'home', 'travel', 'health', 'code'];
const STATUSES: MemoryStatus[] = ['active', 'active', 'active', 'active', 'promoted', 'archived'];

/**
 * Memories over a Zipf vocabulary, made over the past 200 days with scattered uses and
 * strengths so decay scores spread over the danger zone and past it; one in twenty is a copy of
 * an earlier one, state and all, so exact ties happen.
 */
export function corpus(size: number, seed: number): MemoryRecord[] {
  const random = seeded(seed);
  const nextWord = zipf(3000, random);
  const out: MemoryRecord[] = [];
  for (let i = 0; i < size; i++) {
    const twin = out.length > 0 && random() < 0.05 ? out[Math.floor(random() * out.length)] : null;
    if (twin) {
      out.push({ ...twin, id: `m${i}` });
      continue;
    }
    const length = 3 + Math.floor(random() * 25);
    // Some words capitalised: names, which a query that names them lifts (entity-ranking.ts).
    const words = Array.from({ length }, (_, k) =>
      (k === 0 && random() < 0.3) || random() < 0.05
        ? capitalised(word(nextWord()))
        : word(nextWord()),
    );
    const created = T0 - Math.floor(random() * 200 * DAY);
    const tags = TAGS.filter(() => random() < 0.25);
    out.push({
      ...newMemoryRecord(`m${i}`, words.join(' '), created, {
        last_used: created + Math.floor(random() * (T0 - created)),
        use_count: Math.floor(-Math.log(1 - random()) * 3),
        strength: random() < 0.2 ? 1 + Math.round(random() * 10) / 10 : 1,
        meta: { tags, source: null, context: null, extra: {} },
      }),
      status: STATUSES[Math.floor(random() * STATUSES.length)] as MemoryStatus,
    });
  }
  return out;
}

/** A stand-in for the vectors: for each query, a seeded few hundred memories above 0.5. */
export function fakeMeaning(records: readonly MemoryRecord[]): SemanticIndex {
  let query = 0;
  return {
    model: null,
    enabled: true,
    embed: async () => [new Float32Array([++query])],
    search: async (vector: Float32Array, threshold: number, limit: number) => {
      const random = seeded(vector[0] as number);
      const found = new Map<string, number>();
      for (let i = 0; i < Math.min(limit, 300); i++) {
        const { id } = records[Math.floor(random() * records.length)] as MemoryRecord;
        found.set(id, threshold + random() * (1 - threshold));
      }
      return { ids: [...found.keys()], sims: [...found.values()] };
    },
    upsert: () => {},
    remove: () => {},
    reset: () => {},
  } as unknown as SemanticIndex;
}

export const defaultSettings: MemorySettings = {
  ...memorySettings(loadConfig({ env: { MNEMO_EMBEDDINGS: 'off' }, home: '/nonexistent' })),
  autoReinforce: false,
  hybridWeight: 0.3,
  similarityThreshold: 0.5,
};

/** A recall over these memories, pruned or exhaustive, with or without a meaning side. */
export function recallOver(
  records: readonly MemoryRecord[],
  exhaustive: boolean,
  meaning: boolean,
  overrides: Partial<MemorySettings> = {},
) {
  const settings = { ...defaultSettings, ...overrides };
  const memories = new Map(records.map((r) => [r.id, r]));
  const engine = { memories, refresh: async () => {} } as unknown as StorageEngine;
  const logger = pino({ level: 'silent' });
  const retriever = new Retriever({
    engine,
    semantic: meaning ? fakeMeaning(records) : undefined,
    settings: { ...settings, exhaustive },
    logger,
  });
  for (const record of records) retriever.upsert(record, undefined);
  const ctx = createContext({
    engine,
    retriever,
    clock: () => T0,
    settings,
    logger,
    readiness: { wait: async () => {} } as unknown as Readiness,
  });
  return { recall: new Recall(ctx), retriever, score: ctx.score };
}

/** Queries of one to four words: common ones, rare ones, and words no memory has. */
export function queries(count: number, seed: number): string[] {
  const random = seeded(seed);
  const nextWord = zipf(3000, random);
  return Array.from({ length: count }, () => {
    const length = 1 + Math.floor(random() * 4);
    return Array.from({ length }, () =>
      random() < 0.1 ? `nothing${Math.floor(random() * 9)}` : word(nextWord()),
    ).join(' ');
  });
}

/** Page sizes, pages, filters, review on or off: what a caller can ask for. */
export function inputFor(query: string, random: () => number): SearchMemoryInput {
  const input: SearchMemoryInput = {
    query,
    top_k: [1, 3, 5, 10, 25, 50][Math.floor(random() * 6)],
  };
  if (random() < 0.3) input.page = 2 + Math.floor(random() * 3);
  if (random() < 0.2) input.tags = [TAGS[Math.floor(random() * TAGS.length)] as string];
  if (random() < 0.15) input.status = ['active', 'archived'];
  if (random() < 0.15) input.window_days = 30 + Math.floor(random() * 100);
  if (random() < 0.15) input.min_score = random() * 0.3;
  if (random() < 0.15) input.include_review_candidates = false;
  // A name in the query (a capitalised word), and time: their lifts and the time's filter leave
  // the pruned pages the same too.
  if (random() < 0.3) input.query = query.replace(/^\w/, (c) => c.toUpperCase());
  const time = random();
  if (time < 0.1) input.query = `when did ${query}`;
  else if (time < 0.2) input.query = `${query} last month`;
  else if (time < 0.25) {
    input.query = `${query} in the past month`;
    input.time_filter = true;
  }
  return input;
}

export async function compare(
  size: number,
  seed: number,
  meaning: boolean,
  count: number,
  overrides: Partial<MemorySettings> = {},
) {
  const records = corpus(size, seed);
  const pruned = recallOver(records, false, meaning, overrides);
  const exhaustive = recallOver(records, true, meaning, overrides);
  const random = seeded(seed + 1);
  let compared = 0;
  for (const query of queries(count, seed + 2)) {
    const input = inputFor(query, random);
    const got = await pruned.recall.search(input);
    const want = await exhaustive.recall.search(input);
    assert.deepEqual(got, want, `${JSON.stringify(input)}`);
    compared += want.results.length;
  }
  return compared;
}
