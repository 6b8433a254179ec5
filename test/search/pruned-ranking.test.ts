// The pruned search (rows that cannot reach a page are never scored) against the exhaustive one
// (every match scored and ranked) on a seeded corpus: the same answers, to the last digit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import type { SearchMemoryInput } from '../../src/contract/search-memory.js';
import { DAY } from '../../src/decay/index.js';
import { createContext, type MemorySettings } from '../../src/memory/context.js';
import type { Readiness } from '../../src/memory/readiness.js';
import { Recall } from '../../src/memory/recall.js';
import { largest } from '../../src/search/best-values.js';
import { combinedRank } from '../../src/search/ranking.js';
import { type Filter, Retriever, type Top } from '../../src/search/retriever.js';
import type { SemanticIndex } from '../../src/search/semantic-index.js';
import type { StorageEngine } from '../../src/storage/engine.js';
import {
  type MemoryRecord,
  type MemoryStatus,
  newMemoryRecord,
} from '../../src/storage/records.js';
import { T0 } from '../support.js';

/** mulberry32: a small seeded PRNG returning floats in [0, 1). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Draws 0..n-1 with probability proportional to 1 / (rank + 1): a few words are everywhere. */
function zipf(n: number, random: () => number): () => number {
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
const word = (i: number) =>
  `${SYLLABLES[i % 15]}${SYLLABLES[Math.floor(i / 15) % 15]}${SYLLABLES[Math.floor(i / 225) % 15]}x`;
const capitalised = (w: string) => `${w[0]?.toUpperCase()}${w.slice(1)}`;
const TAGS = ['work', 'home', 'travel', 'health', 'code'];
const STATUSES: MemoryStatus[] = ['active', 'active', 'active', 'active', 'promoted', 'archived'];

/**
 * Memories over a Zipf vocabulary, made over the past 200 days with scattered uses and
 * strengths so decay scores spread over the danger zone and past it; one in twenty is a copy of
 * an earlier one, state and all, so exact ties happen.
 */
function corpus(size: number, seed: number): MemoryRecord[] {
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
function fakeMeaning(records: readonly MemoryRecord[]): SemanticIndex {
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

const defaultSettings: MemorySettings = (() => {
  const c = loadConfig({ env: { MNEMO_EMBEDDINGS: 'off' }, home: '/nonexistent' });
  return {
    decay: { model: c.decayModel, halfLifeDays: c.halfLifeDays, beta: c.beta },
    dangerZone: { min: c.dangerZoneMin, max: c.dangerZoneMax },
    promotion: {
      threshold: c.promoteThreshold,
      minUses: c.promoteMinUses,
      useCount: c.promoteUseCount,
      windowDays: c.promoteWindowDays,
    },
    forgetThreshold: c.forgetThreshold,
    reviewBlendRatio: c.reviewBlendRatio,
    searchDecayWeight: c.searchDecayWeight,
    autoReinforce: false,
    hybridWeight: 0.3,
    similarityThreshold: 0.5,
  };
})();

/** A recall over these memories, pruned or exhaustive, with or without a meaning side. */
function recallOver(
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
function queries(count: number, seed: number): string[] {
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
function inputFor(query: string, random: () => number): SearchMemoryInput {
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

async function compare(size: number, seed: number, meaning: boolean, count: number) {
  const records = corpus(size, seed);
  const pruned = recallOver(records, false, meaning);
  const exhaustive = recallOver(records, true, meaning);
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

describe('pruned search ranks as the exhaustive one', () => {
  it('words only: the same pages, totals and review candidates on a 10k seeded corpus', async () => {
    assert.ok((await compare(10_000, 1, false, 400)) > 1000);
  });

  it('words and meaning: the same pages with a meaning side fused in', async () => {
    assert.ok((await compare(5_000, 2, true, 200)) > 500);
  });

  it('the rows it keeps carry the very relevance and score the exhaustive rows do', async () => {
    const records = corpus(8_000, 3);
    const pruned = recallOver(records, false, false);
    const exhaustive = recallOver(records, true, false);
    const w = defaultSettings.searchDecayWeight;
    let kept = 0;
    let matched = 0;
    for (const query of queries(150, 4)) {
      for (const k of [1, 10, 40]) {
        const filter: Filter = {
          statuses: ['active', 'promoted'],
          score: (r) => pruned.score(r, T0),
          minScore: null,
        };
        const tops: Top[] = [
          { count: k, value: (r, s) => combinedRank(r, s, w), ceiling: combinedRank(1, 1, w) },
        ];
        const some = await pruned.retriever.rank(query, 200, filter, tops);
        const all = await exhaustive.retriever.rank(query, 200, filter, tops);
        assert.equal(some.matched, all.length);
        assert.ok(some.length <= all.length);
        kept += some.length;
        matched += all.length;
        const byId = new Map([...all].map((row) => [row.record.id, row]));
        for (const row of some) {
          const twin = byId.get(row.record.id);
          assert.ok(twin);
          assert.ok(Math.abs(row.relevance - twin.relevance) <= 1e-12);
          assert.ok(Math.abs(row.score - twin.score) <= 1e-12);
        }
        // The k best by rank, ties in row order, are the same memories in the same order.
        const best = (rows: typeof all) =>
          [...rows]
            .map((row, i) => ({
              id: row.record.id,
              rank: combinedRank(row.relevance, row.score, w),
              i,
            }))
            .sort((a, b) => b.rank - a.rank || a.i - b.i)
            .slice(0, k)
            .map((x) => `${x.id}:${x.rank}`);
        assert.deepEqual(best(some), best(all), query);
      }
    }
    // It did leave rows out: most matches never had their score computed.
    assert.ok(kept < matched / 2, `${kept} of ${matched}`);
  });

  it('stays the same after memories are removed, reworded and archived', async () => {
    const records = corpus(4_000, 5);
    const pruned = recallOver(records, false, false);
    const exhaustive = recallOver(records, true, false);
    const random = seeded(6);
    for (const { retriever } of [pruned, exhaustive]) {
      const change = seeded(7);
      for (const record of records) {
        const roll = change();
        if (roll < 0.2) retriever.remove(record);
        else if (roll < 0.3) {
          retriever.upsert({ ...record, content: `${record.content} ${word(7)}` }, record);
        } else if (roll < 0.4) {
          const status = record.status === 'archived' ? 'active' : 'archived';
          retriever.upsert({ ...record, status }, record);
        }
      }
    }
    for (const query of queries(150, 8)) {
      const input = inputFor(query, random);
      assert.deepEqual(await pruned.recall.search(input), await exhaustive.recall.search(input));
    }
  });

  it('property: the same pages as every match scored, on random stores, zones and filters', async () => {
    // A danger zone that holds most memories, a few or none decides whether the review top fills
    // (and so how much the pruned search can skip); removed memories leave dead postings.
    const zones = [
      { min: 0.15, max: 0.35 },
      { min: 0.0001, max: 5 },
      { min: 0.3, max: 0.3001 },
      { min: 9, max: 10 },
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 20, max: 600 }),
        fc.constantFrom(...zones),
        fc.constantFrom('power_law', 'exponential', 'two_component' as const),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 0.5, noNaN: true }),
        async (seed, size, dangerZone, model, searchDecayWeight, reviewBlendRatio) => {
          const records = corpus(size, seed);
          const overrides: Partial<MemorySettings> = {
            dangerZone,
            decay: { ...defaultSettings.decay, model },
            searchDecayWeight,
            reviewBlendRatio,
          };
          const pruned = recallOver(records, false, false, overrides);
          const exhaustive = recallOver(records, true, false, overrides);
          const gone = seeded(seed + 3);
          for (const record of records) {
            if (gone() < 0.1) {
              pruned.retriever.remove(record);
              exhaustive.retriever.remove(record);
            }
          }
          const random = seeded(seed + 1);
          for (const query of queries(12, seed + 2)) {
            const input = inputFor(query, random);
            assert.deepEqual(
              await pruned.recall.search(input),
              await exhaustive.recall.search(input),
              JSON.stringify(input),
            );
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('largest', () => {
  it('property: the indexes of the m largest values, as a full sort finds them', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.double(), fc.constantFrom(0, 1, 1, 2, Number.NaN)), {
          maxLength: 200,
        }),
        fc.integer({ min: 0, max: 60 }),
        (list, m) => {
          const values = Float64Array.from(list);
          // -0 and 0 tie: compared as one value.
          const plain = (v: number) => (v === 0 ? 0 : v);
          const got = [...largest(values, values.length, m)].map((i) => plain(values[i] as number));
          const want = list
            .filter((v) => !Number.isNaN(v))
            .map(plain)
            .sort((a, b) => b - a);
          // Ties may be any of the tied indexes: the values taken are what must agree.
          assert.deepEqual(
            got.sort((a, b) => b - a),
            want.slice(0, Math.min(m, got.length)),
          );
          assert.equal(got.length, Math.min(m, want.length));
        },
      ),
    );
  });
});
