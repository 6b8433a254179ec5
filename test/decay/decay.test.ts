import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  DAY,
  type DangerZone,
  DECAY_MODELS,
  type DecayModel,
  type DecayParams,
  decayCurve,
  decayScore,
  isCrossDomain,
  MAX_STRENGTH,
  type MemoryDynamics,
  type PromotionParams,
  promotionRule,
  promotionVerdict,
  reinforce,
  reviewPriority,
  shouldForget,
} from '../../src/decay/index.js';

const NOW = 1_796_115_600; // 2026-12-01T09:00:00Z
const HOUR = 3600;
const ZONE: DangerZone = { min: 0.15, max: 0.35 };
const PROMOTION: PromotionParams = { threshold: 0.65, minUses: 2, useCount: 5, windowDays: 14 };

const params = (model: DecayModel, halfLifeDays = 3, beta = 0.6): DecayParams => ({
  model,
  halfLifeDays,
  beta,
});

/** A memory last used `dt` seconds before NOW. */
const memory = (dt: number, overrides: Partial<MemoryDynamics> = {}): MemoryDynamics => ({
  created_at: NOW - dt,
  last_used: NOW - dt,
  use_count: 0,
  strength: 1,
  ...overrides,
});

const close = (actual: number, expected: number, tolerance = 1e-9) =>
  assert.ok(
    Math.abs(actual - expected) <= tolerance,
    `expected ${expected}, got ${actual} (tolerance ${tolerance})`,
  );

const model = fc.constantFrom(...DECAY_MODELS);
const halfLifeDays = fc.double({ min: 0.05, max: 3650, noNaN: true });
const beta = fc.double({ min: 0, max: 2, noNaN: true });

describe('decayScore', () => {
  it('is (use_count + 1)^beta * strength for a memory used just now', () => {
    for (const m of DECAY_MODELS) {
      close(decayScore(memory(0, { use_count: 3, strength: 1.5 }), NOW, params(m)), 4 ** 0.6 * 1.5);
    }
  });

  for (const m of DECAY_MODELS) {
    it(`falls as time passes (${m})`, () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 365 * DAY }),
          fc.integer({ min: 1, max: 30 * DAY }),
          fc.double({ min: 0.5, max: 30, noNaN: true }),
          fc.integer({ min: 0, max: 50 }),
          fc.double({ min: 1, max: 2, noNaN: true }),
          (dt, later, h, uses, strength) => {
            const p = params(m, h);
            const earlier = decayScore(memory(dt, { use_count: uses, strength }), NOW, p);
            const after = decayScore(memory(dt, { use_count: uses, strength }), NOW + later, p);
            assert.ok(after < earlier, `${after} should be below ${earlier}`);
          },
        ),
      );
    });
  }

  for (const m of ['exponential', 'power_law'] as const) {
    it(`halves at the half-life for a fresh unused memory, any half-life (${m})`, () => {
      fc.assert(
        fc.property(halfLifeDays, beta, (h, b) => {
          const score = decayScore(memory(h * DAY), NOW, params(m, h, b));
          close(score, 0.5);
        }),
      );
    });
  }

  it('treats a last_used in the future as just used', () => {
    for (const m of DECAY_MODELS) {
      assert.equal(decayCurve(params(m))(-DAY), 1);
    }
  });

  it('two_component is 0.7 * fast(12 h) + 0.3 * slow(7 d)', () => {
    const twoComponent = (dt: number) =>
      0.7 * Math.exp((-Math.LN2 / (12 * HOUR)) * dt) + 0.3 * Math.exp((-Math.LN2 / (7 * DAY)) * dt);
    close(decayCurve(params('two_component'))(12 * HOUR), 0.7 * 0.5 + 0.3 * 2 ** (-1 / 14));
    close(decayCurve(params('two_component'))(7 * DAY), 0.7 * 2 ** -14 + 0.3 * 0.5);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 * DAY }), halfLifeDays, (dt, h) => {
        // Its half-lives are fixed, whatever MNEMO_HALFLIFE_DAYS says.
        close(decayCurve(params('two_component', h))(dt), twoComponent(dt));
      }),
    );
  });

  it('uses a different curve for each model', () => {
    for (const dt of [HOUR, DAY, 10 * DAY, 30 * DAY]) {
      const values = DECAY_MODELS.map((m) => decayScore(memory(dt), NOW, params(m)));
      const [powerLaw, exponential, twoComponent] = values as [number, number, number];
      assert.ok(Math.abs(powerLaw - exponential) > 1e-3, `power_law vs exponential at ${dt}`);
      assert.ok(Math.abs(powerLaw - twoComponent) > 1e-3, `power_law vs two_component at ${dt}`);
      assert.ok(
        Math.abs(exponential - twoComponent) > 1e-3,
        `exponential vs two_component at ${dt}`,
      );
    }
    // The power law keeps a long tail; the exponential does not.
    assert.ok(
      decayCurve(params('power_law'))(30 * DAY) > 50 * decayCurve(params('exponential'))(30 * DAY),
    );
  });

  it('rises with use_count', () => {
    fc.assert(
      fc.property(
        model,
        fc.integer({ min: 0, max: 30 * DAY }),
        fc.integer({ min: 0, max: 1000 }),
        fc.double({ min: 0.1, max: 2, noNaN: true }),
        (m, dt, uses, b) => {
          const p = params(m, 3, b);
          const less = decayScore(memory(dt, { use_count: uses }), NOW, p);
          const more = decayScore(memory(dt, { use_count: uses + 1 }), NOW, p);
          assert.ok(more > less, `${more} should be above ${less}`);
        },
      ),
    );
  });

  it('rises with strength', () => {
    fc.assert(
      fc.property(
        model,
        fc.integer({ min: 0, max: 30 * DAY }),
        fc.double({ min: 1, max: 1.9, noNaN: true }),
        fc.double({ min: 0.01, max: 0.1, noNaN: true }),
        (m, dt, strength, step) => {
          const p = params(m);
          const weak = decayScore(memory(dt, { strength }), NOW, p);
          const strong = decayScore(memory(dt, { strength: strength + step }), NOW, p);
          assert.ok(strong > weak, `${strong} should be above ${weak}`);
        },
      ),
    );
  });
});

describe('reviewPriority', () => {
  it('is 0 outside the danger zone', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double({ min: -10, max: ZONE.min, maxExcluded: true, noNaN: true }),
          fc.double({ min: ZONE.max, max: 10, minExcluded: true, noNaN: true }),
        ),
        (score) => assert.equal(reviewPriority(score, ZONE), 0),
      ),
    );
  });

  it('peaks at 1 in the middle of the zone and is 0 at its edges', () => {
    close(reviewPriority(0.25, ZONE), 1);
    close(reviewPriority(ZONE.min, ZONE), 0);
    close(reviewPriority(ZONE.max, ZONE), 0);
    // x = 0.25 of the way in: 1 - 4 * 0.25^2
    close(reviewPriority(0.2, ZONE), 0.75);
  });

  it('is symmetric about the middle and between 0 and 1 inside', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 0.9, noNaN: true }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (min, width, at) => {
          const zone = { min, max: min + width };
          const mid = min + width / 2;
          const d = (at * width) / 2;
          const below = reviewPriority(mid - d, zone);
          const above = reviewPriority(mid + d, zone);
          close(below, above);
          assert.ok(below >= -1e-12 && below <= 1, `priority ${below} out of [0, 1]`);
          assert.ok(reviewPriority(mid, zone) >= below);
        },
      ),
    );
  });

  it('is 0 for an empty zone', () => {
    assert.equal(reviewPriority(0.2, { min: 0.2, max: 0.2 }), 0);
  });
});

describe('isCrossDomain', () => {
  it('is true when the tags barely overlap', () => {
    assert.equal(isCrossDomain(['cooking', 'recipes'], ['kubernetes']), true);
    // 2 shared of 11: Jaccard 0.18
    assert.equal(
      isCrossDomain(['a', 'b', 'c', 'd', 'e', 'f'], ['a', 'b', 'g', 'h', 'i', 'j', 'k']),
      true,
    );
  });

  it('is false at or above a Jaccard of 0.3', () => {
    assert.equal(isCrossDomain(['work', 'ralph'], ['work', 'ralph']), false);
    assert.equal(isCrossDomain(['Work'], ['work']), false);
    // 3 shared of 10: exactly 0.3, not below it
    assert.equal(
      isCrossDomain(['a', 'b', 'c', 'd', 'e', 'f'], ['a', 'b', 'c', 'g', 'h', 'i', 'j']),
      false,
    );
  });

  it('is false when either side has no tags', () => {
    assert.equal(isCrossDomain([], ['kubernetes']), false);
    assert.equal(isCrossDomain(['cooking'], []), false);
    assert.equal(isCrossDomain([], []), false);
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1 })), (tags) => {
        assert.equal(isCrossDomain(tags, []), false);
        assert.equal(isCrossDomain([], tags), false);
      }),
    );
  });
});

describe('reinforce', () => {
  const used = (overrides: Partial<MemoryDynamics> = {}) => ({
    ...memory(2 * DAY, { use_count: 3, strength: 1.2 }),
    review_count: 4,
    cross_domain_count: 1,
    ...overrides,
  });

  it('touch sets last_used = now and use_count + 1, and leaves strength and reviews', () => {
    const next = reinforce(used(), NOW, { kind: 'touch' }, params('power_law'), ZONE);
    assert.equal(next.last_used, NOW);
    assert.equal(next.use_count, 4);
    assert.equal(next.strength, 1.2);
    assert.equal(next.review_count, undefined);
    assert.equal(next.last_review_at, undefined);
    assert.equal(next.cross_domain_count, undefined);
  });

  it('observe also counts a review at now', () => {
    const next = reinforce(used(), NOW, { kind: 'observe' }, params('power_law'), ZONE);
    assert.equal(next.last_used, NOW);
    assert.equal(next.use_count, 4);
    assert.equal(next.review_count, 5);
    assert.equal(next.last_review_at, NOW);
    assert.equal(next.strength, 1.2);
    assert.equal(next.cross_domain_count, undefined);
  });

  it('observe counts the first review of a record without review_count', () => {
    const next = reinforce(memory(DAY), NOW, { kind: 'observe' }, params('power_law'), ZONE);
    assert.equal(next.review_count, 1);
  });

  it('a cross-domain use adds cross_domain_count + 1 and strength + 0.1', () => {
    const next = reinforce(
      used(),
      NOW,
      { kind: 'observe', crossDomain: true },
      params('power_law'),
      ZONE,
    );
    assert.equal(next.cross_domain_count, 2);
    close(next.strength, 1.3);
    assert.equal(next.use_count, 4);
    assert.equal(next.review_count, 5);
  });

  it('boost_strength adds 0.1 strength without counting a cross-domain use', () => {
    const next = reinforce(
      used(),
      NOW,
      { kind: 'touch', boostStrength: true },
      params('power_law'),
      ZONE,
    );
    close(next.strength, 1.3);
    assert.equal(next.cross_domain_count, undefined);
  });

  it('a strength set under 1 (cortexgraph allows it) stays, and a boost adds 0.1 to it', () => {
    const weak = used({ strength: 0.8 });
    const p = params('power_law');
    assert.equal(reinforce(weak, NOW, { kind: 'touch' }, p, ZONE).strength, 0.8);
    assert.equal(reinforce(weak, NOW, { kind: 'observe' }, p, ZONE).strength, 0.8);
    const boosted = reinforce(weak, NOW, { kind: 'touch', boostStrength: true }, p, ZONE);
    assert.equal(boosted.strength, 0.9);
    const near = reinforce(
      used({ strength: 1.95 }),
      NOW,
      { kind: 'touch', boostStrength: true },
      p,
      ZONE,
    );
    assert.equal(near.strength, MAX_STRENGTH);
  });

  it('keeps the review priority of the reinforced memory', () => {
    const p = params('exponential', 3, 0);
    // Just used, strength 1.2, beta 0: the new score is 1.2, far above the zone.
    assert.equal(reinforce(used(), NOW, { kind: 'touch' }, p, ZONE).review_priority, 0);
    // In a zone centred on 1.2 it sits at the peak.
    const zone = { min: 1.1, max: 1.3 };
    close(reinforce(used(), NOW, { kind: 'touch' }, p, zone).review_priority, 1);
  });

  it('never lets strength pass 2.0, however many cross-domain uses', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 2, noNaN: true }),
        fc.array(fc.record({ crossDomain: fc.boolean(), boostStrength: fc.boolean() }), {
          minLength: 1,
          maxLength: 60,
        }),
        model,
        (start, uses, m) => {
          let state = {
            ...memory(DAY, { strength: start }),
            review_count: 0,
            cross_domain_count: 0,
          };
          let t = NOW;
          for (const use of uses) {
            t += HOUR;
            const before = state.strength;
            const next = reinforce(state, t, { kind: 'observe', ...use }, params(m), ZONE);
            assert.ok(next.strength <= MAX_STRENGTH, `strength ${next.strength} above 2`);
            assert.ok(next.strength >= before, 'strength never falls on use');
            state = { ...state, ...next };
          }
          const boosts = uses.filter((u) => u.crossDomain || u.boostStrength).length;
          if (boosts >= 10) assert.equal(state.strength, MAX_STRENGTH);
        },
      ),
    );
  });
});

describe('shouldForget', () => {
  it('forgets only active memories below the threshold', () => {
    assert.equal(shouldForget(0.049, 'active', 0.05), true);
    assert.equal(shouldForget(0.05, 'active', 0.05), false);
    assert.equal(shouldForget(0.9, 'active', 0.05), false);
    assert.equal(shouldForget(0.001, 'promoted', 0.05), false);
    assert.equal(shouldForget(0.001, 'archived', 0.05), false);
  });
});

describe('promotionVerdict', () => {
  it('never promotes a memory that was saved and never used, whatever its score or age', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.integer({ min: 0, max: 3650 * DAY }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 10 }),
        fc.double({ min: 0, max: 365, noNaN: true }),
        (score, age, minUses, useCount, windowDays) => {
          const fresh = memory(age);
          const p = { threshold: PROMOTION.threshold, minUses, useCount, windowDays };
          assert.equal(promotionVerdict(fresh, score, NOW, p).eligible, false);
          assert.equal(promotionVerdict(fresh, score, NOW, PROMOTION).eligible, false);
        },
      ),
    );
  });

  it('promotes on a high score with enough uses', () => {
    const m = memory(30 * DAY, { use_count: 2 });
    const verdict = promotionVerdict(m, 0.65, NOW, PROMOTION);
    assert.equal(verdict.eligible, true);
    assert.match(verdict.reason, /score/);
    assert.equal(promotionVerdict(m, 0.649, NOW, PROMOTION).eligible, false);
    assert.equal(
      promotionVerdict(memory(30 * DAY, { use_count: 1 }), 5, NOW, PROMOTION).eligible,
      false,
    );
  });

  it('promotionRule names the rule of every eligible verdict and none of the others', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 2, noNaN: true }),
        fc.integer({ min: 0, max: 60 * DAY }),
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 10 }),
        fc.double({ min: 0, max: 60, noNaN: true }),
        (score, age, uses, minUses, useCount, windowDays) => {
          const m = memory(age, { use_count: uses });
          const p = { threshold: PROMOTION.threshold, minUses, useCount, windowDays };
          const verdict = promotionVerdict(m, score, NOW, p);
          const rule = promotionRule(m, score, NOW, p);
          assert.equal(rule !== null, verdict.eligible);
          if (rule === 'score') assert.match(verdict.reason, /^score .* >= /);
          if (rule === 'uses') assert.match(verdict.reason, /within/);
        },
      ),
    );
  });

  it('promotes on many uses within the window of creation, whatever the score', () => {
    const within = memory(14 * DAY, { use_count: 5 });
    const verdict = promotionVerdict(within, 0.01, NOW, PROMOTION);
    assert.equal(verdict.eligible, true);
    assert.match(verdict.reason, /5 uses/);
    assert.equal(promotionVerdict(within, 0.01, NOW + 1, PROMOTION).eligible, false);
    assert.equal(
      promotionVerdict(memory(DAY, { use_count: 4 }), 0.01, NOW, PROMOTION).eligible,
      false,
    );
  });
});
