import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { openTestMemory, type TestMemory } from '../support.js';

describe('memory dynamics through the use cases', () => {
  let t: TestMemory;
  afterEach(() => t.close());

  it('gc forgets only faded active memories, recoverably, weakest first, within the limit', async () => {
    t = await openTestMemory();
    const faded1 = await t.memory.writing.save({ content: 'faded one' });
    t.clock.advanceDays(1);
    const faded2 = await t.memory.writing.save({ content: 'faded two' });
    const kept = await t.memory.writing.save({ content: 'kept by use' });
    const archived = await t.memory.writing.save({ content: 'archived already' });
    await t.memory.forgetting.archive({ memory_id: archived.memory_id });
    t.clock.advanceDays(55);
    await t.memory.writing.touch({ memory_id: kept.memory_id });

    const dry = await t.memory.forgetting.gc({});
    assert.deepEqual(dry.memory_ids, [faded1.memory_id, faded2.memory_id]);
    assert.equal(t.store.memories.size, 4, 'a dry run changes nothing');

    const one = await t.memory.forgetting.gc({ dry_run: false, limit: 1 });
    assert.deepEqual(one.memory_ids, [faded1.memory_id]);
    assert.equal(t.store.memories.has(faded1.memory_id), false);
    const forgotten = fs.readFileSync(path.join(t.dir, 'forgotten.jsonl'), 'utf8');
    assert.match(forgotten, new RegExp(faded1.memory_id));

    const arch = await t.memory.forgetting.gc({ dry_run: false, archive_instead: true });
    assert.deepEqual(arch.memory_ids, [faded2.memory_id]);
    assert.equal(arch.archived_count, 1);
    assert.equal(t.store.memories.get(faded2.memory_id)?.status, 'archived');

    await t.memory.forgetting.restore({ memory_id: faded1.memory_id });
    const back = t.store.memories.get(faded1.memory_id);
    assert.equal(back?.content, 'faded one');
    assert.equal(back?.status, 'active');
    assert.equal(
      (await t.memory.forgetting.gc({})).total_affected,
      0,
      'a restored memory is not forgotten again at once',
    );
  });

  it('restoring a memory whose content was saved again merges it into the live one, once', async () => {
    t = await openTestMemory();
    const first = await t.memory.writing.save({
      content: 'The cabin wifi password is taped inside the fuse box.',
      tags: ['cabin'],
      entities: ['Cabin'],
    });
    for (let i = 0; i < 3; i++) await t.memory.writing.touch({ memory_id: first.memory_id });
    const firstCreated = t.store.memories.get(first.memory_id)?.created_at;
    await t.memory.forgetting.delete({ memory_id: first.memory_id });
    t.clock.advanceDays(2);
    const again = await t.memory.writing.save({
      content: 'the cabin wifi password is taped inside  the fuse box.',
      tags: ['wifi'],
    });
    assert.equal(again.deduplicated, false, 'a forgotten memory is not a duplicate');
    await t.memory.writing.touch({ memory_id: again.memory_id });
    const archived = await t.memory.writing.save({ content: 'Milo likes tuna.' });
    await t.memory.forgetting.archive({ memory_id: archived.memory_id });
    const twin = await t.memory.writing.save({ content: 'Milo likes tuna.' });

    const merged = await t.memory.forgetting.restore({ memory_id: first.memory_id });
    assert.deepEqual(merged, {
      memory_id: first.memory_id,
      status: 'merged',
      merged_into: again.memory_id,
    });
    assert.equal(t.store.memories.has(first.memory_id), false, 'no second live copy');
    const live = t.store.memories.get(again.memory_id);
    assert.equal(live?.status, 'active');
    assert.equal(live?.content, 'the cabin wifi password is taped inside  the fuse box.');
    assert.equal(live?.use_count, 4, "its uses and the restored one's");
    assert.equal(live?.created_at, firstCreated, 'the earlier creation');
    assert.deepEqual(live?.meta.tags, ['wifi', 'cabin']);
    assert.deepEqual(live?.entities, ['Cabin']);
    assert.equal(live?.last_used, t.clock.now);
    // Restoring it again changes nothing: its uses are not counted twice.
    assert.deepEqual(await t.memory.forgetting.restore({ memory_id: first.memory_id }), merged);
    assert.equal(t.store.memories.get(again.memory_id)?.use_count, 4);
    const search = await t.memory.recall.search({ query: 'wifi password' });
    assert.deepEqual(
      search.results.map((r) => r.memory_id),
      [again.memory_id],
    );

    // An archived memory whose content is live again is merged the same way, and stays archived.
    assert.deepEqual(await t.memory.forgetting.restore({ memory_id: archived.memory_id }), {
      memory_id: archived.memory_id,
      status: 'merged',
      merged_into: twin.memory_id,
    });
    assert.equal(t.store.memories.get(archived.memory_id)?.status, 'archived');
  });

  it('a memory that was saved and never used is never a promotion candidate', async () => {
    t = await openTestMemory();
    const unused = await t.memory.writing.save({ content: 'never used', strength: 2 });
    const used = await t.memory.writing.save({ content: 'used twice' });
    await t.memory.writing.touch({ memory_id: used.memory_id });
    await t.memory.writing.touch({ memory_id: used.memory_id });
    const ids = (await t.memory.promotion.candidates()).map((c) => c.memory_id);
    assert.deepEqual(ids, [used.memory_id]);
    await assert.rejects(
      t.memory.promotion.promote({ memory_id: unused.memory_id, dry_run: true }),
      /does not qualify for promotion yet.*force: true/,
    );
    const forced = await t.memory.promotion.promote({
      memory_id: unused.memory_id,
      dry_run: true,
      force: true,
    });
    assert.equal(forced.candidates_found, 1);
  });

  it('observe reinforces, counts reviews and strengthens on cross-domain use, capped at 2', async () => {
    t = await openTestMemory();
    const { memory_id } = await t.memory.writing.save({
      content: 'SQL indexes speed up lookups',
      tags: ['databases'],
    });
    t.clock.advanceDays(8.5);
    for (let i = 0; i < 15; i++) {
      await t.memory.writing.observe({ memory_ids: [memory_id], context_tags: ['cooking'] });
      t.clock.advanceDays(0.1);
    }
    const record = t.store.memories.get(memory_id);
    assert.equal(record?.use_count, 15);
    assert.equal(record?.review_count, 15);
    assert.equal(record?.cross_domain_count, 15);
    assert.equal(record?.strength, 2);
    const same = await t.memory.writing.observe({
      memory_ids: [memory_id],
      context_tags: ['databases'],
    });
    assert.equal(same.results[0]?.cross_domain, false);
  });

  it('review priority is recomputed and kept on reinforcement', async () => {
    t = await openTestMemory({ MNEMO_DECAY_MODEL: 'exponential', MNEMO_DECAY_BETA: '0' });
    const { memory_id } = await t.memory.writing.save({ content: 'in the zone' });
    t.clock.advanceDays(6); // exponential, 3-day half-life: 0.25 now
    const observed = await t.memory.writing.observe({ memory_ids: [memory_id], context_tags: [] });
    // Just used, so out of the danger zone again.
    assert.equal(observed.results[0]?.review_priority, 0);
    assert.equal(t.store.memories.get(memory_id)?.review_priority, 0);
  });

  it('MNEMO_AUTO_REINFORCE=false: observe reports and writes nothing', async () => {
    t = await openTestMemory({ MNEMO_AUTO_REINFORCE: 'false' });
    const { memory_id } = await t.memory.writing.save({ content: 'leave me be' });
    const r = await t.memory.writing.observe({ memory_ids: [memory_id], context_tags: ['x'] });
    assert.equal(r.reinforced, false);
    assert.equal(t.store.memories.get(memory_id)?.use_count, 0);
  });

  it('the selected decay model is the one used', async () => {
    const scores: Record<string, number> = {};
    for (const model of ['power_law', 'exponential', 'two_component']) {
      t = await openTestMemory({ MNEMO_DECAY_MODEL: model });
      await t.memory.writing.save({ content: 'model probe' });
      t.clock.advanceDays(3);
      scores[model] = (await t.memory.recall.search({ query: 'probe' })).results[0]?.score ?? -1;
      t.close();
    }
    t = await openTestMemory();
    assert.equal(scores.power_law, 0.5);
    assert.equal(scores.exponential, 0.5);
    assert.ok(Math.abs((scores.two_component ?? 0) - (0.7 * 2 ** -6 + 0.3 * 2 ** (-3 / 7))) < 1e-4);
  });

  it('stats count statuses, review, gc and promotion candidates', async () => {
    t = await openTestMemory();
    const a = await t.memory.writing.save({ content: 'a' });
    await t.memory.writing.save({ content: 'b' });
    t.clock.advanceDays(60);
    await t.memory.writing.save({ content: 'c' });
    await t.memory.writing.touch({ memory_id: a.memory_id });
    await t.memory.writing.touch({ memory_id: a.memory_id });
    const s = await t.memory.stats.summary();
    assert.equal(s.total, 3);
    assert.equal(s.by_status.active, 3);
    assert.equal(s.gc_candidates, 1);
    assert.equal(s.promotion_candidates, 1);
    assert.ok(s.score_quantiles && s.score_quantiles.p10 < s.score_quantiles.p90);
    assert.ok((s.store_bytes['memories.jsonl'] ?? 0) > 0);
  });

  it('saving the same content again reinforces it and keeps what the new save adds', async () => {
    t = await openTestMemory();
    const first = await t.memory.writing.save({ content: 'Tea at four', tags: ['habits'] });
    const again = await t.memory.writing.save({
      content: 'tea  at FOUR',
      tags: ['home'],
      source: 'diary',
      meta: { mood: 'calm' },
      strength: 1.5,
    });
    assert.deepEqual(again, {
      memory_id: first.memory_id,
      deduplicated: true,
      supersedes: [],
      conflicts: [],
      similar_to: [],
    });
    const record = t.store.memories.get(first.memory_id);
    assert.deepEqual(record?.meta.tags, ['habits', 'home']);
    assert.equal(record?.meta.source, 'diary');
    assert.deepEqual(record?.meta.extra, { mood: 'calm' });
    assert.equal(record?.strength, 1.5);
    assert.equal(record?.use_count, 1);
    assert.equal(t.store.memories.size, 1);
  });
});
