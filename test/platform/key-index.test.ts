import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { KeyIndex, numberHash, stringHash } from '../../src/platform/key-index.js';

/** A KeyIndex over an owner's array, as MemoryTable and Bm25Index keep theirs. */
function owned() {
  const keys: (string | undefined)[] = [];
  const index = new KeyIndex<string>(stringHash, (v) => keys[v]);
  return { keys, index };
}

describe('KeyIndex', () => {
  it('answers as a Map through sets, deletes and growth (against a Map, random operations)', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key: fc.string({ maxLength: 3 }) }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.string({ maxLength: 3 }) }),
      fc.record({ kind: fc.constant('rebuild' as const), key: fc.constant('') }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 3000 }), (ops) => {
        const { keys, index } = owned();
        const map = new Map<string, number>();
        for (const { kind, key } of ops) {
          if (kind === 'set') {
            const at = map.get(key);
            if (at === undefined) {
              keys.push(key);
              map.set(key, keys.length - 1);
              index.set(key, keys.length - 1);
            }
          } else if (kind === 'delete') {
            const at = map.get(key);
            assert.equal(index.delete(key), at !== undefined);
            if (at !== undefined) {
              map.delete(key);
              keys[at] = undefined;
            }
          } else {
            index.rebuild(keys.length);
          }
          assert.equal(index.size, map.size);
        }
        for (const [key, value] of map) assert.equal(index.get(key), value);
        for (const key of ['a', 'b', '', 'zz']) assert.equal(index.get(key), map.get(key));
      }),
      { numRuns: 60 },
    );
  });

  it('deletes a key only when it points at the value given', () => {
    const hashes = [7, 7 + 2 ** 40];
    const index = new KeyIndex<number>(numberHash, (v) => hashes[v]);
    index.set(7, 0);
    assert.equal(index.delete(7, 1), false, 'it points at 0');
    assert.equal(index.delete(7, 0), true);
    assert.equal(index.get(7), undefined);
    index.set(7 + 2 ** 40, 1);
    assert.equal(index.get(7 + 2 ** 40), 1, 'numbers above 2^32 are keys of their own');
    assert.equal(index.get(7), undefined);
  });

  it('reads a key of the owner only where the hashes agree, and never to grow', () => {
    const keys: string[] = [];
    let reads = 0;
    const index = new KeyIndex<string>(stringHash, (v) => {
      reads++;
      return keys[v];
    });
    for (let i = 0; i < 20_000; i++) {
      keys.push(`memory-${i}`);
      index.set(keys[i] as string, i);
    }
    assert.equal(index.size, 20_000);
    assert.equal(reads, 0, 'new keys go in, and the table grows, by the hashes it keeps');
    assert.equal(index.get('memory-19999'), 19_999);
    assert.equal(reads, 1, 'a lookup reads the key it finds, and no other');
    assert.equal(index.get('memory-20000'), undefined);
    assert.equal(reads, 1);
  });

  it('holds a million keys', () => {
    const { keys, index } = owned();
    for (let i = 0; i < 1_000_000; i++) keys.push(`id-${i}`);
    index.rebuild(keys.length);
    assert.equal(index.size, 1_000_000);
    assert.equal(index.get('id-999999'), 999_999);
    assert.equal(index.get('id-1000000'), undefined);
  });
});
