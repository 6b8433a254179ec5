import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SemanticIndex } from '../../src/search/semantic-index.js';
import { VECTORS_FILE } from '../../src/storage/jsonl/vectors.js';
import { eventually, openTestMemory, type TestMemory, tempDir } from '../support.js';

describe('semantic recall with the static model', () => {
  let t: TestMemory;
  before(async () => {
    t = await openTestMemory({ MNEMO_EMBEDDINGS: 'static' });
    await t.opened.readiness.wait('store');
    await t.opened.readiness.wait('embeddings');
  });
  after(async () => {
    await t.close();
  });

  it('finds a kitten on a rug by a search for a cat on the carpet', async () => {
    const kitten = await t.memory.writing.save({
      content: 'The kitten was sleeping on the rug all afternoon.',
    });
    await t.memory.writing.save({ content: 'Quarterly tax filing is due at the end of March.' });
    await t.memory.writing.save({ content: 'The deploy pipeline runs on every merge to main.' });
    const found = await t.memory.recall.search({ query: 'cat resting on the carpet' });
    assert.equal(found.results[0]?.memory_id, kitten.memory_id);
    // A memory that matches neither by words nor by meaning is never a result.
    assert.ok(found.results.every((r) => !/tax/.test(r.content)));
  });

  it("a save's lookups by meaning ask the approximate index for its first candidates, a search in full", async (ctx) => {
    // At 100,000 memories a save of a text with no near-duplicate spent 30 ms asking the graph
    // for up to 2,048 candidates; a save shows hints (similar_to) and hands the fact judge
    // candidates, which the first candidates give (ann-index.ts, SearchDepth).
    const depths: string[] = [];
    const search = SemanticIndex.prototype.search;
    SemanticIndex.prototype.search = function (this: SemanticIndex, ...args) {
      depths.push(args[4] ?? 'full');
      return search.apply(this, args);
    };
    ctx.after(() => {
      SemanticIndex.prototype.search = search;
    });
    await t.memory.writing.save({ content: 'Mei lives in Portland with her two cats.' });
    // It states where Mei lives: the memories it may change are looked up by meaning too.
    const moved = await t.memory.writing.save({ content: 'Mei moved to Austin.' });
    assert.ok(depths.length >= 3, `near-duplicates twice and fact candidates: ${depths}`);
    assert.deepEqual([...new Set(depths)], ['first']);
    depths.length = 0;
    const found = await t.memory.recall.search({ query: 'Mei Austin' });
    assert.deepEqual(depths, ['full']);
    assert.equal(found.results[0]?.memory_id, moved.memory_id);
  });

  it('a save asks for its near-duplicates before its write; when that fails it lists none', async (ctx) => {
    const kitten = await t.memory.writing.save({
      content: 'A kitten naps on the warm windowsill.',
    });
    // Asked while the write is made (the graph searches on a thread of its own): the memories
    // held when it was asked do not count the new one yet.
    const heldWhenAsked: number[] = [];
    let fail = false;
    const search = SemanticIndex.prototype.search;
    SemanticIndex.prototype.search = function (this: SemanticIndex, ...args) {
      heldWhenAsked.push(t.store.memories.size);
      if (fail) return Promise.reject(new Error('the graph went away'));
      return search.apply(this, args);
    };
    ctx.after(() => {
      SemanticIndex.prototype.search = search;
    });
    const before = t.store.memories.size;
    const again = await t.memory.writing.save({ content: 'A kitten naps on the warm windowsill!' });
    assert.deepEqual(heldWhenAsked, [before]);
    assert.equal(t.store.memories.size, before + 1);
    assert.deepEqual(
      again.similar_to.map((s) => s.memory_id),
      [kitten.memory_id],
    );
    // A lookup that fails is a hint not given: the save was made, and says so.
    fail = true;
    const third = await t.memory.writing.save({ content: 'The kitten naps on a warm windowsill.' });
    assert.deepEqual(third.similar_to, []);
    assert.ok(t.store.memories.get(third.memory_id), 'written');
  });

  it('search_unified finds memories by meaning too', async () => {
    const found = await t.memory.recall.searchUnified({ query: 'cat resting on the carpet' });
    assert.equal(found.results[0]?.source, 'stm');
    assert.match(found.results[0]?.content ?? '', /kitten/);
  });

  it('with MNEMO_HYBRID_WEIGHT=0 search is by words alone', async () => {
    const words = await openTestMemory({ MNEMO_EMBEDDINGS: 'static', MNEMO_HYBRID_WEIGHT: '0' });
    try {
      await words.opened.readiness.wait('embeddings');
      await words.memory.writing.save({
        content: 'The kitten was sleeping on the rug all afternoon.',
      });
      const found = await words.memory.recall.search({ query: 'cat resting on the carpet' });
      assert.deepEqual(found.results, []);
    } finally {
      await words.close();
    }
  });

  it('consolidate link relates the members to the most central one and archives none', async () => {
    const m = await openTestMemory({ MNEMO_EMBEDDINGS: 'static' });
    try {
      await m.opened.readiness.wait('embeddings');
      const ids: string[] = [];
      for (const content of [
        'Alice prefers tabs over spaces.',
        'Alice likes tabs more than spaces.',
        'Alice prefers tabs to spaces in code.',
        'The quarterly tax filing deadline is in April.',
      ]) {
        ids.push((await m.memory.writing.save({ content })).memory_id);
      }
      const { clusters } = await m.memory.consolidation.cluster({});
      const tabs = clusters.find((c) => c.memory_ids.includes(ids[0] as string));
      assert.ok(tabs, 'the three tab memories cluster');
      assert.deepEqual([...tabs.memory_ids].sort(), ids.slice(0, 3).sort());
      const linked = await m.memory.consolidation.consolidate({
        cluster_id: tabs.id,
        mode: 'link',
      });
      const done = linked.consolidations[0];
      assert.equal(done?.memory_id, null);
      assert.equal(done?.relation_ids.length, 2);
      assert.deepEqual(done?.archived_ids, []);
      const opened = await m.memory.recall.open({ memory_ids: ids.slice(0, 3) });
      assert.ok(opened.memories.every((r) => r.status === 'active'));
      const hub = opened.memories.find((r) => r.relations.length === 2);
      assert.ok(hub, 'one member is related to both others');
    } finally {
      await m.close();
    }
  });

  it('consolidate auto_detect merges every auto-merge cluster; the content keeps each sentence once', async () => {
    const m = await openTestMemory({ MNEMO_EMBEDDINGS: 'static' });
    try {
      await m.opened.readiness.wait('embeddings');
      const a = await m.memory.writing.save({
        content: 'The staging database password rotates every thirty days. Ask Dana for it.',
        tags: ['ops'],
      });
      m.clock.advanceDays(1);
      const b = await m.memory.writing.save({
        // The same sentences but for a mark: close enough to merge, not an exact duplicate.
        content: 'The staging database password rotates every thirty days! Ask Dana for it.',
        tags: ['security'],
      });
      const preview = await m.memory.consolidation.consolidate({ auto_detect: true });
      assert.equal(preview.consolidations.length, 1);
      const merged = preview.consolidations[0]?.merged;
      assert.equal(
        merged?.content,
        'The staging database password rotates every thirty days. Ask Dana for it.',
      );
      assert.deepEqual(merged?.tags, ['ops', 'security']);
      const applied = await m.memory.consolidation.consolidate({
        auto_detect: true,
        mode: 'apply',
      });
      const id = applied.consolidations[0]?.memory_id as string;
      const opened = await m.memory.recall.open({ memory_ids: [id, a.memory_id, b.memory_id] });
      assert.deepEqual(
        opened.memories.map((r) => r.status),
        ['active', 'archived', 'archived'],
      );
      const from = opened.memories[0]?.relations.filter(
        (r) => r.relation_type === 'consolidated_from',
      );
      assert.equal(from?.length, 2);
      // A member brought back undoes the consolidation for it: it comes back as itself, even
      // though the merged memory says the same (its uses are in the merged one already).
      const usesBefore = opened.memories[0]?.use_count;
      const back = await m.memory.forgetting.restore({ memory_id: a.memory_id });
      assert.deepEqual(back, { memory_id: a.memory_id, status: 'active' });
      const after = await m.memory.recall.open({ memory_ids: [id, a.memory_id] });
      assert.deepEqual(
        after.memories.map((r) => [r.status, r.use_count]),
        [
          ['active', usesBefore],
          ['active', opened.memories[1]?.use_count],
        ],
      );
    } finally {
      await m.close();
    }
  });

  it('the edited text of a promoted note is what both words and meaning search', async () => {
    const m = await openTestMemory({ MNEMO_EMBEDDINGS: 'static' });
    try {
      await m.opened.readiness.wait('embeddings');
      const noticed = async (relative: string) => {
        await m.opened.notes.refresh(relative);
        await m.opened.noteSync.flush();
      };
      const dog = 'dog sleeping near the hearth';
      const { memory_id } = await m.memory.writing.save({
        content: 'Quarterly tax filing is due at the end of March.',
      });
      await m.memory.writing.save({ content: 'The deploy pipeline runs on every merge to main.' });
      assert.ok(
        (await m.memory.recall.search({ query: dog })).results.every(
          (r) => r.memory_id !== memory_id,
        ),
      );
      const { promoted } = await m.memory.promotion.promote({ memory_id, force: true });
      const file = promoted[0]?.path ?? '';
      await noticed(file);
      await m.opened.semantic.drain();
      const vectorLines = () =>
        fs.readFileSync(path.join(m.dir, VECTORS_FILE), 'utf8').split('\n').filter(Boolean).length;
      const before = vectorLines();

      const absolute = path.join(m.vault, file);
      fs.writeFileSync(
        absolute,
        fs
          .readFileSync(absolute, 'utf8')
          .replaceAll(
            'Quarterly tax filing is due at the end of March.',
            'The puppy naps beside the fireplace every evening.',
          ),
      );
      await noticed(file);
      const byWords = await m.memory.recall.search({
        query: 'fireplace',
        include_review_candidates: false,
      });
      assert.deepEqual(
        byWords.results.map((r) => r.memory_id),
        [memory_id],
      );
      // No word in common with the note: found by its meaning alone.
      const byMeaning = await m.memory.recall.search({ query: dog });
      assert.equal(byMeaning.results[0]?.memory_id, memory_id);
      assert.equal(
        byMeaning.results[0]?.content,
        'The puppy naps beside the fireplace every evening.\n',
      );
      const unified = await m.memory.recall.searchUnified({ query: dog, ltm_weight: 0 });
      assert.equal(unified.results[0]?.memory_id, memory_id);
      // The old text is found by neither any more.
      assert.equal((await m.memory.recall.search({ query: 'tax filing' })).total, 0);
      assert.ok(
        (await m.memory.recall.search({ query: 'taxes owed to the government' })).results.every(
          (r) => r.memory_id !== memory_id,
        ),
      );
      assert.equal(vectorLines(), before + 1, 'the edited note is embedded once');
    } finally {
      await m.close();
    }
  });

  it('after a restart, the vector of an edited note is read back, not computed again', async () => {
    const dir = tempDir();
    const options = { watchVault: true, noteSettleMs: 100 };
    const first = await openTestMemory({ MNEMO_EMBEDDINGS: 'static' }, dir, options);
    const vectors = path.join(dir, VECTORS_FILE);
    const lines = () => fs.readFileSync(vectors, 'utf8').split('\n').filter(Boolean);
    let memoryId: string;
    try {
      await first.opened.readiness.wait('embeddings');
      ({ memory_id: memoryId } = await first.memory.writing.save({
        content: 'Quarterly tax filing is due at the end of March.',
      }));
      const { promoted } = await first.memory.promotion.promote({
        memory_id: memoryId,
        force: true,
      });
      await first.opened.readiness.wait('vault');
      const file = path.join(first.vault, promoted[0]?.path ?? '');
      fs.writeFileSync(
        file,
        fs
          .readFileSync(file, 'utf8')
          .replace(/Quarterly.*March\.\n$/, 'The puppy naps by the fire.\n'),
      );
      await eventually(
        async () => (await first.memory.recall.search({ query: 'puppy' })).total === 1,
        'the edit to be seen',
      );
      await first.opened.semantic.drain();
    } finally {
      await first.opened.close();
    }
    const before = lines();
    const again = await openTestMemory({ MNEMO_EMBEDDINGS: 'static' }, dir, options);
    try {
      await again.opened.readiness.wait('vault');
      await again.opened.readiness.wait('embeddings');
      const found = await again.memory.recall.search({ query: 'dog sleeping near the hearth' });
      assert.equal(found.results[0]?.memory_id, memoryId);
      await again.opened.semantic.drain();
      assert.deepEqual(lines(), before, 'nothing was embedded again');
    } finally {
      await again.close();
    }
  });
});
