import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { LAG_WINDOW, ReplicationLag } from '../../src/storage/postgres/lag.js';

describe('ReplicationLag', () => {
  it('says nothing before a change was applied', () => {
    assert.equal(new ReplicationLag().summary(), null);
  });

  it('gives nearest-rank percentiles of the changes applied, in whole ms', () => {
    const lag = new ReplicationLag();
    const now = 1_000_000;
    // 100 changes written 1..100 ms before they were applied.
    lag.applied(
      Array.from({ length: 100 }, (_, i) => now - (i + 1)),
      now,
    );
    assert.deepEqual(lag.summary(), { p50_ms: 50, p99_ms: 99 });
  });

  it('keeps only the last LAG_WINDOW changes', () => {
    const lag = new ReplicationLag();
    lag.applied(Array(LAG_WINDOW).fill(0), 5_000);
    lag.applied(Array(LAG_WINDOW).fill(4_990), 5_000);
    assert.deepEqual(lag.summary(), { p50_ms: 10, p99_ms: 10 });
  });

  it('reads a database clock ahead of this one as no lag, never a negative one', () => {
    const lag = new ReplicationLag();
    lag.applied([2_000, 1_500], 1_000);
    assert.deepEqual(lag.summary(), { p50_ms: 0, p99_ms: 0 });
  });

  it('p50 <= p99, both among the lags of the window (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 100_000 }), { minLength: 1, maxLength: 3000 }), (lags) => {
        const lag = new ReplicationLag();
        const now = 1e12;
        lag.applied(
          lags.map((l) => now - l),
          now,
        );
        const summary = lag.summary();
        assert.ok(summary);
        const kept = new Set(lags.slice(-LAG_WINDOW));
        assert.ok(summary.p50_ms <= summary.p99_ms);
        assert.ok(kept.has(summary.p50_ms) && kept.has(summary.p99_ms));
      }),
    );
  });
});
