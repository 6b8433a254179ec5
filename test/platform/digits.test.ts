import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { groupDigits } from '../../src/platform/digits.js';

describe('groupDigits', () => {
  it('writes a whole number as toLocaleString("en-US") does', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.integer({ min: -1e6, max: 1e6 })),
        (n) => {
          assert.equal(groupDigits(n), n.toLocaleString('en-US'));
        },
      ),
    );
    for (const n of [0, -0, 999, 1000, 50_000, 1_000_000, Number.MAX_SAFE_INTEGER, 1.5, 1e21]) {
      assert.equal(groupDigits(n), n.toLocaleString('en-US'), String(n));
    }
  });
});
