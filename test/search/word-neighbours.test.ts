import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { LexicalIndex } from '../../src/search/lexical-index.js';
import { wordNeighbours } from '../../src/search/word-neighbours.js';
import { type MemoryRecord, newMemoryRecord } from '../../src/storage/records.js';

const LIVE = ['active', 'promoted'] as const;
const WORDS = ['boston', 'denver', 'lives', 'works', 'garden', 'painting', 'sister', 'coffee'];

function indexOf(texts: readonly string[], statuses: readonly MemoryRecord['status'][] = []) {
  const records = new Map<string, MemoryRecord>();
  const lexical = new LexicalIndex((id) => records.get(id));
  texts.forEach((text, i) => {
    const record = {
      ...newMemoryRecord(`m${i}`, text, 1_700_000_000 + i),
      status: statuses[i] ?? 'active',
    };
    records.set(record.id, record);
    lexical.upsert(record, text, undefined);
  });
  return lexical;
}

/** The exact `k` best: every match scored, sorted, ties in the order met. */
function exactBest(lexical: LexicalIndex, text: string, k: number) {
  const matches = lexical.match(text, LIVE);
  const all = Array.from({ length: matches.count }, (_, j) => ({
    id: lexical.idAt(matches.ordinals[j] as number),
    score: matches.scores[j] as number,
  }));
  return all.sort((a, b) => b.score - a.score).slice(0, k);
}

const sentence = fc
  .array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 8 })
  .map((words) => words.join(' '));

describe('wordNeighbours', () => {
  it('is the exact k best while the words walked stay within the budget (property)', () => {
    fc.assert(
      fc.property(fc.array(sentence, { minLength: 1, maxLength: 40 }), sentence, (texts, text) => {
        const lexical = indexOf(texts);
        assert.deepEqual(wordNeighbours(lexical, text, 5, LIVE), exactBest(lexical, text, 5));
      }),
    );
  });

  it('walks the rarest word first and scores what it finds by every word (property)', () => {
    fc.assert(
      fc.property(
        fc.array(sentence, { minLength: 1, maxLength: 40 }),
        sentence,
        fc.nat({ max: 8 }),
        (texts, text, budget) => {
          const lexical = indexOf(texts);
          const found = wordNeighbours(lexical, text, 5, LIVE, budget);
          const exact = new Map(exactBest(lexical, text, texts.length).map((n) => [n.id, n.score]));
          const scores = found.map((n) => n.score);
          assert.deepEqual(
            scores,
            [...scores].sort((a, b) => b - a),
          );
          for (const { id, score } of found) {
            assert.ok(Math.abs(score - (exact.get(id) as number)) <= 1e-9, id);
          }
          // The rarest word is always walked: a memory holding it is never missed for lack of one.
          if (exact.size > 0) assert.ok(found.length > 0);
        },
      ),
    );
  });

  it('finds by a rare word when the common ones are past the budget', () => {
    const texts = [
      ...Array.from({ length: 30 }, (_, i) => `coffee garden painting ${i}`),
      'Caroline lives in Boston, coffee in the garden',
    ];
    const lexical = indexOf(texts);
    const text = 'Caroline drinks coffee in the garden';
    const found = wordNeighbours(lexical, text, 3, LIVE, 5);
    // Only the rare word was walked; its memory has the score of every word.
    assert.deepEqual(found, exactBest(lexical, text, 1));
    assert.equal(found[0]?.id, 'm30');
    assert.equal(wordNeighbours(lexical, text, 3, LIVE).length, 3);
  });

  it('leaves out the statuses not asked for', () => {
    const lexical = indexOf(['lives in Boston', 'lives in Denver'], ['superseded', 'active']);
    assert.deepEqual(
      wordNeighbours(lexical, 'lives in Boston', 5, LIVE).map((n) => n.id),
      ['m1'],
    );
  });
});
