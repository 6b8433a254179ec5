import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { annKey, coverage, KeyTable, PackedKeys } from '../../src/search/ann-keys.js';

describe('PackedKeys', () => {
  it('property: a key written is the u64 usearch reads, and reads back the same', () => {
    fc.assert(
      fc.property(
        fc.array(fc.maxSafeNat(), { minLength: 1, maxLength: 20 }),
        fc.nat({ max: 3 }),
        (keys, offset) => {
          const packed = new PackedKeys(keys.length + offset);
          for (const [i, key] of keys.entries()) packed.set(i + offset, key);
          keys.forEach((key, i) => {
            assert.equal(packed.words[i + offset], BigInt(key));
            assert.equal(packed.get(i + offset), key);
          });
          // Read from a view that starts inside another buffer, as usearch's answers may.
          const view = new PackedKeys(packed.words.subarray(offset));
          for (const [i, key] of keys.entries()) assert.equal(view.get(i), key);
        },
      ),
    );
  });

  it('reads the keys annKey makes', () => {
    const key = annKey('model:1', 'memory-id', 'hash');
    const packed = new PackedKeys(BigUint64Array.of(BigInt(key)));
    assert.equal(packed.get(0), key);
  });
});

describe('coverage', () => {
  it('tables the ids the graph holds, lists the others, and skips those without a key', async () => {
    const ids = Array.from({ length: 120_001 }, (_, i) => `m${i}`);
    const keyOf = (id: string) => (id === 'm7' ? undefined : Number(id.slice(1)) * 3 + 1);
    // The graph holds every key but those of ids divisible by 1,000.
    const asked: number[] = [];
    const graph = {
      size: ids.length,
      contains: async (keys: BigUint64Array) => {
        asked.push(keys.length);
        return Uint8Array.from(keys, (k) => (((Number(k) - 1) / 3) % 1000 === 0 ? 0 : 1));
      },
    };
    const covered = await coverage(graph, ids, keyOf, () => false);
    assert.ok(covered);
    assert.deepEqual(asked, [49_999, 50_000, 20_001], 'a chunk a question, m7 left out');
    const { table, uncovered } = covered;
    assert.ok(table instanceof KeyTable);
    assert.equal(table.size, 120_001 - 1 - 121);
    assert.equal(table.get(keyOf('m1') as number), 'm1');
    assert.equal(table.get(keyOf('m2000') as number), undefined);
    assert.equal(uncovered.size, 121);
    assert.ok(uncovered.has('m0') && uncovered.has('m120000') && !uncovered.has('m7'));
    let calls = 0;
    const stopped = await coverage(graph, ids, keyOf, () => ++calls > 1);
    assert.equal(stopped, undefined, 'stopped between two questions');
  });
});
