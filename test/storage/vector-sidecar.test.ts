import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  JsonlVectorStore,
  VECTORS_FILE,
  VECTORS_SIDECAR_FILE,
} from '../../src/storage/jsonl/vectors.js';
import type { StoredVector } from '../../src/storage/vector-store.js';
import { recordingLogger, testDir } from '../support.js';
import { withColumn, withHeader } from './sidecar-craft.js';

const vector = (i: number): StoredVector => ({
  id: `m-${i}`,
  model: i % 7 === 0 ? 'other' : 'static',
  hash: `h${i}`,
  values: Int8Array.from({ length: 8 }, (_, d) => ((i * 31 + d * 7) % 255) - 127),
  scale: 0.01 * (1 + (i % 5)),
});

async function loadAll(dir: string) {
  const log = recordingLogger();
  const store = new JsonlVectorStore(path.join(dir, VECTORS_FILE), log.logger);
  const seen = new Map<string, StoredVector>();
  const entries = await store.load((v) => seen.set(v.id, { ...v, values: v.values.slice() }));
  return { store, seen, entries, log };
}

/** A vectors.jsonl of 1,500 vectors (some replaced), and its snapshot written at close. */
async function prepared(dir: string, from = 0) {
  const { store } = await loadAll(dir);
  const all = Array.from({ length: 1500 }, (_, i) => vector(i + from));
  store.append(all);
  store.append([{ ...vector(3), hash: 'changed' }]);
  const live = new Map(all.map((v) => [v.id, v]));
  live.set('m-3', { ...vector(3), hash: 'changed' });
  store.snapshot(() => live.values());
  await store.close();
  return live;
}

describe('the vectors snapshot (vectors.idx)', () => {
  it('a load reads it, then the lines after it: the same vectors as the lines alone', async (t) => {
    const dir = testDir(t);
    const live = await prepared(dir);
    assert.ok(fs.existsSync(path.join(dir, VECTORS_SIDECAR_FILE)));
    // Appended after the snapshot: read from vectors.jsonl.
    const { store } = await loadAll(dir);
    store.append([{ ...vector(9999), id: 'late' }]);
    await store.close();
    const { seen, log } = await loadAll(dir);
    assert.equal(log.warnings().length, 0);
    assert.equal(seen.size, live.size + 1);
    for (const [id, v] of live) assert.deepEqual(seen.get(id), v);
    assert.equal(seen.get('late')?.hash, 'h9999');
  });

  it('a long snapshot is read in turns: calls are answered while a million vectors are visited', async (t) => {
    const dir = testDir(t);
    const { store } = await loadAll(dir);
    const many = Array.from({ length: 50_000 }, (_, i) => vector(i));
    store.append(many);
    store.snapshot(() => many);
    await store.close();
    let visited = 0;
    const seenByTheTurn: number[] = [];
    const reader = new JsonlVectorStore(path.join(dir, VECTORS_FILE), recordingLogger().logger);
    // Calls that come in while the load runs (the snapshot's reads first, then its visits): one
    // is answered between visits, before the load ends.
    let done = false;
    const turns = (async () => {
      while (!done) {
        await new Promise((resolve) => setImmediate(resolve));
        seenByTheTurn.push(visited);
      }
    })();
    const entries = await reader.load(() => {
      visited++;
    });
    done = true;
    await turns;
    await reader.close();
    assert.equal(entries, 50_000);
    assert.equal(visited, 50_000);
    assert.ok(
      seenByTheTurn.some((n) => n > 0 && n < 50_000),
      `a turn came in mid-load (visited at each turn: ${seenByTheTurn.join(', ')})`,
    );
  });

  for (const [fault, damage] of [
    ['truncated', (f: string) => fs.truncateSync(f, 200)],
    ['of another data dir', (f: string, other: string) => fs.copyFileSync(other, f)],
    [
      'whole but without its ids',
      (f: string) =>
        withHeader(f, (h) => ({
          ...h,
          columns: ((h?.columns ?? []) as { name: string }[]).filter((c) => c.name !== 'ids'),
        })),
    ],
    ['whole but without its models', (f: string) => withHeader(f, (h) => ({ ...h, meta: null }))],
    [
      'whole but with a vector that ends past the values',
      (f: string) => withColumn(f, 'valueEnds', (c) => c.writeInt32LE(2 ** 31 - 1, 0)),
    ],
  ] as const) {
    it(`${fault}: one warning, and vectors.jsonl read whole`, async (t) => {
      const dir = testDir(t);
      const live = await prepared(dir);
      // Another dir's snapshot: made from a vectors.jsonl of other bytes.
      const foreign = testDir(t);
      await prepared(foreign, 5);
      damage(path.join(dir, VECTORS_SIDECAR_FILE), path.join(foreign, VECTORS_SIDECAR_FILE));
      const { seen, log } = await loadAll(dir);
      assert.equal(log.warnings().filter((w) => w.file === VECTORS_SIDECAR_FILE).length, 1);
      for (const [id, v] of live) assert.deepEqual(seen.get(id), v);
    });
  }
});
