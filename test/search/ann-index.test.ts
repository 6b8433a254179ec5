import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { verifyAnnFile } from '../../src/search/ann-file.js';
import { ANN_FILE, AnnIndex, type AnnOptions } from '../../src/search/ann-index.js';
import type { VectorHits } from '../../src/search/vector-index.js';
import { nodeScript } from '../node-script.js';
import { recordingLogger, tempDir, testDir } from '../support.js';
import { DIMS, MODEL, type TestVectors, testVectors } from './ann-support.js';

/** Small enough for a test: the approximate index from 1,000 vectors on. */
const SMALL: Omit<AnnOptions, 'dataDir' | 'logger'> = { threshold: 1000 };

function open(dir: string, t: TestVectors, options = SMALL) {
  const { logger, warnings } = recordingLogger();
  const ann = new AnnIndex(t.source, { ...options, dataDir: dir, logger });
  return { ann, warnings };
}

/** recall@k of the index's answers against the exact search's, over `queries`. */
async function recall(
  ann: AnnIndex,
  t: TestVectors,
  queries: Float32Array[],
  k = 10,
  keep?: (id: string) => boolean,
): Promise<number> {
  let found = 0;
  let wanted = 0;
  for (const query of queries) {
    const approx = await ann.search(query, -1, k, keep);
    assert.ok(approx, 'the index answered');
    const exact = await t.vectors.search(query, -1, k, keep);
    checkScores(approx, t, query);
    const got = new Set(approx.ids);
    wanted += exact.ids.length;
    for (const id of exact.ids) if (got.has(id)) found++;
  }
  return found / wanted;
}

/** Every hit is a live memory with its exact cosine, closest first. */
function checkScores(hits: VectorHits, t: TestVectors, query: Float32Array): void {
  assert.equal(new Set(hits.ids).size, hits.ids.length, 'no id twice');
  hits.ids.forEach((id, i) => {
    const exact = t.vectors.similarity(id, query);
    assert.ok(exact !== undefined, `${id} is a live memory`);
    assert.ok(Math.abs(exact - (hits.sims[i] as number)) < 1e-6, `${id} has its exact score`);
    if (i > 0) assert.ok((hits.sims[i - 1] as number) >= (hits.sims[i] as number), 'in order');
  });
}

/** The candidates each search of `ann` asks its graph for, in turn, until the test ends. */
function graphAsks(ann: AnnIndex, t: TestContext): number[] {
  type Search = (query: Float32Array, want: number) => Promise<unknown>;
  const graph = (ann as unknown as { live: { graph: { search: Search } } }).live.graph;
  const search = graph.search;
  const asked: number[] = [];
  graph.search = (query: Float32Array, want: number) => {
    asked.push(want);
    return search.call(graph, query, want);
  };
  t.after(() => {
    graph.search = search;
  });
  return asked;
}

describe('AnnIndex', () => {
  // 20,000 vectors and their index, built once for the two tests that only search them.
  let bigDir: string;
  let big: TestVectors;
  let bigAnn: AnnIndex;
  /** What the index answered before its build was done. */
  let unbuilt: VectorHits | undefined;
  before(async () => {
    bigDir = tempDir();
    big = testVectors(20_000);
    bigAnn = open(bigDir, big).ann;
    await bigAnn.open();
    unbuilt = await bigAnn.search(big.draw(), -1, 10);
  });
  after(() => {
    bigAnn.close();
    fs.rmSync(bigDir, { recursive: true, force: true });
  });

  it('answers with recall@10 of at least 0.95 against the exact search at 20,000 vectors', async () => {
    const [v, ann] = [big, bigAnn];
    // Before a build is done the exact search answers (undefined here).
    assert.equal(unbuilt, undefined);
    await ann.settled();
    assert.equal(ann.status()?.state, 'ready');
    assert.equal(ann.status()?.indexed, 20_000);
    const queries = Array.from({ length: 100 }, () => v.draw());
    const r = await recall(ann, v, queries);
    assert.ok(r >= 0.95, `recall@10 ${r}`);
    // The threshold on the similarity holds: nothing under it.
    const hits = await ann.search(queries[0] as Float32Array, 0.9, 10);
    for (const sim of hits?.sims ?? []) assert.ok(sim >= 0.9);
  });

  it('answers from the graph when fewer memories than asked pass the threshold, at either depth', async (t) => {
    // The 20,000 of the first test: searching changes nothing in them.
    const [v, ann] = [big, bigAnn];
    await ann.settled();
    const asked = graphAsks(ann, t);
    const found = { full: 0, first: 0 };
    let wanted = 0;
    for (let q = 0; q < 30; q++) {
      const query = v.draw();
      // A threshold about 30 memories pass, and a search that asks for 200: the graph's
      // farthest candidates, under the threshold, end it (it was the exact scan of every vector).
      const threshold = (await v.vectors.search(query, -1, 30)).sims[29] as number;
      const exact = await v.vectors.search(query, threshold, 200);
      wanted += exact.ids.length;
      // A search (depth 'full'): 800 candidates hold about 30 hits, then a tail under the
      // threshold at 3,200: no more. A save's lookup (depth 'first', SearchDepth) trusts the
      // tail of the first 800.
      for (const [depth, asks] of [
        ['full', [800, 3200]],
        ['first', [800]],
      ] as const) {
        asked.length = 0;
        const approx = await ann.search(query, threshold, 200, undefined, depth);
        assert.ok(approx, 'the graph answered');
        assert.deepEqual(asked, asks, depth);
        checkScores(approx, v, query);
        for (const sim of approx.sims) assert.ok(sim >= threshold);
        const got = new Set(approx.ids);
        for (const id of exact.ids) if (got.has(id)) found[depth]++;
      }
    }
    assert.ok(found.full / wanted >= 0.95, `recall ${found.full / wanted}`);
    assert.ok(found.first / wanted >= 0.95, `recall at depth 'first' ${found.first / wanted}`);
  });

  it('stays exact below its threshold and never writes a file there', async (t) => {
    const dir = testDir(t);
    const v = testVectors(500);
    const { ann } = open(dir, v);
    t.after(() => ann.close());
    await ann.open();
    await ann.settled();
    assert.equal(await ann.search(v.draw(), -1, 10), undefined);
    assert.equal(fs.existsSync(path.join(dir, ANN_FILE)), false);
  });

  it('closed while it builds: says so at info, warns of nothing, and the next start builds it', async (t) => {
    const dir = testDir(t);
    const v = testVectors(3000, 2);
    const { logger, entries, warnings } = recordingLogger();
    const ann = new AnnIndex(v.source, { ...SMALL, dataDir: dir, logger });
    await ann.open();
    const said = (pattern: RegExp) => entries().some((e) => pattern.test(String(e.msg)));
    // The build is under way once it said so; closed then, as a command that ends closes it.
    const until = async (pattern: RegExp) => {
      // Asked again every few ms (the build reads on other threads), at most 10 s.
      for (let i = 0; i < 2000 && !said(pattern); i++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    await until(/building the approximate index/);
    assert.ok(said(/building the approximate index/));
    ann.close();
    await until(/not built: closed first/);
    assert.ok(said(/vectors\.ann not built: closed first; the next start builds it/));
    assert.deepEqual(warnings(), []);

    const next = open(dir, v);
    t.after(() => next.ann.close());
    await next.ann.open();
    await next.ann.settled();
    assert.ok(await next.ann.search(v.draw(), -1, 10), 'built by the next start');
  });

  it('is kept in vectors.ann and used by the next start without a build', async (t) => {
    const dir = testDir(t);
    const v = testVectors(3000, 2);
    const first = open(dir, v).ann;
    await first.open();
    await first.settled();
    const query = v.draw();
    const before = await first.search(query, -1, 10);
    first.close();
    const trailer = verifyAnnFile(path.join(dir, ANN_FILE), MODEL, DIMS);
    assert.equal(trailer.count, 3000);

    const { ann, warnings } = open(dir, v);
    t.after(() => ann.close());
    await ann.open();
    await ann.settled();
    assert.deepEqual(warnings(), []);
    assert.equal(ann.status()?.indexed, 3000);
    assert.deepEqual(await ann.search(query, -1, 10), before);
    // Not written again: the same file.
    assert.equal(verifyAnnFile(path.join(dir, ANN_FILE), MODEL, DIMS).sha256, trailer.sha256);
  });

  /** A folder where testVectors(2000, 3)'s index was built, once: each spoiling test's start. */
  let built2000: Promise<string> | undefined;
  const built2000Dir = tempDir();
  after(() => fs.rmSync(built2000Dir, { recursive: true, force: true }));
  const builtOf2000 = () => {
    built2000 ??= (async () => {
      const dir = built2000Dir;
      const first = open(dir, testVectors(2000, 3)).ann;
      await first.open();
      await first.settled();
      first.close();
      return dir;
    })();
    return built2000;
  };

  for (const [name, spoil] of [
    ['random bytes', (file: string) => fs.writeFileSync(file, Buffer.alloc(70_000, 0x5a))],
    ['a truncated file', (file: string) => fs.truncateSync(file, fs.statSync(file).size - 100)],
    [
      'a flipped byte',
      (file: string) => {
        const bytes = fs.readFileSync(file);
        bytes[1000] = (bytes[1000] as number) ^ 0xff;
        fs.writeFileSync(file, bytes);
      },
    ],
    ['usearch bytes without the trailer', (file: string) => cutTrailer(file)],
  ] as const) {
    it(`ignores ${name} in vectors.ann, and builds it again`, async (t) => {
      const dir = testDir(t);
      const v = testVectors(2000, 3);
      fs.cpSync(await builtOf2000(), dir, { recursive: true });
      const file = path.join(dir, ANN_FILE);
      spoil(file);

      const { ann, warnings } = open(dir, v);
      t.after(() => ann.close());
      await ann.open();
      assert.equal(warnings().length, 1);
      assert.match(warnings()[0]?.msg ?? '', /vectors\.ann is not used/);
      await ann.settled();
      assert.equal(verifyAnnFile(file, MODEL, DIMS).count, 2000);
      const queries = Array.from({ length: 30 }, () => v.draw());
      assert.ok((await recall(ann, v, queries)) >= 0.95);
    });
  }

  it('a file of another model is not used', async (t) => {
    const dir = testDir(t);
    const v = testVectors(1500, 4);
    const first = open(dir, v).ann;
    await first.open();
    await first.settled();
    first.close();
    const other = { ...v, source: { ...v.source, model: 'other/model', size: 1500 } };
    const { ann, warnings } = open(dir, other as TestVectors);
    t.after(() => ann.close());
    await ann.open();
    assert.match(warnings()[0]?.reason ?? '', /model test\/clustered/);
  });

  it('never answers a memory deleted, nor an updated one by its old vector', async (t) => {
    const dir = testDir(t);
    const v = testVectors(5000, 5);
    const { ann } = open(dir, v);
    t.after(() => ann.close());
    await ann.open();
    await ann.settled();
    const query = v.draw();
    const hits = await ann.search(query, -1, 20);
    assert.ok(hits);
    const [gone, changed] = hits.ids as [string, string];
    v.drop(gone);
    ann.removed(gone);
    // Its text changed: a vector far from the query, under a new hash.
    const far = Float32Array.from(query, (x) => -x);
    v.put(changed, far, 'h1');
    ann.changed(changed);
    const after = await ann.search(query, -1, 20);
    assert.ok(after);
    assert.ok(!after.ids.includes(gone));
    assert.ok(!after.ids.includes(changed));
    checkScores(after, v, query);
    // A new memory right at the query is found at once (the exact pass over what the graph lacks).
    v.put('new', query, 'h2');
    ann.changed('new');
    assert.equal((await ann.search(query, -1, 5))?.ids[0], 'new');
    // And its new vector is found by it.
    assert.equal((await ann.search(far, -1, 1))?.ids[0], changed);
  });

  it('keeps recall when a filter keeps a tenth of the store (oversampling)', async () => {
    // The 20,000 of the first test: searching changes nothing in them.
    const [v, ann] = [big, bigAnn];
    await ann.settled();
    const keep = (id: string) => Number(id.slice(1)) % 10 === 0;
    const queries = Array.from({ length: 30 }, () => v.draw());
    for (const query of queries) {
      for (const id of (await ann.search(query, -1, 10, keep))?.ids ?? []) assert.ok(keep(id));
    }
    assert.ok((await recall(ann, v, queries, 10, keep)) >= 0.95);
  });

  it('extends the graph with what changed since it was built, in the background', async (t) => {
    const dir = testDir(t);
    const v = testVectors(2000, 7);
    const { ann } = open(dir, v);
    t.after(() => ann.close());
    await ann.open();
    await ann.settled();
    for (let i = 0; i < 1500; i++) {
      v.put(`n${i}`, v.draw());
      ann.changed(`n${i}`);
    }
    await ann.settled();
    // The 1,000th new vector started a build of those 1,000; the 500 after it are too few for
    // another, and are searched exactly beside the graph.
    assert.equal(ann.status()?.indexed, 3000);
    assert.equal(verifyAnnFile(path.join(dir, ANN_FILE), MODEL, DIMS).count, 3000);
    for (const id of ['n0', 'n1499']) {
      const vector = new Float32Array(DIMS);
      v.source.copyVector(id, vector, 0);
      assert.equal((await ann.search(vector, -1, 1))?.ids[0], id);
    }
  });

  it('a kill -9 while vectors.ann is written leaves the old file or the new one', async (t) => {
    const dir = testDir(t);
    const file = path.join(dir, ANN_FILE);
    const child = path.join(import.meta.dirname, 'ann-write-child.ts');
    const run = (args: string[]) =>
      spawn(process.execPath, [...nodeScript(child), dir, ...args], { stdio: 'pipe' });
    // A first file, whole.
    await new Promise<void>((resolve, reject) => {
      const p = run(['1']);
      p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`child ${code}`))));
    });
    const counts = new Set([verifyAnnFile(file, MODEL, DIMS).count]);
    for (const delay of [5, 40, 120, 300]) {
      const p = run(['50']);
      // Killed once it is writing: it says so on stdout before each write.
      await new Promise<void>((resolve) => {
        p.stdout.once('data', () => setTimeout(() => p.kill('SIGKILL'), delay));
        p.on('exit', () => resolve());
      });
      counts.add(verifyAnnFile(file, MODEL, DIMS).count);
    }
    assert.ok(counts.size >= 1);
    // The store starts correctly over what was left: the file is used or built again.
    const v = testVectors(2000, 8);
    const { ann } = open(dir, v);
    t.after(() => ann.close());
    await ann.open();
    await ann.settled();
    assert.ok((await recall(ann, v, [v.draw(), v.draw()])) >= 0.9);
  });
});

/** Leaves usearch's part of the file only. */
function cutTrailer(file: string): void {
  const bytes = fs.readFileSync(file);
  const metaBytes = bytes.readUInt32LE(bytes.length - 12);
  fs.writeFileSync(file, bytes.subarray(0, bytes.length - 12 - metaBytes));
}
