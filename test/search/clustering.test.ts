import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  type Cluster,
  type ClusterOptions,
  clusterId,
  clusterVectors,
  suggestedAction,
} from '../../src/search/clustering.js';

type Item = { id: string; vector: Float32Array };

/** A unit vector along `components`. */
const unit = (...components: number[]): Float32Array => {
  const norm = Math.hypot(...components);
  return Float32Array.from(
    norm === 0 ? components.map((_, k) => (k === 0 ? 1 : 0)) : components.map((c) => c / norm),
  );
};

/** The cosine as the clusterer computes it: float32 components, summed in order in doubles. */
const cosine = (a: Float32Array, b: Float32Array): number => {
  let s = 0;
  for (let k = 0; k < a.length; k++) s += (a[k] as number) * (b[k] as number);
  return s;
};

const options = (threshold: number, maxClusterSize = 12): ClusterOptions => ({
  threshold,
  maxClusterSize,
});

const membersOf = (clusters: Cluster[]) => clusters.map((c) => c.memory_ids);

describe('clusterVectors', () => {
  it('groups close vectors and leaves far ones out', () => {
    const items: Item[] = [
      { id: 'a1', vector: unit(1, 0.02, 0) },
      { id: 'a2', vector: unit(1, -0.03, 0.01) },
      { id: 'a3', vector: unit(1, 0, 0.04) },
      { id: 'b1', vector: unit(0, 1, 0.05) },
      { id: 'b2', vector: unit(0.03, 1, 0) },
      { id: 'far', vector: unit(0, 0, 1) },
    ];
    const clusters = clusterVectors(items, options(0.83));
    assert.deepEqual(membersOf(clusters).sort(), [
      ['a1', 'a2', 'a3'],
      ['b1', 'b2'],
    ]);
    for (const c of clusters) {
      assert.ok(c.cohesion > 0.99, `cohesion ${c.cohesion}`);
      assert.equal(c.suggested_action, 'auto-merge');
      assert.equal(c.id, clusterId(c.memory_ids));
    }
  });

  it('returns nothing for vectors that are all far apart, or too few of them', () => {
    const items: Item[] = [
      { id: 'x', vector: unit(1, 0, 0) },
      { id: 'y', vector: unit(0, 1, 0) },
      { id: 'z', vector: unit(0, 0, 1) },
    ];
    assert.deepEqual(clusterVectors(items, options(0.83)), []);
    assert.deepEqual(clusterVectors([], options(0.83)), []);
    assert.deepEqual(clusterVectors(items.slice(0, 1), options(-1)), []);
  });

  it('links a pair whose cosine is exactly the threshold, and not one just below', () => {
    // 0.5 is exact in float32, and 1 * 0.5 + 0 * y is exactly 0.5.
    const items: Item[] = [
      { id: 'p', vector: Float32Array.of(1, 0) },
      { id: 'q', vector: Float32Array.of(0.5, Math.sqrt(0.75)) },
    ];
    assert.equal(cosine(items[0]?.vector as Float32Array, items[1]?.vector as Float32Array), 0.5);
    assert.deepEqual(membersOf(clusterVectors(items, options(0.5))), [['p', 'q']]);
    assert.deepEqual(clusterVectors(items, options(0.5 + 1e-12)), []);
  });

  it('caps a chain of 30 near vectors at maxClusterSize, strongest pairs together', () => {
    // Along a circle: tight pairs (0.01 rad apart) 0.1 rad from the next pair, so every
    // neighbour is linked at 0.99 and single linkage alone would make one cluster of 30.
    const items: Item[] = [];
    let angle = 0;
    for (let k = 0; k < 30; k++) {
      items.push({
        id: `m${String(k).padStart(2, '0')}`,
        vector: unit(Math.cos(angle), Math.sin(angle)),
      });
      angle += k % 2 === 0 ? 0.01 : 0.1;
    }
    assert.equal(clusterVectors(items, options(0.99, 30))[0]?.memory_ids.length, 30);

    const clusters = clusterVectors(items, options(0.99, 4));
    assert.ok(clusters.length >= 8, `${clusters.length} clusters`);
    for (const c of clusters) assert.ok(c.memory_ids.length <= 4, c.memory_ids.join());
    assert.equal(clusters.flatMap((c) => c.memory_ids).length, 30);
    for (let k = 0; k < 30; k += 2) {
      const a = items[k]?.id as string;
      const b = items[k + 1]?.id as string;
      const home = clusters.find((c) => c.memory_ids.includes(a));
      assert.ok(home?.memory_ids.includes(b), `${a} and ${b} apart`);
    }
  });

  it('gives the same clusters and ids whatever the input order', () => {
    const items: Item[] = [
      { id: 'k', vector: unit(1, 0.1, 0) },
      { id: 'c', vector: unit(1, 0, 0.1) },
      { id: 'q', vector: unit(1, 0.05, 0.05) },
      { id: 'e', vector: unit(0, 1, 0.1) },
      { id: 'a', vector: unit(0, 1, 0) },
    ];
    const forward = clusterVectors(items, options(0.9, 2));
    const backward = clusterVectors([...items].reverse(), options(0.9, 2));
    const shuffled = clusterVectors(
      [2, 4, 0, 3, 1].map((i) => items[i] as Item),
      options(0.9, 2),
    );
    assert.equal(forward.length, 2);
    assert.deepEqual(backward, forward);
    assert.deepEqual(shuffled, forward);
    assert.equal(new Set(forward.map((c) => c.id)).size, forward.length);
  });

  it('computes cohesion as the mean pairwise cosine, to 4 digits', () => {
    // Cosines 0.6, 0.8 and 0.96: the mean is 2.36 / 3 = 0.78667.
    const items: Item[] = [
      { id: 'a', vector: Float32Array.of(1, 0, 0) },
      { id: 'b', vector: Float32Array.of(0.6, 0.8, 0) },
      { id: 'c', vector: Float32Array.of(0.8, 0.6, 0) },
    ];
    const [cluster, ...rest] = clusterVectors(items, options(0.5));
    assert.equal(rest.length, 0);
    assert.deepEqual(cluster, {
      id: clusterId(['a', 'b', 'c']),
      memory_ids: ['a', 'b', 'c'],
      cohesion: 0.7867,
      suggested_action: 'review',
    });
  });

  it('orders clusters by cohesion, highest first', () => {
    const items: Item[] = [
      { id: 'loose1', vector: unit(1, 0, 0) },
      { id: 'loose2', vector: unit(1, 0.5, 0) },
      { id: 'tight1', vector: unit(0, 0, 1) },
      { id: 'tight2', vector: unit(0, 0.01, 1) },
    ];
    const clusters = clusterVectors(items, options(0.8));
    assert.deepEqual(membersOf(clusters), [
      ['tight1', 'tight2'],
      ['loose1', 'loose2'],
    ]);
    assert.equal(clusters[1]?.cohesion, 0.8944);
  });

  it('reports progress about every 1% of rows, ending at the total', () => {
    const items: Item[] = Array.from({ length: 1000 }, (_, i) => ({
      id: `m${i}`,
      vector: unit(Math.cos(i), Math.sin(i), Math.cos(i * 7)),
    }));
    const calls: [number, number][] = [];
    clusterVectors(items, options(0.999), (done, total) => calls.push([done, total]));
    assert.ok(calls.length >= 90 && calls.length <= 101, `${calls.length} calls`);
    assert.deepEqual(calls.at(-1), [1000, 1000]);
    for (let i = 1; i < calls.length; i++) {
      assert.ok((calls[i]?.[0] as number) > (calls[i - 1]?.[0] as number));
    }
    const few: [number, number][] = [];
    clusterVectors(items.slice(0, 3), options(0.999), (done, total) => few.push([done, total]));
    assert.deepEqual(few, [[3, 3]]);
  });

  it('refuses bad input with a message that says what to fix', () => {
    const items: Item[] = [
      { id: 'a', vector: unit(1, 0) },
      { id: 'b', vector: unit(1, 0, 0) },
    ];
    assert.throws(
      () => clusterVectors(items, options(0.8)),
      /2-d vector, others 3-d|3-d vector, others 2-d/,
    );
    const twice: Item[] = [
      { id: 'a', vector: unit(1, 0) },
      { id: 'a', vector: unit(1, 0) },
    ];
    assert.throws(() => clusterVectors(twice, options(0.8)), /listed twice/);
    assert.throws(() => clusterVectors([], options(0.8, 1)), /maxClusterSize/);
    assert.throws(() => clusterVectors([], options(Number.NaN)), /threshold/);
  });

  it('keeps every cluster within the cap, disjoint, and each member linked (property)', () => {
    const vector = fc
      .tuple(
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.double({ min: -1, max: 1, noNaN: true }),
      )
      .map(([x, y, z]) => unit(x, y, z));
    fc.assert(
      fc.property(
        fc.array(vector, { minLength: 0, maxLength: 40 }),
        fc.double({ min: 0.3, max: 0.99, noNaN: true }),
        fc.integer({ min: 2, max: 8 }),
        (vectors, threshold, cap) => {
          const items = vectors.map((v, i) => ({ id: `m${i}`, vector: v }));
          const byId = new Map(items.map((item) => [item.id, item.vector]));
          const clusters = clusterVectors(items, options(threshold, cap));
          const seen = new Set<string>();
          for (const c of clusters) {
            assert.ok(c.memory_ids.length >= 2 && c.memory_ids.length <= cap);
            assert.deepEqual(c.memory_ids, [...c.memory_ids].sort());
            assert.equal(c.id, clusterId(c.memory_ids));
            for (const id of c.memory_ids) {
              assert.ok(!seen.has(id), `${id} is in two clusters`);
              seen.add(id);
              const own = byId.get(id) as Float32Array;
              const linked = c.memory_ids.some(
                (other) =>
                  other !== id && cosine(own, byId.get(other) as Float32Array) >= threshold,
              );
              assert.ok(linked, `${id} has no link >= ${threshold} in its cluster`);
            }
          }
          for (let i = 1; i < clusters.length; i++) {
            const prev = clusters[i - 1] as Cluster;
            const cur = clusters[i] as Cluster;
            assert.ok(
              prev.cohesion > cur.cohesion || (prev.cohesion === cur.cohesion && prev.id < cur.id),
            );
          }
          assert.deepEqual(clusterVectors([...items].reverse(), options(threshold, cap)), clusters);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('clusterId', () => {
  it('is c- and 12 hex digits of the sha256 of the sorted ids, whatever their order', () => {
    const expected = `c-${createHash('sha256').update('a\nb\nc').digest('hex').slice(0, 12)}`;
    assert.equal(clusterId(['a', 'b', 'c']), expected);
    assert.equal(clusterId(['c', 'a', 'b']), expected);
    assert.match(expected, /^c-[0-9a-f]{12}$/);
  });

  it('differs for different members', () => {
    assert.notEqual(clusterId(['a', 'b']), clusterId(['a', 'b', 'c']));
    assert.notEqual(clusterId(['a', 'b']), clusterId(['a', 'c']));
    assert.notEqual(clusterId(['ab']), clusterId(['a', 'b']));
  });
});

describe('suggestedAction', () => {
  it('auto-merges from 0.9, reviews from 0.75, keeps apart below', () => {
    assert.equal(suggestedAction(1), 'auto-merge');
    assert.equal(suggestedAction(0.9), 'auto-merge');
    assert.equal(suggestedAction(0.8999), 'review');
    assert.equal(suggestedAction(0.75), 'review');
    assert.equal(suggestedAction(0.7499), 'keep-apart');
    assert.equal(suggestedAction(0), 'keep-apart');
  });
});
