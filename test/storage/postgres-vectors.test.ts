import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type pg from 'pg';
import pino from 'pino';
import type { EmbeddingProvider } from '../../src/search/embeddings.js';
import { SemanticIndex, textHash } from '../../src/search/semantic-index.js';
import { dequantise, quantise } from '../../src/search/vector-quantise.js';
import { createPool } from '../../src/storage/postgres/database.js';
import { MEMORY_COLUMNS, memoryValues, upsertSql } from '../../src/storage/postgres/rows.js';
import { migrate } from '../../src/storage/postgres/schema.js';
import { PgVectorStore } from '../../src/storage/postgres/vectors.js';
import { type MemoryRecord, newMemoryRecord } from '../../src/storage/records.js';
import type { StoredVector } from '../../src/storage/vector-store.js';
import { eventually, recordingLogger, T0 } from '../support.js';
import { pgSchema, type TestDatabase } from '../support-pg.js';

const DIMS = 8;
const silent = pino({ level: 'silent' });

/** A unit vector that depends only on the text. */
function vectorFor(text: string): Float32Array {
  let seed = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) seed = Math.imul(seed ^ text.charCodeAt(i), 0x01000193);
  const v = new Float32Array(DIMS);
  for (let i = 0; i < DIMS; i++) {
    seed = Math.imul(seed ^ (seed >>> 13), 0x5bd1e995) >>> 0;
    v[i] = seed / 4294967296 - 0.5;
  }
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

/** Counts what it embeds. */
class CountingProvider implements EmbeddingProvider {
  readonly embedded: string[] = [];
  readonly dimensions = DIMS;
  readonly id = 'fake:v1';
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.embedded.push(...texts);
    return texts.map(vectorFor);
  }
}

function sameDirection(actual: Float32Array | undefined, expected: Float32Array, what: string) {
  assert.ok(actual, `${what} has a vector`);
  const cosine = actual.reduce((s, x, i) => s + x * (expected[i] ?? 0), 0);
  assert.ok(cosine > 0.999, `${what}: cosine ${cosine}`);
}

const stored = (id: string, text: string, model = 'fake:v1'): StoredVector => ({
  id,
  model,
  hash: textHash(text),
  ...quantise(vectorFor(text)),
});

const RECORDS: readonly MemoryRecord[] = [
  newMemoryRecord('r0', 'Ralph is the family cat.', T0),
  newMemoryRecord('r1', 'The cabin wifi password is taped inside the fuse box.', T0),
  newMemoryRecord('r2', 'Deploys happen on Tuesdays after the standup.', T0),
];

interface Database {
  db: TestDatabase;
  pool: pg.Pool;
  /** Memories as the engine writes them: a vector's row counts while its memory is there. */
  save(records: readonly MemoryRecord[]): Promise<void>;
}

/** A migrated schema of this test and a pool on it; undefined (skipped) without a server. */
async function database(t: TestContext, migrated = true): Promise<Database | undefined> {
  const db = await pgSchema(t);
  if (!db) return undefined;
  const pool = createPool(db.url, { max: 4 });
  t.after(() => pool.end());
  if (migrated) await migrate(pool, db.url);
  return {
    db,
    pool,
    async save(records) {
      await pool.query(
        upsertSql('mnemo_memories', MEMORY_COLUMNS, records.length),
        records.flatMap((r) => memoryValues(r, 'default')),
      );
    },
  };
}

/** A pool whose server is away while `down` (connections refused), else the real one. */
function flakyPool(pool: pg.Pool) {
  const state = { down: true, queries: 0 };
  const flaky = {
    query: async (text: string, values?: unknown[]) => {
      state.queries++;
      if (state.down) {
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
          code: 'ECONNREFUSED',
        });
      }
      return pool.query(text, values);
    },
  };
  return { pool: flaky as unknown as pg.Pool, state };
}

async function rowsOf(db: TestDatabase) {
  return db.query<{ memory_id: string; content_hash: string }>(
    'SELECT memory_id, content_hash FROM mnemo_vectors ORDER BY memory_id',
  );
}

describe('PgVectorStore', () => {
  it('round-trips vectors through mnemo_vectors: int8 bytes and their scale', async (t) => {
    const d = await database(t);
    if (!d) return;
    await d.save(RECORDS);
    const store = new PgVectorStore({ pool: d.pool, logger: silent });
    const written = RECORDS.map((r) => stored(r.id, r.content));
    store.append(written);
    await store.close();

    const [row] = await d.db.query<{ vector: Buffer; scale: number; model: string }>(
      "SELECT vector, scale, model FROM mnemo_vectors WHERE memory_id = 'r0'",
    );
    assert.equal(row?.model, 'fake:v1');
    assert.deepEqual([...new Int8Array(row?.vector ?? [])], [...(written[0]?.values ?? [])]);

    const seen: StoredVector[] = [];
    const again = new PgVectorStore({ pool: d.pool, logger: silent });
    assert.equal(await again.load((v) => seen.push(v)), 3);
    assert.deepEqual(
      seen.map((v) => v.id),
      ['r0', 'r1', 'r2'],
    );
    for (const [i, v] of seen.entries()) {
      const w = written[i] as StoredVector;
      assert.equal(v.hash, w.hash);
      assert.deepEqual([...v.values], [...w.values], `${v.id}: the same int8 values`);
      assert.equal(Math.fround(v.scale), Math.fround(w.scale), 'the scale, as a real');
      const record = RECORDS[i] as MemoryRecord;
      sameDirection(dequantise(v, DIMS), vectorFor(record.content), v.id);
    }
    await again.close();
  });

  it('reads every row a page at a time; a row whose memory is gone counts, unused', async (t) => {
    const d = await database(t);
    if (!d) return;
    const many = Array.from({ length: 7 }, (_, i) => newMemoryRecord(`m${i}`, `memory ${i}`, T0));
    await d.save(many);
    const store = new PgVectorStore({ pool: d.pool, logger: silent, pageSize: 2 });
    store.append([...many.map((r) => stored(r.id, r.content)), stored('gone', 'deleted')]);
    await store.close();
    const seen: string[] = [];
    const reader = new PgVectorStore({ pool: d.pool, logger: silent, pageSize: 2 });
    assert.equal(await reader.load((v) => seen.push(v.id)), 8);
    assert.deepEqual(
      seen,
      many.map((r) => r.id),
    );
  });

  it('lookup answers the rows of the ids asked; an upsert replaces a memory’s row', async (t) => {
    const d = await database(t);
    if (!d) return;
    const store = new PgVectorStore({ pool: d.pool, logger: silent });
    store.append([stored('r0', 'old text'), stored('r1', 'text one')]);
    store.append([stored('r0', 'new text')]);
    await store.close();
    const reader = new PgVectorStore({ pool: d.pool, logger: silent });
    const found = await reader.lookup(['r0', 'nobody']);
    assert.deepEqual(
      found.map((v) => [v.id, v.hash]),
      [['r0', textHash('new text')]],
    );
    assert.deepEqual(await reader.lookup([]), []);
    assert.equal((await rowsOf(d.db)).length, 2);
  });

  it('compact deletes only the rows of memories gone from the database', async (t) => {
    const d = await database(t);
    if (!d) return;
    await d.save(RECORDS);
    const store = new PgVectorStore({ pool: d.pool, logger: silent });
    store.append([...RECORDS.map((r) => stored(r.id, r.content)), stored('gone', 'deleted')]);
    await store.close();
    const other = new PgVectorStore({ pool: d.pool, logger: silent });
    // `live` is what this process holds: one memory; the others are another namespace's.
    other.compact([stored('r0', RECORDS[0]?.content ?? '')]);
    await other.close();
    assert.deepEqual(
      (await rowsOf(d.db)).map((r) => r.memory_id),
      ['r0', 'r1', 'r2'],
    );
  });

  it('while the database is away: nothing thrown, one warning, the vectors written once back', async (t) => {
    const d = await database(t);
    if (!d) return;
    const { logger, warnings } = recordingLogger();
    const flaky = flakyPool(d.pool);
    const store = new PgVectorStore({ pool: flaky.pool, logger, retryMs: 60_000 });
    assert.equal(await store.load(() => assert.fail('nothing to read')), 0);
    assert.deepEqual(await store.lookup(['r0']), []);
    assert.equal(warnings().length, 1, 'the load says it could not read');

    store.append([stored('r0', 'zero')]);
    store.append([stored('r1', 'one')]);
    await eventually(() => warnings().length === 2, 'the write to fail');
    assert.equal(store.backlog, 2, 'the vectors wait');
    const queries = flaky.state.queries;
    store.append([stored('r0', 'zero, changed')]);
    assert.equal(flaky.state.queries, queries, 'no write until the retry is due');
    assert.equal(store.backlog, 2);

    flaky.state.down = false;
    await store.close();
    assert.equal(store.backlog, 0);
    assert.deepEqual(
      (await rowsOf(d.db)).map((r) => [r.memory_id, r.content_hash]),
      [
        ['r0', textHash('zero, changed')],
        ['r1', textHash('one')],
      ],
    );
    assert.equal(warnings().length, 2, 'one warning for the outage');
  });

  it('writes again by itself once the retry is due', async (t) => {
    const d = await database(t);
    if (!d) return;
    const flaky = flakyPool(d.pool);
    const store = new PgVectorStore({ pool: flaky.pool, logger: silent, retryMs: 0 });
    t.after(() => store.close());
    store.append([stored('r0', 'zero')]);
    await eventually(() => flaky.state.queries > 0, 'the first write');
    flaky.state.down = false;
    await eventually(() => store.backlog === 0, 'the retry');
    assert.equal((await rowsOf(d.db)).length, 1);
  });

  it('a statement the server refuses drops those vectors with a warning', async (t) => {
    const d = await database(t, false);
    if (!d) return;
    const { logger, warnings } = recordingLogger();
    const store = new PgVectorStore({ pool: d.pool, logger });
    store.append([stored('r0', 'zero')]);
    await store.close();
    assert.equal(store.backlog, 0);
    assert.equal(warnings().length, 1);
    assert.match(warnings()[0]?.msg ?? '', /computed again/);
  });
});

describe('SemanticIndex on PostgreSQL', () => {
  function replica(pool: pg.Pool, provider: EmbeddingProvider, records: readonly MemoryRecord[]) {
    const index = new SemanticIndex({
      dataDir: '/nonexistent',
      logger: silent,
      provider: Promise.resolve(provider),
      store: new PgVectorStore({ pool, logger: silent }),
    });
    for (const r of records) index.upsert(r.id, r.content);
    return index;
  }

  it('a second replica adopts the first one’s vectors instead of embedding them', async (t) => {
    const d = await database(t);
    if (!d) return;
    await d.save(RECORDS);
    const first = new CountingProvider();
    const a = replica(d.pool, first, RECORDS);
    await a.ready;
    await a.drain();
    assert.equal(first.embedded.length, 3);
    await a.close();

    // At start: read with the rest.
    const second = new CountingProvider();
    const b = replica(d.pool, second, RECORDS);
    t.after(() => b.close());
    await b.ready;
    await b.drain();
    assert.deepEqual(second.embedded, []);
    for (const r of RECORDS) sameDirection(b.vectorOf(r.id), vectorFor(r.content), r.id);

    // Later: a memory the first replica saved and embedded, learned of through the change feed.
    const later = newMemoryRecord('r3', 'Coffee beans are in the blue tin.', T0);
    const changed = newMemoryRecord('r1', 'The wifi password changed to hunter2.', T0);
    await d.save([later, changed]);
    const third = new CountingProvider();
    const c = replica(d.pool, third, [later]);
    await c.ready;
    await c.drain();
    await c.close();
    assert.deepEqual(third.embedded, [later.content]);

    b.upsert(later.id, later.content);
    await b.drain();
    assert.deepEqual(second.embedded, [], 'r3 adopted from the table');
    sameDirection(b.vectorOf('r3'), vectorFor(later.content), 'r3');

    // A stored vector of the old text is not taken for the new one.
    b.upsert(changed.id, changed.content);
    await b.drain();
    assert.deepEqual(second.embedded, [changed.content]);
    sameDirection(b.vectorOf('r1'), vectorFor(changed.content), 'r1');
    await b.close();
    const rows = await rowsOf(d.db);
    assert.equal(rows.find((r) => r.memory_id === 'r1')?.content_hash, textHash(changed.content));
    assert.equal(rows.length, 4);
  });

  it('keeps the vectors it computed while the database is away', async (t) => {
    const d = await database(t);
    if (!d) return;
    const flaky = flakyPool(d.pool);
    const provider = new CountingProvider();
    const index = new SemanticIndex({
      dataDir: '/nonexistent',
      logger: silent,
      provider: Promise.resolve(provider),
      store: new PgVectorStore({ pool: flaky.pool, logger: silent, retryMs: 60_000 }),
    });
    for (const r of RECORDS) index.upsert(r.id, r.content);
    await index.ready;
    await index.drain();
    assert.equal(provider.embedded.length, 3);
    for (const r of RECORDS) sameDirection(index.vectorOf(r.id), vectorFor(r.content), r.id);
    const hits = await index.search(vectorFor(RECORDS[1]?.content ?? ''), 0.999);
    assert.deepEqual(hits.ids, ['r1']);
    flaky.state.down = false;
    await index.close();
    assert.equal((await rowsOf(d.db)).length, 3, 'written at close, once back');
  });
});
