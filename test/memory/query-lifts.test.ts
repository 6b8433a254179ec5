import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { LIFT_POOL, liftBest } from '../../src/memory/query-lifts.js';
import { topN } from '../../src/search/ranking.js';

describe('liftBest', () => {
  it('property: the same best rows, in the same order, as lifting every row of the pool', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 300 }),
        fc.array(fc.constantFrom(1, 1.1, 1.4, 1.5, 1.7, 1.7 * 1.4), { minLength: 1 }),
        fc.integer({ min: 1, max: 40 }),
        (values, lifts, need) => {
          const liftOf = (row: number) => lifts[row % lifts.length] as number;
          const every = Float64Array.from(values);
          for (const { index } of topN(every, LIFT_POOL)) {
            every[index] = (every[index] as number) * liftOf(index);
          }
          const asked: number[] = [];
          const some = Float64Array.from(values);
          liftBest(some, need, 1.7 * 1.4, (row) => {
            asked.push(row);
            return liftOf(row);
          });
          assert.deepEqual(topN(some, need), topN(every, need));
          assert.ok(asked.length <= Math.min(LIFT_POOL, values.length));
        },
      ),
    );
  });

  it('reads no more rows than can reach the page', () => {
    // Ten rows far above the rest: no lift can bring the rest into the best ten.
    const ranks = Float64Array.from({ length: 200 }, (_, i) => (i < 10 ? 1 : 0.1));
    let asked = 0;
    liftBest(ranks, 10, 1.7, () => {
      asked++;
      return 1.7;
    });
    assert.equal(asked, 10);
  });
});
