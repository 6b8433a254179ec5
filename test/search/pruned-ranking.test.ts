// The pruned search (rows that cannot reach a page are never scored) against the exhaustive one
// (every match scored and ranked) on a seeded corpus: the same answers, to the last digit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { MemorySettings } from '../../src/memory/context.js';
import { largest } from '../../src/search/best-values.js';
import { LexicalIndex } from '../../src/search/lexical-index.js';
import { combinedRank } from '../../src/search/ranking.js';
import { type Filter, Retriever, type Top } from '../../src/search/retriever.js';
import { T0 } from '../support.js';
import {
  compare,
  corpus,
  defaultSettings,
  inputFor,
  queries,
  recallOver,
  seeded,
  word,
} from './pruned-support.js';

describe('pruned search ranks as the exhaustive one', () => {
  it('words only: the same pages, totals and review candidates on a 10k seeded corpus', async () => {
    // Count the searches answered from the rarer words alone (a match of them, no full one).
    const { matchRare, match } = LexicalIndex.prototype;
    const { rank } = Retriever.prototype;
    let pending = false;
    let answered = 0;
    LexicalIndex.prototype.matchRare = function (this: LexicalIndex, ...args) {
      const got = matchRare.apply(this, args);
      pending = got !== undefined;
      return got;
    };
    LexicalIndex.prototype.match = function (this: LexicalIndex, ...args) {
      pending = false;
      return match.apply(this, args);
    };
    Retriever.prototype.rank = async function (this: Retriever, ...args) {
      pending = false;
      const rows = await rank.apply(this, args);
      if (pending) answered++;
      return rows;
    };
    try {
      assert.ok((await compare(10_000, 1, false, 400)) > 1000);
    } finally {
      Object.assign(LexicalIndex.prototype, { matchRare, match });
      Object.assign(Retriever.prototype, { rank });
    }
    assert.ok(answered > 20, `${answered} searches answered from the rarer words`);
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
