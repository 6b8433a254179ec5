import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import pino from 'pino';
import type { EmbeddingProvider } from '../../src/search/embeddings.js';
import { SemanticIndex, textHash } from '../../src/search/semantic-index.js';
import { dequantise, quantise } from '../../src/search/vector-quantise.js';
import { JsonlVectorStore, VECTORS_FILE } from '../../src/storage/jsonl/vectors.js';
import { type MemoryRecord, newMemoryRecord } from '../../src/storage/records.js';
import type { StoredVector, VectorStore } from '../../src/storage/vector-store.js';
import { eventually, recordingLogger, T0 } from '../support.js';

const DIMS = 8;

/** A unit vector that depends only on the text: from a seeded generator over an FNV-1a hash. */
function vectorFor(text: string): Float32Array {
  let seed = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) seed = Math.imul(seed ^ text.charCodeAt(i), 0x01000193);
  const v = new Float32Array(DIMS);
  let norm = 0;
  for (let i = 0; i < DIMS; i++) {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    v[i] = ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
    norm += (v[i] as number) ** 2;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < DIMS; i++) (v[i] as number) /= norm;
  return v;
}

/** Counts what it embeds; `gate`, when set, holds every call until it resolves. */
class FakeProvider implements EmbeddingProvider {
  readonly embedded: string[] = [];
  gate: Promise<void> | undefined;
  readonly dimensions = DIMS;
  constructor(readonly id = 'fake:v1') {}
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.embedded.push(...texts);
    if (this.gate) await this.gate;
    return texts.map(vectorFor);
  }
}

function deferred<T>() {
  let resolve: (value: T) => void = () => {};
  let reject: (error: Error) => void = () => {};
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);

/** A vector read back from the sidecar is int8: the same direction to well within 1%. */
function sameDirection(actual: Float32Array | undefined, expected: Float32Array, what: string) {
  assert.ok(actual, `${what} has a vector`);
  assert.equal(actual.length, expected.length);
  const c = cosine(actual, expected);
  assert.ok(c > 0.999, `${what}: cosine ${c}`);
}

/** What the retriever gives the index for a memory without a note: its id and content. */
const textOf = (record: MemoryRecord) => [record.id, record.content] as const;

const RECORDS: readonly MemoryRecord[] = [
  newMemoryRecord('r0', 'Ralph is the family cat.', T0),
  newMemoryRecord('r1', 'The cabin wifi password is taped inside the fuse box.', T0),
  newMemoryRecord('r2', 'Deploys happen on Tuesdays after the standup.', T0),
];

describe('SemanticIndex', () => {
  let dir: string;
  let open: SemanticIndex[];
  const logger = pino({ level: 'silent' });

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-semantic-'));
    open = [];
  });
  afterEach(() => {
    for (const index of open) index.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function start(
    provider: EmbeddingProvider | null | Promise<EmbeddingProvider | null>,
    records: readonly MemoryRecord[] = RECORDS,
  ): SemanticIndex {
    const index = new SemanticIndex({
      dataDir: dir,
      logger,
      provider: Promise.resolve(provider),
      store: new JsonlVectorStore(path.join(dir, VECTORS_FILE), logger),
    });
    open.push(index);
    // As the store does: every record it loads, before the model is there.
    for (const r of records) index.upsert(...textOf(r));
    return index;
  }

  /** A first index over RECORDS, drained and closed: vectors.jsonl holds their vectors. */
  async function seed(): Promise<FakeProvider> {
    const provider = new FakeProvider();
    const index = start(provider);
    await index.ready;
    await index.drain();
    assert.equal(provider.embedded.length, RECORDS.length);
    index.close();
    return provider;
  }

  const sidecar = () => path.join(dir, VECTORS_FILE);
  const sidecarLines = () =>
    fs
      .readFileSync(sidecar(), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { id: string; model: string; hash: string });

  it('computes a vector for every upserted memory once ready and drained', async () => {
    const provider = new FakeProvider();
    const index = start(provider);
    await index.ready;
    await index.drain();
    assert.deepEqual([...provider.embedded].sort(), RECORDS.map((r) => r.content).sort());
    for (const r of RECORDS) sameDirection(index.vectorOf(r.id), vectorFor(r.content), r.id);
    assert.deepEqual(index.status(), { state: 'ready', model: 'fake:v1', vectors: 3, backlog: 0 });
    assert.equal(index.model, 'fake:v1');
    assert.equal(index.enabled, true);

    // Each vector is on disk, keyed by id, model and content hash.
    assert.equal(VECTORS_FILE, 'vectors.jsonl');
    const lines = sidecarLines();
    assert.deepEqual(
      lines.map((l) => [l.id, l.model, l.hash]).sort(),
      RECORDS.map((r) => [r.id, 'fake:v1', textHash(r.content)]).sort(),
    );

    // A memory saved later waits in the backlog until a drain.
    const later = newMemoryRecord('r3', 'Coffee beans are in the blue tin.', T0);
    index.upsert(...textOf(later));
    assert.equal(index.backlog, 1);
    assert.equal(index.vectorOf('r3'), undefined);
    await index.drain();
    sameDirection(index.vectorOf('r3'), vectorFor(later.content), 'r3');
    assert.equal(provider.embedded.at(-1), later.content);
    assert.equal(index.size, 4);
  });

  it('search answers the memories close to a vector, with their cosines', async () => {
    const index = start(new FakeProvider());
    await index.ready;
    await index.drain();
    const query = vectorFor(RECORDS[1]?.content ?? '');
    const hits = await index.search(query, 0.999);
    assert.deepEqual(hits.ids, ['r1']);
    // Rows are int8 (as the vector store keeps them): a vector's cosine to itself is 1 within 1e-3.
    assert.ok(Math.abs((hits.sims[0] as number) - 1) < 1e-3);
    const all = await index.search(query, -2);
    assert.deepEqual([...all.ids].sort(), ['r0', 'r1', 'r2']);
  });

  it('a search waits for a small backlog before answering', async () => {
    const provider = new FakeProvider();
    const index = start(provider, []);
    await index.ready;
    index.upsert(...textOf(RECORDS[0] as MemoryRecord));
    assert.equal(index.backlog, 1);
    const hits = await index.search(vectorFor(RECORDS[0]?.content ?? ''), 0.999);
    assert.deepEqual(hits.ids, ['r0']);
    assert.equal(index.backlog, 0);
  });

  it('a second index over the same data dir and model embeds nothing for unchanged content', async () => {
    await seed();
    const provider = new FakeProvider();
    const index = start(provider);
    await index.ready;
    await index.drain();
    assert.equal(provider.embedded.length, 0);
    assert.equal(index.size, 3);
    assert.equal(index.backlog, 0);
    for (const r of RECORDS) sameDirection(index.vectorOf(r.id), vectorFor(r.content), r.id);
    const hits = await index.search(vectorFor(RECORDS[2]?.content ?? ''), 0.99);
    assert.deepEqual(hits.ids, ['r2']);
    assert.equal(sidecarLines().length, 3, 'nothing appended');
  });

  it('a memory changed or gone while the stored vectors are read keeps no vector of its old text', async () => {
    await seed();
    const provider = new FakeProvider();
    const store = new JsonlVectorStore(sidecar(), logger);
    // The store hands over its first vector, then waits: the memories change meanwhile.
    let resume: () => void = () => {};
    let paused: () => void = () => {};
    const pausedAt = new Promise<void>((resolve) => {
      paused = resolve;
    });
    const gated: typeof store = Object.assign(Object.create(store), {
      load: async (visit: Parameters<typeof store.load>[0]) => {
        const held: Parameters<typeof visit>[0][] = [];
        const entries = await store.load((v) => held.push(v));
        for (const [i, vector] of held.entries()) {
          visit(vector);
          if (i === 1) {
            paused();
            await new Promise<void>((resolve) => {
              resume = resolve;
            });
          }
        }
        return entries;
      },
    });
    const index = new SemanticIndex({
      dataDir: dir,
      logger,
      provider: Promise.resolve(provider),
      store: gated,
    });
    open.push(index);
    for (const r of RECORDS) index.upsert(...textOf(r));
    await pausedAt;
    // r0 and r1 were read into the index already; r2 not yet.
    const changed = newMemoryRecord('r0', 'The boat is moored at pier seven now.', T0);
    index.upsert(...textOf(changed));
    index.remove('r1');
    resume();
    await index.ready;
    await index.drain();
    assert.deepEqual(provider.embedded, [changed.content], 'only the changed text is embedded');
    sameDirection(index.vectorOf('r0'), vectorFor(changed.content), 'r0');
    assert.equal(index.vectorOf('r1'), undefined, 'a memory gone has no vector');
    sameDirection(index.vectorOf('r2'), vectorFor(RECORDS[2]?.content ?? ''), 'r2');
    assert.equal(index.size, 2);
  });

  it('re-embeds only the memory whose content changed', async () => {
    await seed();
    const provider = new FakeProvider();
    const changed = newMemoryRecord('r1', 'The wifi password changed to hunter2.', T0);
    const index = start(provider, [RECORDS[0], changed, RECORDS[2]] as MemoryRecord[]);
    await index.ready;
    await index.drain();
    assert.deepEqual(provider.embedded, [changed.content]);
    sameDirection(index.vectorOf('r1'), vectorFor(changed.content), 'r1');
    sameDirection(index.vectorOf('r0'), vectorFor(RECORDS[0]?.content ?? ''), 'r0');
    const r1Lines = sidecarLines().filter((l) => l.id === 'r1');
    assert.equal(r1Lines.at(-1)?.hash, textHash(changed.content), 'the last line for r1 wins');
  });

  it('a content change while running re-embeds that memory; the same content does not', async () => {
    const provider = new FakeProvider();
    const index = start(provider);
    await index.ready;
    await index.drain();
    index.upsert(...textOf({ ...(RECORDS[0] as MemoryRecord), use_count: 5 }));
    assert.equal(index.backlog, 0, 'a touch changes no content');
    const changed = newMemoryRecord('r0', 'Ralph is the neighbour’s cat.', T0);
    index.upsert(...textOf(changed));
    assert.equal(index.vectorOf('r0'), undefined, 'the old vector is dropped at once');
    await index.drain();
    assert.equal(provider.embedded.length, 4);
    sameDirection(index.vectorOf('r0'), vectorFor(changed.content), 'r0');
  });

  it('keeps the newest content when it changes while the model is embedding the old one', async () => {
    const provider = new FakeProvider();
    const gate = deferred<void>();
    provider.gate = gate.promise;
    const index = start(provider);
    await index.ready;
    // The first batch is with the model now: change one memory and remove another meanwhile.
    const changed = newMemoryRecord('r0', 'Ralph moved out last spring.', T0);
    index.upsert(...textOf(changed));
    index.remove((RECORDS[2] as MemoryRecord).id);
    gate.resolve();
    await index.drain();
    sameDirection(index.vectorOf('r0'), vectorFor(changed.content), 'r0');
    assert.equal(index.vectorOf('r2'), undefined);
    assert.equal(index.size, 2);
    assert.ok(!sidecarLines().some((l) => l.id === 'r2'), 'no vector written for a removed one');
  });

  it('a different model id embeds everything again', async () => {
    await seed();
    const provider = new FakeProvider('fake:v2');
    const index = start(provider);
    await index.ready;
    await index.drain();
    assert.deepEqual([...provider.embedded].sort(), RECORDS.map((r) => r.content).sort());
    assert.equal(index.status().model, 'fake:v2');
    assert.equal(index.size, 3);
  });

  it('rewrites the sidecar at start when stale lines outnumber live ones', async () => {
    await seed();
    const provider = new FakeProvider('fake:v2');
    const only = RECORDS[0] as MemoryRecord;
    const index = start(provider, [only]);
    await index.ready;
    await eventually(
      () => sidecarLines().length === 1,
      'the three lines of the old model to be dropped',
    );
    assert.deepEqual(
      sidecarLines().map((l) => [l.id, l.model, l.hash]),
      [[only.id, 'fake:v2', textHash(only.content)]],
    );
    // The rewritten file is the one appended to from then on.
    index.upsert(...textOf({ ...only, content: 'something else entirely' }));
    await index.drain();
    assert.equal(sidecarLines().length, 2);
  });

  it('remove drops the vector', async () => {
    const index = start(new FakeProvider());
    await index.ready;
    await index.drain();
    const gone = RECORDS[1] as MemoryRecord;
    index.remove(gone.id);
    assert.equal(index.vectorOf(gone.id), undefined);
    assert.equal(index.size, 2);
    const hits = await index.search(vectorFor(gone.content), -2);
    assert.ok(!hits.ids.includes(gone.id));
    assert.equal(hits.ids.length, 2);
  });

  it('ignores a torn last line of vectors.jsonl and loads the rest', async () => {
    await seed();
    fs.appendFileSync(sidecar(), '{"id":"r1","model":"fake:v1","hash":"zz","v":"AAEC');
    const provider = new FakeProvider();
    const index = start(provider);
    await index.ready;
    await index.drain();
    assert.equal(provider.embedded.length, 0, 'nothing embedded again');
    for (const r of RECORDS) sameDirection(index.vectorOf(r.id), vectorFor(r.content), r.id);
    // The torn bytes are cut off, so what is appended next starts on a line of its own.
    assert.ok(fs.readFileSync(sidecar(), 'utf8').endsWith('}\n'));
    index.upsert(...textOf(newMemoryRecord('r3', 'A new memory after the crash.', T0)));
    await index.drain();
    assert.deepEqual(
      sidecarLines().map((l) => l.id),
      ['r0', 'r1', 'r2', 'r3'],
      'every line parses',
    );
  });

  it('reindex({ all }) embeds every memory again and reports progress up to (total, total)', async () => {
    const many = Array.from({ length: 70 }, (_, i) =>
      newMemoryRecord(`m${i}`, `memory number ${i}`, T0),
    );
    const provider = new FakeProvider();
    const index = start(provider, many);
    await index.ready;
    await index.drain();
    assert.equal(provider.embedded.length, 70);

    const progress: [number, number][] = [];
    const result = await index.reindex({
      all: true,
      onProgress: (done, total) => progress.push([done, total]),
    });
    assert.deepEqual(result, { model: 'fake:v1', embedded: 70, total: 70 });
    assert.equal(provider.embedded.length, 140);
    assert.deepEqual(progress.at(-1), [70, 70]);
    assert.deepEqual(progress[0], [0, 70]);
    assert.ok(progress.length >= 3, 'more than one batch reported');
    for (let i = 1; i < progress.length; i++) {
      assert.ok((progress[i]?.[0] ?? 0) >= (progress[i - 1]?.[0] ?? 0), 'done never goes back');
    }
    assert.equal(index.size, 70);
    for (const r of many) sameDirection(index.vectorOf(r.id), vectorFor(r.content), r.id);

    // Nothing missing: a plain reindex embeds nothing.
    const again = await index.reindex();
    assert.deepEqual(again, { model: 'fake:v1', embedded: 0, total: 70 });
    assert.equal(provider.embedded.length, 140);
  });

  it('reindex right after ready counts and reports the vectors the background drain is computing', async () => {
    const provider = new FakeProvider();
    const index = start(provider);
    await index.ready;
    const progress: [number, number][] = [];
    const result = await index.reindex({ onProgress: (d, t) => progress.push([d, t]) });
    assert.equal(provider.embedded.length, 3);
    assert.deepEqual(result, { model: 'fake:v1', embedded: 3, total: 3 });
    assert.deepEqual(progress.at(-1), [3, 3]);
  });

  it('a reset followed by the same records (another process compacted) embeds nothing again', async () => {
    const provider = new FakeProvider();
    const index = start(provider);
    await index.ready;
    await index.drain();
    index.reset();
    for (const r of RECORDS) index.upsert(...textOf(r));
    await index.drain();
    assert.equal(index.size, 3);
    assert.equal(provider.embedded.length, 3, 'unchanged content is not embedded twice');
  });

  it('adopt stores a vector computed elsewhere without calling the provider', async () => {
    const provider = new FakeProvider();
    const index = start(provider, []);
    await index.ready;
    const record = RECORDS[0] as MemoryRecord;
    index.upsert(...textOf(record));
    assert.equal(index.backlog, 1);
    const vector = vectorFor(record.content);
    index.adopt(record.id, record.content, vector);
    sameDirection(index.vectorOf(record.id), vector, record.id);
    assert.equal(index.backlog, 0);
    await index.drain();
    assert.equal(provider.embedded.length, 0);
    assert.deepEqual(
      sidecarLines().map((l) => [l.id, l.hash]),
      [[record.id, textHash(record.content)]],
    );

    // A vector of other content, or of an unknown memory, is not taken.
    const other = RECORDS[1] as MemoryRecord;
    index.upsert(...textOf(other));
    index.adopt(other.id, 'not what the memory says', vectorFor('x'));
    index.adopt('nobody', 'whatever', vectorFor('y'));
    assert.equal(index.vectorOf(other.id), undefined);
    assert.equal(index.vectorOf('nobody'), undefined);
    assert.equal(index.backlog, 1);
    index.close();

    // The adopted vector is reused by the next process.
    const next = new FakeProvider();
    const reopened = start(next, [record]);
    await reopened.ready;
    await reopened.drain();
    assert.equal(next.embedded.length, 0);
    sameDirection(reopened.vectorOf(record.id), vector, 'adopted');
  });

  it('embed answers null while the model loads, then the model’s vectors', async () => {
    const pending = deferred<EmbeddingProvider | null>();
    const index = start(pending.promise, []);
    assert.equal(index.status().state, 'loading');
    assert.equal(index.status().model, null);
    assert.equal(await index.embed(['anything']), null);
    assert.deepEqual(await index.search(vectorFor('anything'), -2), { ids: [], sims: [] });

    const provider = new FakeProvider();
    pending.resolve(provider);
    await index.ready;
    assert.deepEqual(index.status(), { state: 'ready', model: 'fake:v1', vectors: 0, backlog: 0 });
    assert.deepEqual(await index.embed(['anything']), [vectorFor('anything')]);
    assert.deepEqual(provider.embedded, ['anything']);
  });

  it('the records upserted while loading are embedded once the model is there', async () => {
    const pending = deferred<EmbeddingProvider | null>();
    const index = start(pending.promise);
    assert.equal(index.backlog, 0, 'nothing to compute without a model');
    const provider = new FakeProvider();
    pending.resolve(provider);
    await index.ready;
    await index.drain();
    assert.equal(index.status().vectors, 3);
    assert.equal(provider.embedded.length, 3);
  });

  it('a provider that resolves to null turns embeddings off: no vectors, no hits', async () => {
    const pending = deferred<EmbeddingProvider | null>();
    const index = start(pending.promise);
    pending.resolve(null);
    await index.ready;
    assert.deepEqual(index.status(), { state: 'off', model: null, vectors: 0, backlog: 0 });
    assert.equal(index.enabled, false);
    assert.equal(await index.embed(['x']), null);
    assert.deepEqual(await index.search(vectorFor('x'), -2), { ids: [], sims: [] });
    assert.deepEqual(await index.reindex({ all: true }), { model: null, embedded: 0, total: 3 });
    assert.deepEqual(await index.entries(), []);
    assert.equal(fs.existsSync(sidecar()), false, 'no sidecar written');
  });

  it('a provider that fails to load turns embeddings off as well', async () => {
    const pending = deferred<EmbeddingProvider | null>();
    const index = start(pending.promise);
    pending.reject(new Error('no model here'));
    await index.ready;
    assert.equal(index.status().state, 'off');
    assert.deepEqual(await index.search(vectorFor('x'), -2), { ids: [], sims: [] });
  });
});

describe('SemanticIndex and its vector store', () => {
  const logger = pino({ level: 'silent' });

  /** A store shared like a database: what one index appends, another finds by lookup. */
  class SharedStore implements VectorStore {
    readonly asked: string[][] = [];
    closed = false;
    constructor(readonly rows = new Map<string, StoredVector>()) {}
    async load(visit: (vector: StoredVector) => void): Promise<number> {
      for (const row of this.rows.values()) visit(row);
      return this.rows.size;
    }
    async lookup(ids: readonly string[]): Promise<StoredVector[]> {
      this.asked.push([...ids]);
      return ids.flatMap((id) => this.rows.get(id) ?? []);
    }
    append(vectors: readonly StoredVector[]): void {
      for (const v of vectors) this.rows.set(v.id, v);
    }
    compact(): void {}
    async close(): Promise<void> {
      this.closed = true;
    }
  }

  const stored = (id: string, text: string, model = 'fake:v1'): StoredVector => ({
    id,
    model,
    hash: textHash(text),
    ...quantise(vectorFor(text)),
  });

  async function running(store: VectorStore, provider: FakeProvider, records = RECORDS) {
    const index = new SemanticIndex({
      dataDir: '/nonexistent',
      logger,
      provider: Promise.resolve(provider),
      store,
    });
    for (const r of records) index.upsert(...textOf(r));
    await index.ready;
    await index.drain();
    return index;
  }

  it('keeps vectors.jsonl lines as {id, model, hash, v: int8 in base64, s: scale}', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-semantic-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const record = RECORDS[0] as MemoryRecord;
    const index = new SemanticIndex({
      dataDir: dir,
      logger,
      provider: Promise.resolve(new FakeProvider()),
      store: new JsonlVectorStore(path.join(dir, VECTORS_FILE), logger),
    });
    index.upsert(...textOf(record));
    await index.ready;
    await index.drain();
    await index.close();
    const { values, scale } = quantise(vectorFor(record.content));
    const v = Buffer.from(values.buffer).toString('base64');
    assert.equal(
      fs.readFileSync(path.join(dir, VECTORS_FILE), 'utf8'),
      `{"id":"r0","model":"fake:v1","hash":"${textHash(record.content)}","v":"${v}","s":${scale}}\n`,
    );
  });

  it('the JSONL store skips lines it cannot use, warns once, and loads the rest', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-semantic-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, VECTORS_FILE);
    const good = stored('r0', 'Ralph is the family cat.');
    const line = (v: StoredVector) =>
      JSON.stringify({
        id: v.id,
        model: v.model,
        hash: v.hash,
        v: Buffer.from(v.values.buffer).toString('base64'),
        s: v.scale,
      });
    fs.writeFileSync(file, `not json\n{"id":"r1","model":"fake:v1"}\n${line(good)}\n{"id":`);
    const { logger: recording, warnings } = recordingLogger();
    const store = new JsonlVectorStore(file, recording);
    const seen: StoredVector[] = [];
    assert.equal(await store.load((v) => seen.push(v)), 2, 'the two lines that parse count');
    assert.deepEqual(
      seen.map((v) => [v.id, v.hash, [...v.values], v.scale]),
      [[good.id, good.hash, [...good.values], good.scale]],
    );
    assert.equal(warnings().length, 1);
    assert.deepEqual(
      await store.lookup(['r0']),
      [],
      'one process owns the file: nothing new to find',
    );
    await store.close();
    assert.ok(fs.readFileSync(file, 'utf8').endsWith('}\n'), 'the torn tail is cut off');
  });

  it('adopts a vector another process stored since the load instead of embedding it', async () => {
    const store = new SharedStore();
    const provider = new FakeProvider();
    const index = await running(store, provider);
    assert.equal(provider.embedded.length, 3);
    assert.equal(store.rows.size, 3, 'what it computed is stored');

    // Another replica saved r3 and stored its vector; this one learns of the memory after.
    const later = newMemoryRecord('r3', 'Coffee beans are in the blue tin.', T0);
    store.rows.set('r3', stored('r3', later.content));
    index.upsert(...textOf(later));
    await index.drain();
    assert.equal(provider.embedded.length, 3, 'nothing embedded for r3');
    assert.deepEqual(store.asked.at(-1), ['r3']);
    sameDirection(index.vectorOf('r3'), vectorFor(later.content), 'r3');
    await index.close();
    assert.ok(store.closed, 'the index closes its store');
  });

  it('embeds what is stored for another text or another model', async () => {
    const store = new SharedStore();
    const provider = new FakeProvider();
    const index = await running(store, provider, []);
    const changed = newMemoryRecord('r1', 'The wifi password changed to hunter2.', T0);
    const other = newMemoryRecord('r2', 'Deploys happen on Tuesdays after the standup.', T0);
    store.rows.set('r1', stored('r1', 'The cabin wifi password is taped inside the fuse box.'));
    store.rows.set('r2', stored('r2', other.content, 'fake:v0'));
    index.upsert(...textOf(changed));
    index.upsert(...textOf(other));
    await index.drain();
    assert.deepEqual(provider.embedded, [changed.content, other.content]);
    sameDirection(index.vectorOf('r1'), vectorFor(changed.content), 'r1');
    assert.equal(store.rows.get('r1')?.hash, textHash(changed.content), 'the new one stored');
    assert.equal(store.rows.get('r2')?.model, 'fake:v1');
    await index.close();
  });

  it('reindex({ all }) embeds every memory again, whatever the store holds', async () => {
    const store = new SharedStore();
    const provider = new FakeProvider();
    const index = await running(store, provider);
    const asked = store.asked.length;
    const result = await index.reindex({ all: true });
    assert.deepEqual(result, { model: 'fake:v1', embedded: 3, total: 3 });
    assert.equal(provider.embedded.length, 6);
    assert.equal(store.asked.length, asked, 'no lookup for a vector to compute anyway');
    await index.close();
  });

  it('a store that fails to look up costs a computation, not the vector', async () => {
    const store = new SharedStore();
    store.lookup = async () => {
      throw new Error('the database is away');
    };
    const provider = new FakeProvider();
    const index = await running(store, provider);
    assert.equal(provider.embedded.length, 3);
    for (const r of RECORDS) sameDirection(index.vectorOf(r.id), vectorFor(r.content), r.id);
    await index.close();
  });

  it('the stored vectors seen at start are taken without a lookup', async () => {
    const store = new SharedStore(new Map(RECORDS.map((r) => [r.id, stored(r.id, r.content)])));
    const provider = new FakeProvider();
    const index = await running(store, provider);
    assert.equal(provider.embedded.length, 0);
    assert.deepEqual(store.asked, []);
    for (const r of RECORDS) sameDirection(index.vectorOf(r.id), vectorFor(r.content), r.id);
    const back = dequantise(stored('x', 'some text'), DIMS);
    sameDirection(back, vectorFor('some text'), 'dequantise(quantise(v))');
    assert.equal(dequantise(stored('x', 'some text'), DIMS + 1), undefined, 'a wrong length');
    await index.close();
  });
});
