// Strings in a sidecar's columns (ids): packed a slice at a time, read back the same.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { packOnto, packStrings, unpackStrings } from '../../src/storage/sidecar.js';

describe('strings packed a slice at a time', () => {
  it('read back as they were, ASCII or not, in slices of any size or whole (property)', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.uuid());
    fc.assert(
      fc.property(fc.array(fc.array(text, { maxLength: 8 }), { maxLength: 8 }), (slices) => {
        const ends: number[] = [];
        const chunks: Buffer[] = [];
        let bytes = 0;
        for (const slice of slices) {
          const chunk = packOnto(slice, ends, bytes);
          bytes += chunk.length;
          chunks.push(chunk);
        }
        assert.equal(ends.length, slices.flat().length);
        const read = unpackStrings(Buffer.concat(chunks), Int32Array.from(ends));
        assert.deepEqual(read, slices.flat());
        // Packed whole, the same bytes and ends.
        const whole = packStrings(slices.flat());
        assert.deepEqual(Buffer.from(whole.bytes), Buffer.concat(chunks));
        assert.deepEqual(whole.ends, Int32Array.from(ends));
      }),
    );
  });
});
