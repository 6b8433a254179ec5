// Strings in a sidecar's columns (ids): packed one at a time, read back the same.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { packStrings, StringPacker, unpackStrings } from '../../src/storage/sidecar.js';

describe('strings packed one at a time', () => {
  it('read back as they were, ASCII or not, however small the buffer begun with (property)', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.uuid());
    fc.assert(
      fc.property(fc.array(text, { maxLength: 40 }), fc.nat({ max: 40 }), (strings, each) => {
        // Begun with room for a few short strings at most: it grows as a take's imported ids make it.
        const packer = new StringPacker(2, each);
        const ends = Int32Array.from(strings.map((s) => packer.add(s)));
        assert.deepEqual(unpackStrings(packer.bytes(), ends), strings);
        // Packed whole, the same bytes and ends: each string's UTF-8, one after the other.
        const whole = packStrings(strings);
        assert.deepEqual(Buffer.from(whole.bytes), packer.bytes());
        assert.deepEqual(whole.ends, ends);
        assert.deepEqual(
          packer.bytes(),
          Buffer.concat(strings.map((s) => Buffer.from(s))),
          'the bytes of each string in turn',
        );
      }),
    );
  });
});
