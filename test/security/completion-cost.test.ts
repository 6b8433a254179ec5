// Completion is asked at each keystroke, by any token holder: its cost must not grow with a sort
// of the whole namespace, which every other namespace waits for.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import type { MemoryContext } from '../../src/memory/context.js';
import { firstSorted, Overview } from '../../src/memory/overview.js';

test('firstSorted answers what a filter, a sort and a slice answer', () => {
  fc.assert(
    fc.property(
      fc.array(fc.string({ maxLength: 6 }), { maxLength: 200 }),
      fc.integer({ min: 0, max: 20 }),
      fc.string({ maxLength: 2 }),
      (values, limit, prefix) => {
        const keep = (v: string) => v.startsWith(prefix);
        assert.deepEqual(
          firstSorted(values, limit, keep),
          values.filter(keep).sort().slice(0, limit),
        );
      },
    ),
    { numRuns: 500 },
  );
});

/** Ids that count how often their text is read: each comparison of two ids reads both. */
function countedIds(n: number): { ids: string[]; reads: () => number } {
  let reads = 0;
  const ids = Array.from({ length: n }, () => {
    const id = randomUUID();
    return {
      startsWith: (prefix: string) => id.startsWith(prefix),
      toString: () => id,
      [Symbol.toPrimitive]: () => {
        reads++;
        return id;
      },
    } as unknown as string;
  });
  return { ids, reads: () => reads };
}

// What a sort costs is its comparisons, n log n (about 18 an id at 300,000): counted here, they
// do not change with the machine's load. Completion reads each id about twice (one comparison
// with the worst of the 100 it keeps), a few more for those it keeps.
test('completing a memory id with an empty prefix over 300,000 memories compares each id a few times, not a sort of them', async (t) => {
  const n = 300_000;
  const { ids, reads } = countedIds(n);
  const memories = new Map<string, unknown>(ids.map((id) => [id, undefined]));
  const overview = new Overview({
    sync: async () => {},
    engine: { memories },
  } as unknown as MemoryContext);
  const before = reads();
  const first = await overview.idsStartingWith('', 100);
  const perId = (reads() - before) / n;
  const sorted = ids.map(String).sort().slice(0, 100);
  assert.deepEqual(first.map(String), sorted);
  t.diagnostic(`${perId.toFixed(2)} reads of an id, each`);
  assert.ok(perId < 4, `${perId.toFixed(1)} reads of an id, each`);
});
