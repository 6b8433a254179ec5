// A match of a query's rarer words (term-walk.ts) against the full match: the same documents
// first, to the last bit of their scores, the rest counted and never above the bound.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { seededRandom } from '../../bench/lib/content.js';
import { Bm25Index } from '../../src/search/bm25.js';
import { rareCount } from '../../src/search/term-walk.js';

/** Terms 0-7 common (each in a third to a half of the documents), 8-207 rare. */
const COMMON = 8;
const TERMS = COMMON + 200;

/**
 * 12,000 documents, the first `frozen` in the frozen base; `mixed`: some removed (their postings
 * left dead) and of classes 1-3, else all of class 1, the first `moved` moved to class 2.
 */
function indexOf(seed: number, frozen: number, mixed = true, moved = 0): Bm25Index {
  const random = seededRandom(seed);
  const index = new Bm25Index();
  const kept: [string, number[]][] = [];
  for (let i = 0; i < 12_000; i++) {
    if (i === frozen) index.freeze();
    const terms: number[] = [];
    for (let t = 0; t < COMMON; t++) {
      if (random() < 0.3 + t * 0.03)
        terms.push(...Array(1 + Math.floor(random() ** 4 * 4)).fill(t));
    }
    const rare = 1 + Math.floor(random() * 3);
    for (let k = 0; k < rare; k++) terms.push(COMMON + Math.floor(random() * 200));
    for (let k = Math.floor(random() * 30); k > 0; k--) terms.push(TERMS + k);
    const cls = mixed ? 1 + Math.floor(random() * 3) : 1;
    index.add(`m${i}`, terms, undefined, undefined, cls);
    kept.push([`m${i}`, terms]);
  }
  for (const [id, terms] of kept) if (mixed && random() < 0.05) index.remove(id, terms);
  // Documents moved to class 2 (a memory archived): a match of class 1 must count them out.
  for (const [id] of kept.slice(0, moved)) index.setDoc(id, undefined, 2);
  return index;
}

describe('a match of the rarer words', () => {
  const indexes = [
    indexOf(1, 12_000),
    indexOf(2, 5_000),
    indexOf(3, 0),
    indexOf(4, 12_000, false),
    indexOf(5, 7_000, false, 400),
  ];

  it('answers the full match first documents, their scores to the last bit, the rest counted and bounded', () => {
    let rareMatches = 0;
    fc.assert(
      fc.property(
        fc.nat({ max: indexes.length - 1 }),
        fc.array(fc.nat({ max: COMMON - 1 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.integer({ min: COMMON, max: TERMS - 1 }), { minLength: 1, maxLength: 3 }),
        fc.constantFrom(~1, 1 << 1, (1 << 1) | (1 << 3), 1 << 3),
        fc.boolean(),
        (which, common, rare, mask, commonFirst) => {
          const index = indexes[which] as Bm25Index;
          const query = commonFirst ? [...common, ...rare] : [...rare, ...common];
          const got = index.matchRare(query, mask);
          if (!got) return;
          rareMatches++;
          const ordinals = got.ordinals.slice(0, got.count);
          const scores = got.scores.slice(0, got.count);
          const { restBound, restOnly, best } = got;
          const full = index.match(query, mask);
          // The rare documents are the full match's first ones (rarest term first), in order.
          assert.deepEqual(ordinals, full.ordinals.slice(0, got.count));
          assert.deepEqual(scores, full.scores.slice(0, got.count));
          assert.equal(got.count + restOnly, full.count);
          for (let i = got.count; i < full.count; i++) {
            assert.ok((full.scores[i] as number) <= restBound);
          }
          assert.ok(best <= full.best);
          if (restBound < best) assert.equal(best, full.best);
        },
      ),
      { numRuns: 500 },
    );
    // The rarer words' match was taken, not only declined.
    assert.ok(rareMatches > 150, `${rareMatches} of 500`);
  });

  it('counts the documents of the common term only, less those of other classes, moved there or removed', () => {
    // Every document holds term 0, one in a hundred term 1 too: those 80 are met, 7,920 counted.
    const index = new Bm25Index();
    for (let i = 0; i < 8_000; i++) index.add(`m${i}`, i % 100 === 0 ? [0, 1] : [0]);
    const restOnly = () => index.matchRare([1, 0], 1 << 1)?.restOnly;
    assert.equal(restOnly(), 8_000 - 80);
    for (let i = 1; i < 100; i++) index.setDoc(`m${i}`, undefined, 2);
    assert.equal(restOnly(), 8_000 - 80 - 99);
    for (let i = 1; i < 100; i++) index.setDoc(`m${i}`, undefined, 1);
    assert.equal(restOnly(), 8_000 - 80);
    for (let i = 101; i < 151; i++) index.remove(`m${i}`, [0]);
    assert.equal(restOnly(), 8_000 - 80 - 50);
    assert.equal(index.match([1, 0], 1 << 1).count, 8_000 - 50);
  });

  it('is not taken for common words a few documents hold, or when the common words weigh much', () => {
    const live = 100_000;
    // Rarest first: a rare word, then words in half the documents: the rare one walked alone.
    assert.equal(rareCount([50, 50_000, 60_000], live, 1.2), 1);
    // Two fairly rare words before the common one: both walked.
    assert.equal(rareCount([50, 4_000, 50_000], live, 1.2), 2);
    // No word held by a 64th of the documents: walk them all.
    assert.equal(rareCount([50, 1_000, 1_500], live, 1.2), 0);
    // Common words holding fewer postings than the rare ones: walk them all.
    assert.equal(rareCount([5_000, 5_000, 5_000, 5_000], 10_000, 1.2), 0);
    // A word in every other document scores too much beside one in a fifth: walk them all.
    assert.equal(rareCount([20_000, 50_000], live, 1.2), 0);
  });
});
