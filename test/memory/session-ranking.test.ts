import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { NO_SESSION_WINDOW } from '../../src/memory/neighbours.js';
import {
  liftBySession,
  placeOf,
  SESSION_LIFT,
  SPREAD_COST,
  sameSession,
  spreadOverSessions,
} from '../../src/memory/session-ranking.js';
import { topN } from '../../src/search/ranking.js';
import { type MemoryRecord, newMemoryRecord } from '../../src/storage/records.js';
import { T0 } from '../support.js';

const DAY = 86_400;

/** Row i is a memory saved at `days[i]` days after T0, with no source nor context. */
const recordsAt = (days: readonly number[]): MemoryRecord[] =>
  days.map((d, i) => newMemoryRecord(`m${i}`, `memory ${i}`, T0 + d * DAY));

const order = (ranks: Float64Array, n = ranks.length) => topN(ranks, n).map((r) => r.index);

describe('sessions in a search', () => {
  it('are the neighbours: one source and context, or neither and saved within hours', () => {
    const [a, b] = recordsAt([0, 0]) as [MemoryRecord, MemoryRecord];
    assert.ok(sameSession(a, b));
    assert.ok(!sameSession(a, { ...b, created_at: a.created_at + NO_SESSION_WINDOW }));
    const chat = (r: MemoryRecord, context: string): MemoryRecord => ({
      ...r,
      meta: { ...r.meta, source: 'chat', context },
    });
    assert.ok(sameSession(chat(a, 'x'), { ...chat(b, 'x'), created_at: a.created_at + 90 * DAY }));
    assert.ok(!sameSession(chat(a, 'x'), chat(b, 'y')));
    assert.ok(!sameSession(chat(a, 'x'), b));
  });

  it('lift a match whose session holds another strong match over one alone in its own', () => {
    // Rows 0 and 1 match alike; row 1's session (day 5) also holds row 2, as strong as the best.
    const records = recordsAt([0, 5, 5, 9]);
    const ranks = Float64Array.from([0.8, 0.79, 1, 0.1]);
    liftBySession(ranks, (i) => placeOf(records[i] as MemoryRecord));
    assert.deepEqual(order(ranks), [2, 1, 0, 3]);
    assert.equal(ranks[0], 0.8);
    assert.ok(Math.abs((ranks[1] as number) - 0.79 * (1 + SESSION_LIFT)) < 1e-12);
    assert.equal(ranks[3], 0.1);
  });

  it('spread the first results over sessions when another session matches nearly as well', () => {
    // Day 0 holds the three best; day 3's match is within SPREAD_COST of the third.
    const records = recordsAt([0, 0, 0, 3, 7]);
    const ranks = Float64Array.from([1, 0.99, 0.98, 0.95, 0.5]);
    spreadOverSessions(ranks, (i) => placeOf(records[i] as MemoryRecord));
    assert.deepEqual(order(ranks), [0, 3, 1, 2, 4]);
    // The pool's rank values are given out again: the same values, in the new order.
    assert.deepEqual(
      [...ranks].sort((x, y) => y - x),
      [1, 0.99, 0.98, 0.95, 0.5],
    );
    // A match far below (more than SPREAD_COST) is not brought up.
    const far = Float64Array.from([1, 0.99, 0.98, 0.98 * (1 - SPREAD_COST) - 0.01, 0.5]);
    spreadOverSessions(far, (i) => placeOf(records[i] as MemoryRecord));
    assert.deepEqual(order(far).slice(0, 3), [0, 1, 2]);
  });

  it('property: one session moves nothing; the spread only reorders the best, keeping their values', () => {
    fc.assert(
      fc.property(
        // Ranks on a grid of a millionth: equal or far apart. Two ranks one float step apart can
        // swap under any lift (x * (1 + a) and y * (1 + b) round), which orders nothing a search
        // tells apart: found as a flake (0.999999999999999 and 0.9999999999999991).
        fc.array(
          fc.record({
            rank: fc.integer({ min: 0, max: 1_000_000 }).map((n) => n / 1_000_000),
            day: fc.nat(4),
          }),
          { maxLength: 60 },
        ),
        fc.boolean(),
        (rows, oneSession) => {
          const records = recordsAt(rows.map((r) => (oneSession ? 0 : r.day)));
          const ranks = Float64Array.from(rows, (r) => r.rank);
          const before = Float64Array.from(ranks);
          spreadOverSessions(ranks, (i) => placeOf(records[i] as MemoryRecord));
          if (oneSession) assert.deepEqual(order(ranks), order(before));
          if (oneSession) {
            const lifted = Float64Array.from(before);
            liftBySession(lifted, (i) => placeOf(records[i] as MemoryRecord));
            assert.deepEqual(order(lifted), order(before));
          }
          // Every row is still there once, and the best 15 are the same rows as before.
          assert.deepEqual(new Set(order(ranks, 15)), new Set(order(before, 15)));
          const after = [...ranks].sort((x, y) => x - y);
          const was = [...before].sort((x, y) => x - y);
          after.forEach((x, i) => {
            assert.ok(Math.abs(x - (was[i] as number)) <= 1e-12);
          });
        },
      ),
    );
  });
});
