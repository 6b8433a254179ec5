import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type DecayParams, decayScore, shouldForget } from '../../src/decay/index.js';
import { scoreCurve } from '../../src/ui/curve.js';
import { DAY, T0 } from '../support.js';

const decay: DecayParams = { model: 'power_law', halfLifeDays: 3, beta: 0.6 };
const settings = {
  decay,
  dangerZone: { min: 0.15, max: 0.35 },
  forgetThreshold: 0.05,
  promoteThreshold: 0.65,
};

describe('scoreCurve', () => {
  const memory = { created_at: T0 - 10 * DAY, last_used: T0 - 2 * DAY, use_count: 3, strength: 1 };
  const curve = scoreCurve(memory, T0, settings);

  it('meets the score of today at now, and projects 90 days of decay without use', () => {
    const at = curve.t.indexOf(T0);
    assert.ok(at > 0);
    const today = decayScore(memory, T0, decay);
    assert.ok(Math.abs((curve.past[at] as number) - today) < 1e-9);
    assert.ok(Math.abs((curve.future[at] as number) - today) < 1e-9);
    assert.equal(curve.t.at(-1), T0 + 90 * DAY);
    const future = curve.future.filter((v): v is number => v !== null);
    assert.ok(
      future.every((v, i) => i === 0 || v <= (future[i - 1] as number)),
      'never rises',
    );
    assert.ok(
      Math.abs((future.at(-1) as number) - decayScore(memory, T0 + 90 * DAY, decay)) < 1e-9,
    );
  });

  it('rises at each use, spread from creation to the last use (the record keeps no more)', () => {
    assert.equal(curve.uses.length, 3);
    assert.equal(curve.uses.at(-1), memory.last_used);
    assert.equal(curve.usesSpread, true);
    for (const use of curve.uses) {
      const i = curve.t.indexOf(use);
      assert.ok((curve.past[i] as number) > (curve.past[i - 1] as number), `a rise at ${use}`);
    }
    assert.equal(curve.past[0], 1, 'a new memory scores 1');
  });

  it('says when the forget line is crossed, as gc would judge it', () => {
    const fading = {
      created_at: T0 - 20 * DAY,
      last_used: T0 - 20 * DAY,
      use_count: 0,
      strength: 1,
    };
    const at = scoreCurve(fading, T0, settings).forgetAt as number;
    assert.ok(at > T0 && at <= T0 + 90 * DAY);
    assert.equal(shouldForget(decayScore(fading, at, decay), 'active', 0.05), true);
    assert.equal(shouldForget(decayScore(fading, at - 120, decay), 'active', 0.05), false);
    const fresh = { ...memory, last_used: T0, use_count: 40, strength: 2 };
    assert.equal(scoreCurve(fresh, T0, settings).forgetAt, null);
  });
});
