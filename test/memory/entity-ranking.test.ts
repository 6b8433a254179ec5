import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  MENTION_LIFT,
  nameLift,
  type QueryNames,
  queryNames,
  SUBJECT_LIFT,
} from '../../src/memory/entity-ranking.js';
import { withoutScaffolding } from '../../src/search/question-words.js';
import { namesOf } from '../../src/search/rank-facts.js';
import { newMemoryRecord } from '../../src/storage/records.js';
import { openTestMemory, T0, type TestMemory } from '../support.js';

const memory = (content: string, entities: string[] = []) =>
  newMemoryRecord('m', content, T0, { entities });

describe('names in a query', () => {
  it('are the capitalised words, less possessives and the words a sentence begins with', () => {
    assert.deepEqual(namesOf("What are Caroline's plans with Jon in New York?", 16), [
      'caroline',
      'jon',
      'new',
      'york',
    ]);
    assert.deepEqual(namesOf('Thanks, Melanie! I am here.', 16), ['melanie']);
    assert.equal(queryNames('what did she paint?'), null);
  });

  it('lift the memory whose subject they name most, one that only mentions them a little', () => {
    const names = queryNames('What did Melanie paint recently?') as QueryNames;
    assert.equal(
      nameLift(memory('Melanie: We painted a sunset last weekend.'), names),
      1 + SUBJECT_LIFT,
    );
    assert.equal(
      nameLift(memory('Caroline: Thanks, Melanie! I love it.'), names),
      1 + MENTION_LIFT,
    );
    assert.equal(nameLift(memory('Caroline: I painted a tree.'), names), 1);
    // Entities a memory was saved with come first: its first entity is its subject.
    assert.equal(nameLift(memory('She painted a lake.', ['Melanie']), names), 1 + SUBJECT_LIFT);
  });

  it('property: names of any text are bounded and lowercase, and reading them is linear', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), (text) => {
        const names = namesOf(text, 16);
        assert.ok(names.length <= 16);
        for (const name of names) assert.equal(name, name.toLowerCase());
      }),
    );
    // Linear: a name is read 64 characters at most (what its regex matches; the regexes are held
    // to linear time by test/security/regex-linear.test.ts), and no more are read past the limit.
    for (const text of [`${'Aa'.repeat(200_000)} ${"A'".repeat(200_000)}`, "A'".repeat(200_000)]) {
      const names = namesOf(text, 16);
      assert.equal(names.length, 16);
      assert.ok(
        names.every((name) => name.length <= 64),
        `names of ${names.map((n) => n.length)} characters`,
      );
    }
  });
});

describe('question scaffolding', () => {
  it('leaves "kind of", "types of", "sort of" out of the words, unless nothing else is left', () => {
    assert.equal(
      withoutScaffolding('What kind of art does Caroline make?').includes('kind'),
      false,
    );
    assert.equal(withoutScaffolding('Which types of food?').includes('types'), false);
    assert.equal(withoutScaffolding('kind of'), 'kind of');
    assert.equal(
      withoutScaffolding('What does Melanie think about the adoption?').includes('think'),
      false,
    );
    assert.equal(withoutScaffolding('What did Gina say?').includes('say'), false);
    assert.equal(withoutScaffolding('said'), 'said');
    assert.ok(withoutScaffolding('a thinker says nothing').includes('thinker'));
    assert.equal(withoutScaffolding('a kind gesture'), 'a kind gesture');
  });
});

describe('search with names and scaffolding', () => {
  let t: TestMemory;
  afterEach(() => t.close());

  it("puts the named person's own memory before one said to them (a closer word match)", async () => {
    t = await openTestMemory();
    const toHer = await t.memory.writing.save({
      content: 'Caroline: Thanks, Melanie! Lovely painting.',
    });
    const hers = await t.memory.writing.save({
      content:
        'Melanie: I finished a painting of the sunrise with my kids over the long weekend at the lake house, after lunch.',
    });
    const found = await t.memory.recall.search({ query: 'What did Melanie paint?' });
    assert.deepEqual(
      found.results.map((r) => r.memory_id),
      [hers.memory_id, toHer.memory_id],
    );
  });

  it('does not match "kind words" for "what kind of"', async () => {
    t = await openTestMemory();
    await t.memory.writing.save({ content: 'Thanks for your kind words about the garden.' });
    const art = await t.memory.writing.save({ content: 'She makes abstract art with clay.' });
    const found = await t.memory.recall.search({ query: 'What kind of art does she make?' });
    assert.deepEqual(
      found.results.map((r) => r.memory_id),
      [art.memory_id],
    );
  });
});
