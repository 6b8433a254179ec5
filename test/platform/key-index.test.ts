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

  it('takes back buckets it gave, hashing no key, and answers as the table they came from', () => {
    const keys: (string | undefined)[] = [];
    let hashed = 0;
    const hash = (key: string) => {
      hashed++;
      return stringHash(key);
    };
    const from = new KeyIndex<string>(hash, (v) => keys[v]);
    for (let i = 0; i < 5000; i++) {
      keys.push(`memory-${i}`);
      from.set(keys[i] as string, i);
    }
    from.delete('memory-7');
    keys[7] = undefined;
    const to = new KeyIndex<string>(hash, (v) => keys[v]);
    hashed = 0;
    assert.equal(to.adopt(from.buckets(), keys.length, 4999), true);
    assert.equal(hashed, 0, 'no key hashed');
    assert.equal(to.size, 4999);
    for (let i = 0; i < 5000; i++) assert.equal(to.get(`memory-${i}`), i === 7 ? undefined : i);
    // And it goes on as its own: new keys, deletions.
    keys.push('memory-5000');
    to.set('memory-5000', 5000);
    assert.equal(to.get('memory-5000'), 5000);
    assert.equal(to.delete('memory-4999'), true);
    assert.equal(to.get('memory-4999'), undefined);
  });

  it('refuses buckets that cannot be a table of its keys, and never answers a wrong value from any it takes (fuzz)', () => {
    const keys = Array.from({ length: 3000 }, (_, i) => `memory-${i}`);
    const from = new KeyIndex<string>(stringHash, (v) => keys[v]);
    for (let i = 0; i < keys.length; i++) from.set(keys[i] as string, i);
    const good = from.buckets();
    const index = () => new KeyIndex<string>(stringHash, (v) => keys[v]);
    // Each way a table can be wrong, one at a time.
    const wrong: [string, (b: Int32Array) => Int32Array][] = [
      ['odd length', (b) => b.subarray(0, b.length - 1)],
      ['too few buckets', (b) => b.subarray(0, 1000)],
      ['a value past the keys', (b) => b.map((x, j) => (j === b.indexOf(5) ? 3001 : x))],
      ['a value twice', (b) => b.map((x, j) => (j === b.indexOf(5) ? 6 : x))],
      ['fuller than it grows to', (b) => b.map((x, j) => (j % 2 === 0 && x === 0 ? -1 : x))],
    ];
    for (const [why, spoil] of wrong) {
      assert.equal(index().adopt(spoil(good.slice()), keys.length), false, why);
    }
    assert.equal(index().adopt(good.slice(), keys.length, 2999), false, 'a key missing');
    const gone: (string | undefined)[] = keys.slice();
    gone[5] = undefined;
    const owner = new KeyIndex<string>(stringHash, (v) => gone[v]);
    assert.equal(owner.adopt(good.slice(), keys.length), false, 'a value without its key');
    // Any bytes at all: refused, or taken, and then a lookup answers the key's own value or none.
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: good.length - 1 }), fc.integer()), { maxLength: 40 }),
        (changes) => {
          const buckets = good.slice();
          for (const [at, value] of changes) buckets[at] = value;
          const taken = index();
          if (!taken.adopt(buckets, keys.length)) return;
          for (let i = 0; i < keys.length; i += 7) {
            const found = taken.get(keys[i] as string);
            assert.ok(found === undefined || found === i, `memory-${i}: ${found}`);
          }
          assert.equal(taken.get('not-a-key'), undefined);
        },
      ),
      { numRuns: 200 },
    );
  });
});
