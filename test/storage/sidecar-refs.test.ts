// The default namespace's table of id to slot, kept in the sidecar by key and read back by slot.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { bucketsByKey, bucketsBySlot, picksOf } from '../../src/storage/jsonl/sidecar-refs.js';
import { MemoryTable } from '../../src/storage/memory-table.js';

describe("the sidecar's table of id to slot", () => {
  it('read back by slot, is the table of the memories as they are put again (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.uuid(), { minLength: 1, maxLength: 300 }),
        fc.nat({ max: 50 }),
        fc.nat({ max: 20 }),
        (ids, before, deleted) => {
          // As a take finds them: another namespace's memories first, some of these deleted.
          const table = new MemoryTable();
          ids.forEach((id, i) => {
            table.setRef(id, i * 100, 99, 0);
          });
          const gone = ids.slice(0, Math.min(deleted, ids.length - 1));
          for (const id of gone) table.delete(id);
          const keys = new Int32Array(table.slots);
          let key = before;
          const order: string[] = [];
          table.everyRef((id, _o, _l, _s, slot) => {
            keys[slot] = key++;
            order.push(id);
          });
          const kept = bucketsByKey(table.slotBuckets(), keys);
          // Read back: the columns list `before` others, then these, in the order taken.
          const all = [...Array.from({ length: before }, (_, i) => `other-${i}`), ...order];
          const pick = order.map((_, i) => before + i);
          const again = new MemoryTable();
          const buckets = bucketsBySlot(kept, pick, all.length);
          assert.ok(buckets, 'every key is of this namespace');
          const offsets = Float64Array.from(all, (_, i) => i * 100);
          again.restoreRefs(
            all,
            pick,
            offsets,
            new Int32Array(all.length).fill(99),
            new Uint8Array(all.length),
            buckets,
          );
          assert.deepEqual(again.slotBuckets(), buckets, 'taken back as kept, not built again');
          for (const id of order) assert.equal(again.has(id), true);
          for (const id of gone) assert.equal(again.has(id), false);
          assert.equal(again.size, order.length);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a key of another namespace, or past the columns: none, and the table is built again', () => {
    const buckets = new Int32Array(2048);
    buckets[10] = 3; // key 2
    assert.equal(bucketsBySlot(buckets.slice(), [0, 1], 5), undefined, 'key 2 is not picked');
    assert.equal(bucketsBySlot(buckets.slice(), [0, 1, 2], 2), undefined, 'past the columns');
    assert.equal(bucketsBySlot(buckets.slice(), [1, 2], 5)?.[10], 2, 'key 2 is slot 1');
  });

  it("lists each namespace's memories in the columns' order, and a table takes them in a row or apart (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 2 }), { maxLength: 200 }), (nsOf) => {
        const picks = picksOf(Uint8Array.from(nsOf), 3);
        const ids = nsOf.map((_, i) => `m${i}`);
        const offsets = Float64Array.from(ids, (_, i) => i * 10);
        for (let n = 0; n < 3; n++) {
          const expected = nsOf.flatMap((m, i) => (m === n ? [i] : []));
          assert.deepEqual([...(picks[n] as Int32Array)], expected);
          const table = new MemoryTable();
          table.restoreRefs(
            ids,
            picks[n] as Int32Array,
            offsets,
            new Int32Array(ids.length).fill(9),
            new Uint8Array(ids.length),
          );
          assert.deepEqual(
            [...table.keys()],
            expected.map((i) => `m${i}`),
          );
          expected.forEach((i) => {
            assert.equal(table.ref(`m${i}`)?.offset, i * 10);
          });
        }
      }),
      { numRuns: 100 },
    );
  });
});
