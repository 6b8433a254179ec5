import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import { seededRandom } from '../../bench/lib/content.js';
import { onnxMatVec } from '../../src/search/onnx-matvec.js';
import {
  type MatVec,
  similarities,
  type VectorHits,
  VectorIndex,
} from '../../src/search/vector-index.js';
import { dequantise, quantise } from '../../src/search/vector-quantise.js';

/** A seeded generator: the same "random" matrices on every run. */
const random = seededRandom;

function unitVector(dims: number, next: () => number): Float32Array {
  const v = new Float32Array(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    v[i] = next() * 2 - 1;
    norm += (v[i] as number) ** 2;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dims; i++) (v[i] as number) /= norm;
  return v;
}

/** The dot product in doubles, one term at a time: what every fast path must agree with. */
function naiveDot(a: Float32Array, b: Float32Array): number {
  assert.equal(a.length, b.length);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}

const close = (actual: number, expected: number, what: string, tolerance = 1e-5) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} vs ${expected}`);

/** The hits as a map, checking that ids and sims line up and no id comes twice. */
function hitMap(hits: VectorHits): Map<string, number> {
  assert.equal(hits.ids.length, hits.sims.length);
  const map = new Map(hits.ids.map((id, i) => [id, hits.sims[i] as number]));
  assert.equal(map.size, hits.ids.length, 'no id twice');
  return map;
}

const vec = (...xs: number[]) => new Float32Array(xs);

describe('VectorIndex', () => {
  describe('set, get and delete', () => {
    it('gets back a copy of what was set, and overwrites in place on a second set', () => {
      const index = new VectorIndex(3);
      index.set('a', vec(1, 0, 0));
      index.set('b', vec(0, 1, 0));
      assert.equal(index.size, 2);
      assert.deepEqual(index.get('a'), vec(1, 0, 0));
      assert.deepEqual(index.get('b'), vec(0, 1, 0));
      assert.equal(index.get('nope'), undefined);
      assert.equal(index.has('a'), true);
      assert.equal(index.has('nope'), false);

      // A copy: changing what get returned does not change the index.
      const got = index.get('a') as Float32Array;
      got[0] = 42;
      assert.deepEqual(index.get('a'), vec(1, 0, 0));

      index.set('a', vec(0, 0, 1));
      assert.equal(index.size, 2, 'a second set of an id adds no row');
      assert.deepEqual(index.get('a'), vec(0, 0, 1));
      assert.deepEqual(index.get('b'), vec(0, 1, 0));
    });

    it('deleting a middle row moves the last one into its place under its own id', async () => {
      const index = new VectorIndex(2);
      index.set('a', vec(1, 0));
      index.set('b', vec(0, 1));
      index.set('c', vec(-1, 0));
      index.set('d', vec(0, -1));
      index.delete('b');
      assert.equal(index.size, 3);
      assert.equal(index.has('b'), false);
      assert.equal(index.get('b'), undefined);
      assert.deepEqual(index.get('a'), vec(1, 0));
      assert.deepEqual(index.get('c'), vec(-1, 0));
      assert.deepEqual(index.get('d'), vec(0, -1), 'the moved row keeps its vector');
      assert.deepEqual(
        index.entries().map((e) => e.id),
        ['a', 'd', 'c'],
        'd took the row of b',
      );
      const hits = hitMap(await index.search(vec(0, -1), -2));
      assert.deepEqual(
        new Map([...hits].sort()),
        new Map([
          ['a', 0],
          ['c', 0],
          ['d', 1],
        ]),
      );
      // The moved id is still a normal row: set and delete it again.
      index.set('d', vec(0.6, 0.8));
      assert.deepEqual(index.get('d'), vec(0.6, 0.8));
      index.delete('d');
      assert.deepEqual(
        index.entries().map((e) => e.id),
        ['a', 'c'],
      );
      assert.deepEqual(index.get('c'), vec(-1, 0));
    });

    it('deleting the last row moves nothing', () => {
      const index = new VectorIndex(2);
      index.set('a', vec(1, 0));
      index.set('b', vec(0, 1));
      index.delete('b');
      assert.equal(index.size, 1);
      assert.deepEqual(index.get('a'), vec(1, 0));
      assert.equal(index.get('b'), undefined);
      // A new id takes the freed row, with its own vector.
      index.set('c', vec(-1, 0));
      assert.deepEqual(
        index.entries().map((e) => [e.id, [...e.vector]]),
        [
          ['a', [1, 0]],
          ['c', [-1, 0]],
        ],
      );
    });

    it('deleting the only row leaves an empty index that searches to nothing', async () => {
      const index = new VectorIndex(2);
      index.set('a', vec(1, 0));
      index.delete('a');
      assert.equal(index.size, 0);
      assert.equal(index.has('a'), false);
      assert.deepEqual(await index.search(vec(1, 0), -2), { ids: [], sims: [] });
      index.set('a', vec(0, 1));
      assert.deepEqual(index.get('a'), vec(0, 1));
      assert.equal(index.size, 1);
    });

    it('deleting an unknown id changes nothing', () => {
      const index = new VectorIndex(2);
      index.set('a', vec(1, 0));
      index.delete('zzz');
      assert.equal(index.size, 1);
      assert.deepEqual(index.get('a'), vec(1, 0));
    });

    it('clear empties it', async () => {
      const index = new VectorIndex(2);
      index.set('a', vec(1, 0));
      index.set('b', vec(0, 1));
      index.clear();
      assert.equal(index.size, 0);
      assert.equal(index.has('a'), false);
      assert.deepEqual(await index.search(vec(1, 0), -2), { ids: [], sims: [] });
    });

    it('grows past its initial capacity and keeps every row', () => {
      const next = random(1);
      const index = new VectorIndex(5, 2);
      const vectors = new Map<string, Float32Array>();
      for (let i = 0; i < 37; i++) {
        const v = unitVector(5, next);
        vectors.set(`m${i}`, v);
        index.set(`m${i}`, v);
      }
      assert.equal(index.size, 37);
      for (const [id, v] of vectors) assert.deepEqual(index.get(id), v, id);
    });

    it('an index made with capacity 0 takes a first vector', () => {
      const index = new VectorIndex(2, 0);
      index.set('a', vec(1, 0));
      assert.deepEqual(index.get('a'), vec(1, 0));
    });

    it('refuses a vector of another dimension, and keeps what it had', () => {
      const index = new VectorIndex(3);
      index.set('a', vec(1, 0, 0));
      assert.throws(() => index.set('b', vec(1, 0)), /vector of 2 dimensions in an index of 3/);
      assert.throws(() => index.set('a', vec(1, 0, 0, 0)), /4 dimensions in an index of 3/);
      assert.equal(index.size, 1);
      assert.equal(index.has('b'), false);
      assert.deepEqual(index.get('a'), vec(1, 0, 0));
    });
  });

  describe('search', () => {
    const dims = 16;
    const next = random(7);
    const rows = new Map<string, Float32Array>();
    for (let i = 0; i < 200; i++) rows.set(`r${i}`, unitVector(dims, next));
    const query = unitVector(dims, next);

    it('returns exactly the ids at or above minSim, with their cosines, in index order', async () => {
      const index = new VectorIndex(dims, 16);
      for (const [id, v] of rows) index.set(id, v);
      for (const minSim of [-2, -0.2, 0, 0.1, 0.3, 0.99, 2]) {
        const hits = await index.search(query, minSim);
        const expected = [...rows]
          .map(([id, v]) => [id, naiveDot(v, query)] as const)
          .filter(([, sim]) => sim >= minSim);
        assert.deepEqual(
          hits.ids,
          expected.map(([id]) => id),
          `ids at minSim ${minSim}`,
        );
        hits.sims.forEach((sim, i) => {
          close(sim, (expected[i] as readonly [string, number])[1], `${hits.ids[i]}`);
          assert.ok(sim >= minSim);
        });
      }
      const all = await index.search(query, -2);
      assert.equal(all.ids.length, rows.size, 'minSim -2 keeps every row');
      assert.equal((await index.search(query, 2)).ids.length, 0, 'no cosine reaches 2');
    });

    it('with a limit, returns the closest ids above minSim, closest first', async () => {
      const index = new VectorIndex(dims, 16);
      for (const [id, v] of rows) index.set(id, v);
      const ranked = [...rows]
        .map(([id, v]) => [id, naiveDot(v, query)] as const)
        .sort((a, b) => b[1] - a[1]);
      for (const [limit, minSim] of [
        [1, -2],
        [5, -2],
        [10, 0.2],
        [199, -2],
      ] as const) {
        const hits = await index.search(query, minSim, limit);
        const expected = ranked.filter(([, sim]) => sim >= minSim).slice(0, limit);
        assert.deepEqual(
          hits.ids,
          expected.map(([id]) => id),
          `limit ${limit}, minSim ${minSim}`,
        );
        hits.sims.forEach((sim, i) => {
          close(sim, (expected[i] as readonly [string, number])[1], `${hits.ids[i]}`);
        });
      }
      assert.deepEqual(await index.search(query, -2, 0), { ids: [], sims: [] });
      // A limit at or above the size keeps every row above minSim.
      const all = await index.search(query, 0.3, 1000);
      assert.deepEqual(
        [...all.ids].sort(),
        ranked
          .filter(([, sim]) => sim >= 0.3)
          .map(([id]) => id)
          .sort(),
      );
    });

    it('a row equal to the query scores 1 and an opposite row -1', async () => {
      const index = new VectorIndex(dims);
      index.set('same', query);
      index.set(
        'opposite',
        query.map((x) => -x),
      );
      const hits = hitMap(await index.search(query, -2));
      close(hits.get('same') as number, 1, 'same');
      close(hits.get('opposite') as number, -1, 'opposite');
      assert.deepEqual((await index.search(query, 0.999)).ids, ['same']);
    });

    it('similarities equals the naive dot products, for any dimension modulo 4', () => {
      for (const d of [1, 3, 4, 5, 7, 100]) {
        const n = 23;
        const gen = random(d);
        const matrix = new Float32Array(n * d);
        for (let r = 0; r < n; r++) matrix.set(unitVector(d, gen), r * d);
        const q = unitVector(d, gen);
        const sims = similarities(matrix, n, d, q);
        assert.equal(sims.length, n);
        for (let r = 0; r < n; r++) {
          close(sims[r] as number, naiveDot(matrix.subarray(r * d, r * d + d), q), `d=${d} r=${r}`);
        }
      }
      assert.equal(similarities(new Float32Array(0), 0, 8, new Float32Array(8)).length, 0);
    });

    it('uses the injected matrix-vector product over the live rows only', async () => {
      const calls: { rows: number; dims: number; length: number }[] = [];
      const spy: MatVec = async (matrix, n, d, v) => {
        calls.push({ rows: n, dims: d, length: matrix.length });
        return similarities(matrix, n, d, v);
      };
      const index = new VectorIndex(2, 64, { matVec: spy });
      index.set('a', vec(1, 0));
      index.set('b', vec(0, 1));
      const hits = await index.search(vec(1, 0), 0.5);
      assert.deepEqual(hits.ids, ['a']);
      assert.deepEqual(calls, [{ rows: 2, dims: 2, length: 4 }]);
    });

    it('a row deleted while an asynchronous product runs does not lend its place to another id', async () => {
      let release: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      // Reads the matrix only after a turn of the event loop, as onnxMatVec does.
      const lazy: MatVec = async (matrix, n, d, v) => {
        await gate;
        return similarities(matrix, n, d, v);
      };
      const index = new VectorIndex(2, 4, { matVec: lazy });
      index.set('a', vec(1, 0));
      index.set('b', vec(0, 1));
      const pending = index.search(vec(1, 0), -2);
      index.delete('a');
      release();
      const hits = hitMap(await pending);
      // Either the snapshot's answer (a: 1, b: 0) or the present one (b: 0), never a: 0.
      if (hits.has('a')) close(hits.get('a') as number, 1, 'a keeps its own cosine');
      close(hits.get('b') as number, 0, 'b');
    });
  });

  describe('the ONNX matrix-vector product', () => {
    let matVec: MatVec;
    before(async () => {
      matVec = await onnxMatVec();
    });

    it('gives the same similarities as the JS loop for a random 500 x 100 matrix', async () => {
      const n = 500;
      const d = 100;
      const gen = random(42);
      const matrix = new Float32Array(n * d);
      for (let r = 0; r < n; r++) matrix.set(unitVector(d, gen), r * d);
      const q = unitVector(d, gen);
      const onnx = await matVec(matrix, n, d, q);
      const js = similarities(matrix, n, d, q);
      assert.equal(onnx.length, n);
      assert.ok(onnx instanceof Float32Array);
      for (let r = 0; r < n; r++) close(onnx[r] as number, js[r] as number, `row ${r}`);
    });

    it('gives an empty array for 0 rows', async () => {
      const out = await matVec(new Float32Array(0), 0, 100, new Float32Array(100));
      assert.equal(out.length, 0);
    });

    it('answers an index search like the JS loop does', async () => {
      const d = 24;
      const gen = random(99);
      const plain = new VectorIndex(d, 8);
      const onnx = new VectorIndex(d, 8, { matVec });
      for (let i = 0; i < 60; i++) {
        const v = unitVector(d, gen);
        plain.set(`m${i}`, v);
        onnx.set(`m${i}`, v);
      }
      for (const id of ['m3', 'm59', 'm0']) {
        plain.delete(id);
        onnx.delete(id);
      }
      const q = unitVector(d, gen);
      const a = await plain.search(q, 0.1);
      const b = await onnx.search(q, 0.1);
      assert.ok(a.ids.length > 0, 'some rows pass 0.1');
      // A cosine within float error of 0.1 could fall on either side: compare the clear ones.
      const clear = (hits: VectorHits) =>
        hits.ids.filter((_, i) => (hits.sims[i] as number) > 0.1001);
      assert.deepEqual(clear(b), clear(a));
      const bs = hitMap(b);
      for (const [id, sim] of hitMap(a)) {
        if (bs.has(id)) close(bs.get(id) as number, sim, id);
      }
    });
  });

  describe('property: any sequence of set and delete', () => {
    const D = 6;
    const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    const component = fc.float({
      min: Math.fround(-1),
      max: Math.fround(1),
      noNaN: true,
      noDefaultInfinity: true,
    });
    const vector = fc.array(component, { minLength: D, maxLength: D }).map((xs) => {
      // Unit length (or zero), as the index's rows are: every cosine is then within -1..1.
      const norm = Math.sqrt(xs.reduce((s, x) => s + x * x, 0));
      return new Float32Array(norm > 0 ? xs.map((x) => x / norm) : xs);
    });
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), id: fc.constantFrom(...ids), vector }),
      fc.record({ kind: fc.constant('delete' as const), id: fc.constantFrom(...ids) }),
    );

    it('searching with minSim -2 returns exactly the live ids with their dot products', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(op, { maxLength: 60 }),
          vector,
          fc.integer({ min: 1, max: 4 }),
          async (ops, query, capacity) => {
            const index = new VectorIndex(D, capacity);
            const model = new Map<string, Float32Array>();
            for (const o of ops) {
              if (o.kind === 'set') {
                index.set(o.id, o.vector);
                model.set(o.id, o.vector);
              } else {
                index.delete(o.id);
                model.delete(o.id);
              }
            }
            assert.equal(index.size, model.size);
            const hits = hitMap(await index.search(query, -2));
            assert.deepEqual([...hits.keys()].sort(), [...model.keys()].sort());
            for (const [id, v] of model) {
              assert.deepEqual(index.get(id), v, `vector of ${id}`);
              close(hits.get(id) as number, naiveDot(v, query), `cosine of ${id}`);
            }
          },
        ),
        { numRuns: 300 },
      );
    });
  });

  describe('int8 rows', () => {
    /** What the vector store keeps of `v` and a start reads back: its int8 values, as a unit vector. */
    const asStored = (v: Float32Array) => dequantise(quantise(v), v.length) as Float32Array;

    it('hold each vector as the vector store keeps it, and score it in place', async () => {
      const index = new VectorIndex(2, 4, { int8: true });
      index.set('a', vec(0.6, 0.8));
      index.set('b', vec(1, 0));
      const a = index.get('a') as Float32Array;
      // 0.6 / (0.8 / 127) is 95.25: stored as 95, so the row is not the float vector any more.
      assert.notEqual(a[0], Math.fround(0.6));
      const expected = asStored(vec(0.6, 0.8));
      for (let k = 0; k < 2; k++) close(a[k] as number, expected[k] as number, `a[${k}]`, 1e-6);
      close(index.similarity('a', vec(1, 0)) as number, expected[0] as number, 'cosine', 1e-6);
      const hits = hitMap(await index.search(vec(1, 0), -2));
      close(hits.get('b') as number, 1, 'b', 1e-6);
      const out = new Float32Array(4);
      assert.equal(index.copyInto('a', out, 2), true);
      close(out[3] as number, expected[1] as number, 'copied', 1e-6);
    });

    it("take a store's int8 values as they are, in int8 and in float32 rows alike", () => {
      const stored = quantise(vec(0.6, -0.8));
      for (const index of [new VectorIndex(2, 1, { int8: true }), new VectorIndex(2, 1)]) {
        index.set('a', stored.values);
        const expected = dequantise(stored, 2) as Float32Array;
        const a = index.get('a') as Float32Array;
        for (let k = 0; k < 2; k++) close(a[k] as number, expected[k] as number, `a[${k}]`, 1e-6);
        index.set('z', new Int8Array(2));
        assert.deepEqual([...(index.get('z') as Float32Array)], [0, 0], 'a zero vector stays zero');
      }
    });

    it('rekey keeps every row under its id, in its place, and finds it by the new strings', async () => {
      const index = new VectorIndex(2, 4, { int8: true });
      const made = (id: string) => ['m', id].join('');
      for (const [id, v] of [
        ['a', vec(1, 0)],
        ['b', vec(0, 1)],
        ['c', vec(-1, 0)],
      ] as const) {
        index.set(made(id), v);
      }
      index.rekey(['mb', 'mz', 'ma']);
      assert.deepEqual(index.idList(), ['ma', 'mb', 'mc']);
      assert.equal(index.has('mz'), false);
      index.delete('ma');
      assert.deepEqual(index.idList(), ['mc', 'mb'], 'the last row moved into the freed one');
      const hits = hitMap(await index.search(vec(0, 1), 0.5));
      assert.deepEqual([...hits.keys()], ['mb']);
    });

    it('a vector read back and set again is the same row (no drift across restarts)', () => {
      const next = random(5);
      const index = new VectorIndex(100, 1, { int8: true });
      for (let i = 0; i < 50; i++) {
        const v = unitVector(100, next);
        index.set('m', v);
        const once = index.get('m') as Float32Array;
        index.set('m', once);
        assert.deepEqual(index.get('m'), once, `round ${i}`);
      }
    });

    it('property: any sequence of set and delete keeps the live ids, each within 1% of its cosine', async () => {
      const D = 12;
      const unit = fc
        .array(fc.float({ min: -1, max: 1, noNaN: true, noDefaultInfinity: true }), {
          minLength: D,
          maxLength: D,
        })
        .filter((xs) => xs.some((x) => Math.abs(x) > 1e-3))
        .map((xs) => {
          const norm = Math.sqrt(xs.reduce((s, x) => s + x * x, 0));
          return new Float32Array(xs.map((x) => x / norm));
        });
      const op = fc.record({
        id: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
        vector: fc.option(unit, { nil: undefined }),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(op, { maxLength: 40 }), unit, async (ops, query) => {
          const index = new VectorIndex(D, 1, { int8: true });
          const model = new Map<string, Float32Array>();
          for (const { id, vector } of ops) {
            if (vector) {
              index.set(id, vector);
              model.set(id, vector);
            } else {
              index.delete(id);
              model.delete(id);
            }
          }
          const hits = hitMap(await index.search(query, -2));
          assert.deepEqual([...hits.keys()].sort(), [...model.keys()].sort());
          for (const [id, v] of model) {
            close(hits.get(id) as number, naiveDot(v, query), `cosine of ${id}`, 0.01);
            close(hits.get(id) as number, naiveDot(asStored(v), query), `as stored: ${id}`, 1e-5);
            const row = index.get(id) as Float32Array;
            close(naiveDot(row, row), 1, `${id} is unit length`, 1e-5);
          }
        }),
        { numRuns: 300 },
      );
    });
  });
});
