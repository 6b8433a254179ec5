// SemanticIndex with its approximate index: the hits of a store over the threshold are those of
// the exact search, deletes and updates included, across a restart.
import assert from 'node:assert/strict';
import path from 'node:path';
import { it } from 'node:test';
import pino from 'pino';
import { verifyAnnFile } from '../../src/search/ann-file.js';
import { ANN_FILE } from '../../src/search/ann-index.js';
import type { EmbeddingProvider } from '../../src/search/embeddings.js';
import { SemanticIndex } from '../../src/search/semantic-index.js';
import { JsonlVectorStore, VECTORS_FILE } from '../../src/storage/jsonl/vectors.js';
import { testDir } from '../support.js';
import { DIMS, testVectors } from './ann-support.js';

/** Texts are "v<n>": the provider answers the n-th vector of a clustered set. */
function provider(): EmbeddingProvider {
  const v = testVectors(0, 21);
  const cache = new Map<string, Float32Array>();
  return {
    id: 'fake:ann',
    dimensions: DIMS,
    async embed(texts) {
      return texts.map((text) => {
        const vector = cache.get(text) ?? v.draw();
        cache.set(text, vector);
        return vector;
      });
    },
  };
}

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);

it('searches by the approximate index over the threshold, honouring deletes and updates', async (t) => {
  const dir = testDir(t);
  const model = provider();
  const logger = pino({ level: process.env.DEBUG_ANN ? 'debug' : 'silent' });
  const start = () =>
    new SemanticIndex({
      dataDir: dir,
      logger,
      provider: Promise.resolve(model),
      store: new JsonlVectorStore(path.join(dir, VECTORS_FILE), logger),
      ann: { threshold: 1000 },
    });
  const index = start();
  t.after(() => index.close());
  for (let i = 0; i < 3000; i++) index.upsert(`m${i}`, `v${i}`);
  await index.ready;
  await index.drain();
  await index.annSettled();
  assert.deepEqual(index.status().ann, { state: 'ready', indexed: 3000 });

  const [query] = (await model.embed(['v5'])) as [Float32Array];
  const exact = (keep: (id: string) => boolean) => {
    const all: { id: string; sim: number }[] = [];
    for (let i = 0; i < 3000; i++) {
      const vector = index.vectorOf(`m${i}`);
      if (vector && keep(`m${i}`)) all.push({ id: `m${i}`, sim: cosine(vector, query) });
    }
    return all.sort((a, b) => b.sim - a.sim).slice(0, 10);
  };
  const hits = await index.search(query, -1, 10);
  assert.equal(hits.ids[0], 'm5');
  const expected = exact(() => true).map((h) => h.id);
  const found = hits.ids.filter((id) => expected.includes(id)).length;
  assert.ok(found >= 9, `recall@10 ${found}/10`);

  // m5 is deleted, and the next closest's text changes to something far.
  const second = hits.ids[1] as string;
  index.remove('m5');
  index.upsert(second, 'far away');
  await index.drain();
  const after = await index.search(query, -1, 10);
  assert.ok(!after.ids.includes('m5'));
  assert.ok(!after.ids.includes(second) || (after.sims[after.ids.indexOf(second)] ?? 1) < 0.9);
  after.ids.forEach((id, i) => {
    const vector = index.vectorOf(id) as Float32Array;
    assert.ok(Math.abs(cosine(vector, query) - (after.sims[i] as number)) < 1e-5, id);
  });
  await index.close();

  // A restart takes the file as it is, without building it again.
  const { sha256 } = verifyAnnFile(path.join(dir, ANN_FILE), 'fake:ann', DIMS);
  const again = start();
  t.after(() => again.close());
  for (let i = 0; i < 3000; i++) if (i !== 5) again.upsert(`m${i}`, `v${i}`);
  await again.ready;
  await again.drain();
  await again.annSettled();
  assert.equal(again.status().ann?.state, 'ready');
  assert.equal(verifyAnnFile(path.join(dir, ANN_FILE), 'fake:ann', DIMS).sha256, sha256);
  assert.ok(!(await again.search(query, -1, 10)).ids.includes('m5'));
});
