// The pruned hybrid search (words and meaning; a match by words alone that cannot reach a page
// is never scored) against the exhaustive one: the same rows, order and numbers, to the last
// digit, under filters, review candidates, time and name lifts and later pages.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DAY, reviewPriority } from '../../src/decay/index.js';
import type { MemorySettings } from '../../src/memory/context.js';
import { combinedRank } from '../../src/search/ranking.js';
import type { Filter, RankedRow, Top } from '../../src/search/retriever.js';
import type { MemoryStatus } from '../../src/storage/records.js';
import { T0 } from '../support.js';
import {
  compare,
  corpus,
  defaultSettings,
  inputFor,
  queries,
  recallOver,
  seeded,
  TAGS,
  word,
} from './pruned-support.js';

/** The `k` best rows by `value`, ties in row order, as `id:value`. */
const best = (rows: readonly RankedRow[], k: number, top: Top) =>
  rows
    .map((row, i) => ({ id: row.record.id, v: top.value(row.relevance, row.score), i }))
    .filter((x) => !top.positive || x.v > 0)
    .sort((a, b) => b.v - a.v || a.i - b.i)
    .slice(0, k)
    .map((x) => `${x.id}:${x.v}`);

describe('pruned hybrid search ranks as the exhaustive one', () => {
  it('keeps rows with the very relevance, score, BM25 and cosine, in the same order', async () => {
    const records = corpus(8_000, 11);
    const pruned = recallOver(records, false, true);
    const exhaustive = recallOver(records, true, true);
    const w = defaultSettings.searchDecayWeight;
    const zone = defaultSettings.dangerZone;
    const random = seeded(12);
    let kept = 0;
    let matched = 0;
    let byMeaning = 0;
    let meaningOnly = 0;
    for (const query of queries(120, 13)) {
      for (const k of [1, 10, 40]) {
        const statuses: MemoryStatus[] =
          random() < 0.3 ? ['active', 'archived'] : ['active', 'promoted'];
        const filter: Filter = {
          statuses,
          since: random() < 0.3 ? T0 - Math.floor(random() * 100 * DAY) : null,
          tags:
            random() < 0.3 ? new Set([TAGS[Math.floor(random() * TAGS.length)] as string]) : null,
          score: (r) => pruned.score(r, T0),
          minScore: null,
        };
        const tops: Top[] = [
          { count: k, value: (r, s) => combinedRank(r, s, w), ceiling: combinedRank(1, 1, w) },
          { count: k, value: (r, s) => reviewPriority(s, zone) * r, ceiling: 1, positive: true },
        ];
        const some = [...(await pruned.retriever.rank(query, 200, filter, tops))];
        const allRows = await exhaustive.retriever.rank(query, 200, filter, tops);
        const all = [...allRows];
        assert.equal(
          (await pruned.retriever.rank(query, 200, filter, tops)).matched,
          (await exhaustive.retriever.rank(query, 200, filter, tops)).matched,
        );
        assert.equal(allRows.matched, all.length);
        kept += some.length;
        matched += all.length;
        // Every row kept is one of all, in the same order, with the same numbers.
        const place = new Map(all.map((row, i) => [row.record.id, i]));
        let last = -1;
        for (const row of some) {
          const i = place.get(row.record.id);
          assert.ok(i !== undefined && i > last, `${query}: ${row.record.id} out of order`);
          last = i;
          const twin = all[i] as RankedRow;
          assert.equal(row.relevance, twin.relevance);
          assert.equal(row.score, twin.score);
          assert.equal(row.lexical, twin.lexical);
          assert.equal(row.similarity, twin.similarity);
          if (row.similarity !== undefined) byMeaning++;
          if (row.similarity !== undefined && row.lexical === 0) meaningOnly++;
        }
        for (const top of tops) assert.deepEqual(best(some, k, top), best(all, k, top), query);
      }
    }
    // Both kinds of hit by meaning were there, and most matches by words were never scored.
    assert.ok(byMeaning > 100 && meaningOnly > 100, `${byMeaning} ${meaningOnly}`);
    assert.ok(kept < matched / 2, `${kept} of ${matched}`);
  });

  it('the same pages, totals and review candidates, with a meaning side of any weight', async () => {
    for (const hybridWeight of [0.3, 0.9, 1]) {
      assert.ok((await compare(5_000, 21, true, 120, { hybridWeight })) > 300);
    }
  });

  it('stays the same after memories are removed, reworded and archived', async () => {
    const records = corpus(4_000, 25);
    const pruned = recallOver(records, false, true);
    const exhaustive = recallOver(records, true, true);
    for (const { retriever } of [pruned, exhaustive]) {
      const change = seeded(27);
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
    const random = seeded(26);
    for (const query of queries(150, 28)) {
      const input = inputFor(query, random);
      assert.deepEqual(
        await pruned.recall.search(input),
        await exhaustive.recall.search(input),
        JSON.stringify(input),
      );
    }
  });

  it('property: the same pages on random stores, zones, weights and filters', async () => {
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
        fc.double({ min: 0, max: 1, noNaN: true }),
        // A weight under 1e-9 (fast-check likes 5e-324) makes every match by meaning alone
        // weigh a subnormal: their ranks tie at the bottom, where either order is right.
        fc.oneof(
          fc.double({ min: 0, max: 1, noNaN: true }).map((w) => (w < 1e-9 ? 0 : w)),
          fc.constantFrom(0.3, 1),
        ),
        fc.double({ min: 0, max: 0.95, noNaN: true }),
        fc.double({ min: 0, max: 0.5, noNaN: true }),
        async (seed, size, dangerZone, searchDecayWeight, hybridWeight, threshold, blend) => {
          const records = corpus(size, seed);
          const overrides: Partial<MemorySettings> = {
            dangerZone,
            searchDecayWeight,
            hybridWeight,
            similarityThreshold: threshold,
            reviewBlendRatio: blend,
          };
          const pruned = recallOver(records, false, true, overrides);
          const exhaustive = recallOver(records, true, true, overrides);
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
