import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { combinedRank, interleave, topN } from '../../src/search/ranking.js';

const indices = (ranked: { index: number }[]) => ranked.map((r) => r.index);

/** The reference: a full stable sort, best first, ties by index. */
const sortAll = (ranks: number[], keep?: (i: number) => boolean) =>
  ranks
    .map((rank, index) => ({ index, rank }))
    .filter((r) => !keep || keep(r.index))
    .sort((a, b) => b.rank - a.rank || a.index - b.index);

describe('topN', () => {
  it('returns the n best, best first', () => {
    const ranked = topN([0.1, 0.9, 0.5, 0.95, 0.3], 3);
    assert.deepEqual(ranked, [
      { index: 3, rank: 0.95 },
      { index: 1, rank: 0.9 },
      { index: 2, rank: 0.5 },
    ]);
  });

  it('keeps ties in index order', () => {
    assert.deepEqual(indices(topN([1, 1, 1, 1, 1], 3)), [0, 1, 2]);
    assert.deepEqual(indices(topN([0.5, 1, 0.5, 1, 0.5], 4)), [1, 3, 0, 2]);
  });

  it('takes a Float64Array', () => {
    assert.deepEqual(indices(topN(Float64Array.from([0.2, 0.7, 0.4]), 2)), [1, 2]);
  });

  it('respects the keep filter', () => {
    const ranks = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4];
    assert.deepEqual(indices(topN(ranks, 2, (i) => i % 2 === 1)), [1, 3]);
    assert.deepEqual(
      topN(ranks, 3, () => false),
      [],
    );
  });

  it('returns everything when n exceeds the count, and nothing for n <= 0', () => {
    assert.deepEqual(indices(topN([0.2, 0.7, 0.4], 10)), [1, 2, 0]);
    assert.deepEqual(topN([0.2, 0.7], 0), []);
    assert.deepEqual(topN([0.2, 0.7], -1), []);
    assert.deepEqual(topN([], 5), []);
  });

  it('agrees with a full stable sort (property)', () => {
    fc.assert(
      fc.property(
        // Few distinct values, so ties are common.
        fc.array(
          fc.integer({ min: 0, max: 5 }).map((v) => v / 5),
          { maxLength: 200 },
        ),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 4 }),
        (ranks, n, modulus) => {
          const keep = (i: number) => i % modulus !== 0;
          assert.deepEqual(topN(ranks, n), sortAll(ranks).slice(0, n));
          assert.deepEqual(topN(ranks, n, keep), sortAll(ranks, keep).slice(0, n));
        },
      ),
    );
  });
});

describe('interleave', () => {
  it('gives two primaries, then one review candidate', () => {
    const out = interleave(['p1', 'p2', 'p3', 'p4', 'p5', 'p6'], ['r1', 'r2', 'r3']);
    assert.deepEqual(out, ['p1', 'p2', 'r1', 'p3', 'p4', 'r2', 'p5', 'p6', 'r3']);
  });

  it('gives the rest of the primaries once the review candidates run out', () => {
    assert.deepEqual(interleave(['p1', 'p2', 'p3', 'p4', 'p5'], ['r1']), [
      'p1',
      'p2',
      'r1',
      'p3',
      'p4',
      'p5',
    ]);
  });

  it('gives the rest of the review candidates once the primaries run out', () => {
    assert.deepEqual(interleave(['p1'], ['r1', 'r2', 'r3']), ['p1', 'r1', 'r2', 'r3']);
    assert.deepEqual(interleave(['p1', 'p2', 'p3'], ['r1', 'r2', 'r3']), [
      'p1',
      'p2',
      'r1',
      'p3',
      'r2',
      'r3',
    ]);
  });

  it('handles empty lists', () => {
    assert.deepEqual(interleave([], []), []);
    assert.deepEqual(interleave(['p1', 'p2'], []), ['p1', 'p2']);
    assert.deepEqual(interleave([], ['r1', 'r2']), ['r1', 'r2']);
  });

  it('keeps every item once, each list in its own order (property)', () => {
    fc.assert(
      fc.property(fc.nat({ max: 40 }), fc.nat({ max: 40 }), (np, nr) => {
        const primary = Array.from({ length: np }, (_, i) => `p${i}`);
        const review = Array.from({ length: nr }, (_, i) => `r${i}`);
        const out = interleave(primary, review);
        assert.equal(out.length, np + nr);
        assert.deepEqual(
          out.filter((x) => x.startsWith('p')),
          primary,
        );
        assert.deepEqual(
          out.filter((x) => x.startsWith('r')),
          review,
        );
        // While both lists last, no review candidate comes before two primaries have.
        out.forEach((x, i) => {
          if (!x.startsWith('r')) return;
          const k = Number(x.slice(1));
          const primariesBefore = out.slice(0, i).filter((y) => y.startsWith('p')).length;
          assert.equal(primariesBefore, Math.min(np, 2 * (k + 1)));
        });
      }),
    );
  });
});

describe('combinedRank', () => {
  it('lets relevance lead: a perfect match long decayed beats a half match just used', () => {
    const decayed = combinedRank(1, 0.01, 0.3);
    const fresh = combinedRank(0.5, 1, 0.3);
    assert.ok(decayed > fresh, `${decayed} should beat ${fresh}`);
    assert.ok(combinedRank(1, 0, 0.3) > combinedRank(0.5, 2, 0.3));
  });

  it('puts the livelier of two equal matches first', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (relevance, a, b, weight) => {
          fc.pre(Math.abs(a - b) > 1e-6);
          const [low, high] = a < b ? [a, b] : [b, a];
          assert.ok(combinedRank(relevance, high, weight) > combinedRank(relevance, low, weight));
        },
      ),
    );
  });

  it('is relevance * (1 - d * (1 - min(1, score))), d = w * (1 - 0.6 * relevance)', () => {
    assert.equal(combinedRank(0.8, 0.5, 0), 0.8);
    const d = 0.3 * (1 - 0.6 * 0.8);
    assert.ok(Math.abs(combinedRank(0.8, 0.5, 0.3) - 0.8 * (1 - d * 0.5)) <= 1e-12);
    // The best match keeps 40% of the decay's weight, a faint one nearly all of it.
    assert.ok(Math.abs(combinedRank(1, 0, 0.3) - (1 - 0.3 * 0.4)) <= 1e-12);
    assert.ok(Math.abs(combinedRank(0.01, 0, 0.3) / 0.01 - (1 - 0.3 * 0.994)) <= 1e-12);
    // A score above 1 (many uses, high strength) counts as 1.
    assert.equal(combinedRank(0.8, 1.9, 0.3), combinedRank(0.8, 1, 0.3));
    assert.equal(combinedRank(0, 1, 0.3), 0);
  });

  it('property: never above relevance * combinedRank(1, 1, w), the ceiling pruning uses', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 3, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (relevance, score, weight) => {
          const ceiling = combinedRank(1, 1, weight);
          assert.equal(ceiling, 1);
          assert.ok(combinedRank(relevance, score, weight) <= relevance * ceiling);
        },
      ),
    );
  });
});
