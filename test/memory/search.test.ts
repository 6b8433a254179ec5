import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { openTestMemory, type TestMemory } from '../support.js';

describe('search_memory semantics', () => {
  let t: TestMemory;
  afterEach(() => t.close());

  it('finds a matching memory however old it is, and never lists one that does not match', async () => {
    t = await openTestMemory();
    const old = await t.memory.writing.save({
      content: 'The wifi password at the cabin is on the fridge.',
    });
    t.clock.advanceDays(40); // score well below the danger zone, still alive
    await t.memory.writing.save({ content: 'Bought new hiking boots for the cabin trip.' });
    const found = await t.memory.recall.search({ query: 'wifi password' });
    assert.deepEqual(
      found.results.map((r) => r.memory_id),
      [old.memory_id],
    );
    assert.ok((found.results[0]?.score ?? 1) < 0.15);
    const none = await t.memory.recall.search({ query: 'submarine' });
    assert.equal(none.total, 0);
    assert.deepEqual(none.results, []);
  });

  it('ranks equal matches by decay score, and relevance over freshness', async () => {
    t = await openTestMemory();
    const older = await t.memory.writing.save({ content: 'Standup is at nine.' });
    t.clock.advanceDays(5);
    const newer = await t.memory.writing.save({ content: 'Standup is at nine thirty.' });
    const ids = (await t.memory.recall.search({ query: 'standup' })).results.map(
      (r) => r.memory_id,
    );
    assert.deepEqual(ids, [newer.memory_id, older.memory_id]);

    const strong = await t.memory.writing.save({
      content: 'Quarterly budget review budget numbers budget owner',
    });
    t.clock.advanceDays(5);
    await t.memory.writing.save({ content: 'Lunch menu, and a note about the budget' });
    const first = (await t.memory.recall.search({ query: 'budget review' })).results[0];
    assert.equal(first?.memory_id, strong.memory_id);
  });

  it('search never reinforces', async () => {
    t = await openTestMemory();
    const { memory_id } = await t.memory.writing.save({ content: 'Ferns like shade.' });
    await t.memory.recall.search({ query: 'ferns' });
    await t.memory.recall.search({ query: 'ferns' });
    assert.equal(t.store.memories.get(memory_id)?.use_count, 0);
  });

  it('blends danger-zone memories in as review candidates, two primaries then one review', async () => {
    t = await openTestMemory();
    const fading: string[] = [];
    for (let i = 0; i < 4; i++) {
      fading.push(
        (await t.memory.writing.save({ content: `Garden note ${i}: tomato seedlings need warmth` }))
          .memory_id,
      );
    }
    t.clock.advanceDays(8.5); // unused for 8.5 days: power-law score ~0.25, the middle of the zone
    const fresh: string[] = [];
    for (let i = 0; i < 12; i++) {
      fresh.push(
        (
          await t.memory.writing.save({
            content: `Garden note fresh ${i}: tomato tomato seedlings`,
          })
        ).memory_id,
      );
    }
    const page = await t.memory.recall.search({ query: 'tomato seedlings', top_k: 10 });
    assert.equal(page.results.length, 10);
    const flags = page.results.map((r) => r.review_candidate);
    assert.deepEqual(flags, [false, false, true, false, false, true, false, false, true, false]);
    for (const r of page.results.filter((x) => x.review_candidate)) {
      assert.ok(fading.includes(r.memory_id));
      assert.ok(r.review_priority > 0.9, `priority ${r.review_priority}`);
    }
    assert.equal(page.total, 16);

    const off = await t.memory.recall.search({
      query: 'tomato seedlings',
      top_k: 10,
      include_review_candidates: false,
    });
    assert.ok(off.results.every((r) => !r.review_candidate));
    assert.ok(off.results.every((r) => fresh.includes(r.memory_id)));
  });

  it('pages through every match once, review candidates included', async () => {
    t = await openTestMemory();
    for (let i = 0; i < 3; i++) await t.memory.writing.save({ content: `Old paging item ${i}` });
    t.clock.advanceDays(8.5);
    for (let i = 0; i < 20; i++) await t.memory.writing.save({ content: `Paging item ${i}` });
    const seen: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const r = await t.memory.recall.search({ query: 'paging item', page_size: 7, page });
      seen.push(...r.results.map((x) => x.memory_id));
      assert.equal(r.page, page);
      assert.equal(r.total, 23);
    }
    assert.equal(seen.length, 23);
    assert.equal(new Set(seen).size, 23);
  });

  it('answers a page far past the last with no rows, holding no more than the matches', async () => {
    // The top a page needs was allocated at its nominal size: past 2^32 rows (page 2^53) the
    // search failed with an internal error, and page 2,000,000 of 100 reserved 1.6 GB for one call.
    t = await openTestMemory();
    await t.memory.writing.save({ content: 'Paging far item' });
    for (const page of [Number.MAX_SAFE_INTEGER, 2_000_000]) {
      const before = process.memoryUsage().arrayBuffers;
      const r = await t.memory.recall.search({ query: 'paging far', page_size: 100, page });
      assert.equal(r.total, 1);
      assert.deepEqual(r.results, []);
      assert.ok(process.memoryUsage().arrayBuffers - before < 64 << 20, `page ${page}`);
    }
  });

  it('filters by tags, status, window_days and min_score, and cuts previews', async () => {
    t = await openTestMemory();
    const a = await t.memory.writing.save({
      content: 'Alpha project kickoff notes',
      tags: ['work'],
    });
    t.clock.advanceDays(10);
    const b = await t.memory.writing.save({ content: 'Alpha hiking route', tags: ['Fun'] });
    const c = await t.memory.writing.save({
      content: `Alpha ${'long '.repeat(200)}`,
      tags: ['fun'],
    });
    await t.memory.forgetting.archive({ memory_id: c.memory_id });

    const ids = async (input: Parameters<typeof t.memory.recall.search>[0]) =>
      (await t.memory.recall.search(input)).results.map((r) => r.memory_id).sort();
    assert.deepEqual(await ids({ query: 'alpha', tags: ['fun'] }), [b.memory_id]);
    assert.deepEqual(await ids({ query: 'alpha', status: ['archived'] }), [c.memory_id]);
    assert.deepEqual(await ids({ query: 'alpha', window_days: 5 }), [b.memory_id]);
    assert.deepEqual(await ids({ query: 'alpha', min_score: 0.5 }), [b.memory_id]);
    assert.deepEqual(await ids({ query: 'alpha' }), [a.memory_id, b.memory_id].sort());
    await t.memory.writing.save({ content: 'Alpha alpha', tags: ['work'] }); // the best match overall
    const onlyFun = await t.memory.recall.search({ query: 'alpha', tags: ['fun'] });
    assert.equal(
      onlyFun.results[0]?.relevance,
      1,
      'relevance is relative to what passed the filters',
    );
    const cut = await t.memory.recall.search({
      query: 'alpha',
      status: ['archived'],
      preview_length: 40,
    });
    assert.equal(cut.results[0]?.content.length, 40);
  });

  it('lists by decay score when there is no query', async () => {
    t = await openTestMemory();
    const old = await t.memory.writing.save({ content: 'first' });
    t.clock.advanceDays(2);
    const fresh = await t.memory.writing.save({ content: 'second' });
    const r = await t.memory.recall.search({ include_review_candidates: false });
    assert.deepEqual(
      r.results.map((x) => x.memory_id),
      [fresh.memory_id, old.memory_id],
    );
  });
});
