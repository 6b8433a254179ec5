import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AnnGraph } from '../../src/search/ann-graph.js';
import { type AnnShape, newUsearchIndex } from '../../src/search/ann-worker.js';
import { testDir } from '../support.js';

const shape: AnnShape = {
  model: 'test/graph:4',
  dimensions: 4,
  connectivity: 8,
  expansionAdd: 32,
  expansionSearch: 32,
};

/** A graph of the four axes and their opposites, keys 1-8, saved at `file`. */
function graphFile(dir: string): string {
  const file = path.join(dir, 'graph.usearch');
  const index = newUsearchIndex(shape);
  const vectors = new Float32Array(8 * 4);
  for (let i = 0; i < 8; i++) vectors[i * 4 + (i % 4)] = i < 4 ? 1 : -1;
  index.add(
    BigUint64Array.from({ length: 8 }, (_, i) => BigInt(i + 1)),
    vectors,
  );
  index.save(file);
  return file;
}

describe('AnnGraph: the graph in use on its own thread', () => {
  it('maps a graph, searches it and tells which keys it holds', async (t) => {
    const graph = await AnnGraph.open(graphFile(testDir(t)), shape);
    t.after(() => graph.close());
    assert.equal(graph.size, 8);
    assert.equal(graph.dimensions, 4);
    // Two searches at once: each gets its own answer.
    const [a, b] = await Promise.all([
      graph.search(Float32Array.of(0, 1, 0, 0), 2),
      graph.search(Float32Array.of(0, 0, 0, -1), 1),
    ]);
    assert.equal(a.keys[0], 2n);
    assert.equal(a.keys.length, 2);
    assert.ok((a.distances[0] as number) < (a.distances[1] as number));
    assert.deepEqual([...b.keys], [8n]);
    assert.deepEqual([...(await graph.contains(BigUint64Array.of(1n, 9n, 8n)))], [1, 0, 1]);
  });

  it('a graph closed, or whose thread is gone, fails what it is asked instead of hanging', async (t) => {
    const file = graphFile(testDir(t));
    const closed = await AnnGraph.open(file, shape);
    const pending = closed.search(Float32Array.of(1, 0, 0, 0), 1);
    closed.close();
    await assert.rejects(pending, /closed/);
    await assert.rejects(closed.search(Float32Array.of(1, 0, 0, 0), 1), /closed/);

    const gone = await AnnGraph.open(file, shape);
    await (gone as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    await assert.rejects(gone.search(Float32Array.of(1, 0, 0, 0), 1));
  });

  it('refuses a file it cannot map, and its thread ends', async (t) => {
    await assert.rejects(AnnGraph.open(path.join(testDir(t), 'none.usearch'), shape));
  });
});
