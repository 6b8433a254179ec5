import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openTestMemory, type TestMemory } from '../support.js';

describe('semantic recall with the static model', () => {
  let t: TestMemory;
  before(async () => {
    t = await openTestMemory({ MNEMO_EMBEDDINGS: 'static' });
    await t.opened.ready;
    await t.opened.semantic.ready;
  });
  after(async () => {
    await t.close();
  });

  it('finds a kitten on a rug by a search for a cat on the carpet', async () => {
    const kitten = await t.memory.save({
      content: 'The kitten was sleeping on the rug all afternoon.',
    });
    await t.memory.save({ content: 'Quarterly tax filing is due at the end of March.' });
    await t.memory.save({ content: 'The deploy pipeline runs on every merge to main.' });
    const found = await t.memory.search({ query: 'cat resting on the carpet' });
    assert.equal(found.results[0]?.memory_id, kitten.memory_id);
    // A memory that matches neither by words nor by meaning is never a result.
    assert.ok(found.results.every((r) => !/tax/.test(r.content)));
  });

  it('search_unified finds memories by meaning too', async () => {
    const found = await t.memory.searchUnified({ query: 'cat resting on the carpet' });
    assert.equal(found.results[0]?.source, 'stm');
    assert.match(found.results[0]?.content ?? '', /kitten/);
  });

  it('with MNEMO_HYBRID_WEIGHT=0 search is by words alone', async () => {
    const words = await openTestMemory({ MNEMO_EMBEDDINGS: 'static', MNEMO_HYBRID_WEIGHT: '0' });
    try {
      await words.opened.semantic.ready;
      await words.memory.save({ content: 'The kitten was sleeping on the rug all afternoon.' });
      const found = await words.memory.search({ query: 'cat resting on the carpet' });
      assert.deepEqual(found.results, []);
    } finally {
      await words.close();
    }
  });
});
