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

test('completing a memory id with an empty prefix over 300,000 memories costs less than half a sort of them', async () => {
  const memories = new Map<string, unknown>();
  for (let i = 0; i < 300_000; i++) memories.set(randomUUID(), undefined);
  const overview = new Overview({
    sync: async () => {},
    engine: { memories },
  } as unknown as MemoryContext);
  await overview.idsStartingWith('', 100);
  const started = performance.now();
  const ids = await overview.idsStartingWith('', 100);
  const took = performance.now() - started;
  // The sort it replaces, timed in the same run: the machine's load weighs on both alike.
  const sortStarted = performance.now();
  const sorted = [...memories.keys()]
    .filter((id) => id.startsWith(''))
    .sort()
    .slice(0, 100);
  const sortTook = performance.now() - sortStarted;
  assert.deepEqual(ids, sorted);
  assert.ok(took < sortTook / 2, `${took.toFixed(0)} ms, the sort ${sortTook.toFixed(0)} ms`);
});
