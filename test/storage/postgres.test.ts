import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { TransientError } from '../../src/platform/errors.js';
import { DatabaseError } from '../../src/storage/postgres/database.js';
import { PostgresStore } from '../../src/storage/postgres/engine.js';
import { MIGRATIONS, schemaStatus } from '../../src/storage/postgres/schema.js';
import {
  type MemoryRecord,
  newMemoryRecord,
  OTHER_FIELDS,
  type RelationRecord,
} from '../../src/storage/records.js';
import { openStore, pgSchema, proxyTo, STORE_T0, TEST_DATABASE_URL } from '../support-pg.js';

const T0 = STORE_T0;

const save = (store: { transact: PostgresStore['transact'] }, ...records: MemoryRecord[]) =>
  store.transact(() => ({ result: undefined, memories: records }));

/** Resolves once `store` holds memory `id` satisfying `test`: told by its own listener. */
function seen(
  store: PostgresStore,
  id: string,
  test: (r: MemoryRecord | undefined) => boolean = (r) => r !== undefined,
  ns?: string,
): Promise<void> {
  const view = ns ? store.namespace(ns) : store;
  return new Promise((resolve) => {
    if (test(view.memories.get(id))) return resolve();
    view.subscribe({
      upsert: (record) => {
        if (record.id === id && test(record)) resolve();
      },
      remove: (previous) => {
        if (previous.id === id && test(undefined)) resolve();
      },
      reset: () => {},
    });
  });
}

describe('PostgresStore', () => {
  it('applies the migrations once, and keeps each record as written, unknown fields too', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const store = await openStore(t, db.url);
    const status = await schemaStatus(await pgPoolOf(t, db.url));
    assert.equal(status.version, status.latest);
    assert.deepEqual(status.pending, []);
    const record = {
      ...newMemoryRecord('m1', 'the cat sat', T0, { entities: ['cat'], use_count: 3 }),
      [OTHER_FIELDS]: { embed: [0.5, 0.25] },
    };
    record.meta = { ...record.meta, tags: ['pets'], [OTHER_FIELDS]: { colour: 'red' } };
    await save(store, record);
    await store.transact(() => ({
      result: undefined,
      relations: [
        {
          id: 'r1',
          from_memory_id: 'm1',
          to_memory_id: 'm1',
          relation_type: 'related',
          strength: 0.5,
          created_at: T0,
          metadata: { why: 'test' },
        },
      ],
    }));
    await store.close();
    const again = await openStore(t, db.url);
    assert.deepEqual(again.memories.get('m1'), record);
    assert.equal(again.memories.get('m1')?.[OTHER_FIELDS]?.embed?.toString(), '0.5,0.25');
    assert.equal(again.relationsOf('m1').length, 1);
    // Each migration once, however often the store is opened.
    assert.equal(
      (await db.query('SELECT count(*)::int AS n FROM mnemo_schema'))[0]?.n,
      MIGRATIONS.length,
    );
  });

  it('follows the other replica: a save through A is seen by B, and so is a delete', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const a = await openStore(t, db.url);
    const b = await openStore(t, db.url);
    const arrived = seen(b, 'x');
    await save(a, newMemoryRecord('x', 'from a', T0));
    await arrived;
    assert.equal(b.memories.get('x')?.content, 'from a');
    const gone = seen(b, 'x', (r) => r === undefined);
    await a.transact(() => ({
      result: undefined,
      deletes: ['x'],
      forgotten: [a.memories.get('x') as MemoryRecord],
    }));
    await gone;
    assert.equal((await b.findForgotten('x'))?.content, 'from a');
    assert.equal(b.versionOf(), a.versionOf());
  });

  it('follows the relations of the other replica too: made, changed and deleted', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const a = await openStore(t, db.url);
    const b = await openStore(t, db.url);
    const relation = (strength: number): RelationRecord => ({
      id: 'r1',
      from_memory_id: 'x',
      to_memory_id: 'y',
      relation_type: 'related',
      strength,
      created_at: T0,
      metadata: {},
    });
    // B has applied every change up to a memory saved after them (a namespace's changes are
    // applied in order).
    const after = async (marker: string, mutation: Parameters<PostgresStore['transact']>[0]) => {
      const arrived = seen(b, marker);
      await a.transact(mutation);
      await save(a, newMemoryRecord(marker, marker, T0));
      await arrived;
    };
    await save(a, newMemoryRecord('x', 'x', T0), newMemoryRecord('y', 'y', T0));
    await after('m1', () => ({ result: undefined, relations: [relation(0.5)] }));
    assert.equal(b.relations.get('r1')?.strength, 0.5);
    await after('m2', () => ({ result: undefined, relations: [relation(0.9)] }));
    assert.equal(b.relations.get('r1')?.strength, 0.9);
    await after('m3', () => ({ result: undefined, relationDeletes: ['r1'] }));
    assert.equal(b.relations.get('r1'), undefined);
    assert.equal(b.versionOf(), a.versionOf());
  });

  it('answers reads while the other replica writes without a pause', {
    timeout: 20_000,
  }, async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const a = await openStore(t, db.url);
    const b = await openStore(t, db.url);
    let writing = true;
    let n = 0;
    // Both replicas write, several at a time: catch-ups follow one another without a lull.
    const loop = async (store: PostgresStore) => {
      while (writing) await save(store, newMemoryRecord(`w${n++}`, 'a steady stream', T0));
    };
    const writer = Promise.all([...Array.from({ length: 8 }, () => loop(a)), loop(b), loop(b)]);
    try {
      await seen(b, 'w3');
      // Each read waits for the changes heard of before it, never for the stream to end.
      for (let i = 0; i < 20; i++) await b.refresh();
      const before = n;
      await seen(b, `w${before}`);
    } finally {
      writing = false;
      await writer;
    }
    assert.ok(n > 5);
  });

  it('takes no notice of a mnemo in another schema of the same database', async (t) => {
    const db = await pgSchema(t);
    const other = await pgSchema(t);
    if (!db || !other) return;
    const b = await openStore(t, db.url);
    const stranger = await openStore(t, other.url);
    // The stranger's change numbers run far ahead of this schema's.
    for (let i = 0; i < 3; i++) await save(stranger, newMemoryRecord(`s${i}`, 'elsewhere', T0));
    await save(b, newMemoryRecord('own', 'here', T0));
    await b.refresh();
    assert.deepEqual([...b.memories.keys()], ['own']);
    assert.equal(b.versionOf(), 1);
  });

  it('reinforces exactly: two replicas touching one memory 100 times each end at 200', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const a = await openStore(t, db.url);
    const b = await openStore(t, db.url);
    await save(a, newMemoryRecord('m', 'touched', T0));
    const touch = (store: PostgresStore) =>
      store.transact(() => {
        const record = store.memories.get('m') as MemoryRecord;
        return { result: undefined, memories: [{ ...record, use_count: record.use_count + 1 }] };
      });
    const runs = (store: PostgresStore) =>
      Promise.all(Array.from({ length: 100 }, () => touch(store)));
    await Promise.all([runs(a), runs(b)]);
    const rows = await db.query<{ use_count: number }>(
      `SELECT use_count FROM mnemo_memories WHERE id = 'm'`,
    );
    assert.equal(rows[0]?.use_count, 200);
    await seen(a, 'm', (r) => r?.use_count === 200);
    await seen(b, 'm', (r) => r?.use_count === 200);
  });

  it('keeps namespaces apart: reads, deletes, forgotten copies and sizes', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const store = await openStore(t, db.url);
    const work = store.namespace('work');
    await save(work, newMemoryRecord('w1', 'work one', T0));
    await save(store, newMemoryRecord('d1', 'default one', T0));
    assert.deepEqual([...work.memories.keys()], ['w1']);
    assert.deepEqual([...store.memories.keys()], ['d1']);
    // A delete from the default namespace names w1: it stays.
    await store.transact(() => ({ result: undefined, deletes: ['w1'] }));
    assert.ok(work.memories.has('w1'));
    await assert.rejects(
      save(store, newMemoryRecord('w1', 'moved?', T0)),
      /not in namespace "default"/,
    );
    await work.transact(() => ({
      result: undefined,
      deletes: ['w1'],
      forgotten: [work.memories.get('w1') as MemoryRecord],
    }));
    assert.equal((await work.findForgotten('w1'))?.content, 'work one');
    assert.equal(await store.findForgotten('w1'), undefined);
    const sizes = await store.sizes();
    assert.ok((sizes.mnemo_memories ?? 0) > 0);
    assert.equal((await work.sizes()).mnemo_memories, 0);
    const other = await openStore(t, db.url);
    assert.deepEqual([...other.namespace('work').memories.keys()], []);
    assert.deepEqual([...other.memories.keys()], ['d1']);
  });

  it('catches up after its follower connection is cut, missing nothing', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const a = await openStore(t, db.url);
    const b = await openStore(t, db.url);
    const pid = b.followerPid;
    assert.ok(pid);
    await db.query('SELECT pg_terminate_backend($1)', [pid]);
    for (let i = 0; i < 5; i++) await save(a, newMemoryRecord(`k${i}`, `kept ${i}`, T0));
    await seen(b, 'k4');
    for (let i = 0; i < 5; i++) assert.ok(b.memories.has(`k${i}`), `k${i}`);
    assert.notEqual(b.followerPid, pid);
  });

  it('reloads everything when it was away longer than the changes are kept', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const a = await openStore(t, db.url, { keepChangesSeconds: 0, pruneEvery: 1 });
    const proxy = await proxyTo(t, db.url);
    const b = await openStore(t, proxy.url);
    await save(a, newMemoryRecord('early', 'seen by b', T0));
    await seen(b, 'early');
    proxy.cut();
    await a.transact(() => ({ result: undefined, deletes: ['early'] }));
    for (let i = 0; i < 3; i++) await save(a, newMemoryRecord(`late${i}`, 'while b was away', T0));
    const next = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM mnemo_changes WHERE namespace = 'default' AND version = $1`,
      [(b.versionOf() ?? 0) + 1],
    );
    assert.equal(next[0]?.n, 0, 'the changes b missed were pruned');
    proxy.restore();
    await seen(b, 'late2');
    assert.deepEqual([...b.memories.keys()].sort(), ['late0', 'late1', 'late2']);
  });

  it('answers a transient error when another replica holds the write lock too long', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const store = await PostgresStore.open({
      url: db.url,
      logger: pino({ level: 'silent' }),
      clock: () => T0,
      lockWaitMs: 100,
    });
    t.after(() => store.close());
    const { beginInNamespace } = await import('../../src/storage/postgres/namespace-feed.js');
    const holder = await pgPoolOf(t, db.url);
    const client = await holder.connect();
    await beginInNamespace(client, 'default', 60_000);
    await assert.rejects(save(store, newMemoryRecord('held', 'up', T0)), (error) => {
      assert.ok(error instanceof TransientError);
      assert.match(error.message, /another replica has been writing .* nothing was written/);
      return true;
    });
    // Another namespace's writes never wait for this one's lock.
    await save(store.namespace('work'), newMemoryRecord('free', 'elsewhere', T0));
    assert.ok(store.namespace('work').memories.has('free'));
    await client.query('ROLLBACK');
    client.release();
    await save(store, newMemoryRecord('held', 'up', T0));
    assert.ok(store.memories.has('held'));
  });

  it('answers a transient error while the server is away, and writes again once it is back', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const proxy = await proxyTo(t, db.url);
    const store = await openStore(t, proxy.url);
    await save(store, newMemoryRecord('before', 'saved', T0));
    proxy.cut();
    await assert.rejects(save(store, newMemoryRecord('during', 'lost', T0)), (error) => {
      assert.ok(error instanceof TransientError, String(error));
      assert.match(error.message, /nothing was written: retry in a moment/);
      return true;
    });
    proxy.restore();
    await save(store, newMemoryRecord('after', 'saved', T0));
    const rows = await db.query<{ id: string }>('SELECT id FROM mnemo_memories ORDER BY id');
    assert.deepEqual(
      rows.map((r) => r.id),
      ['after', 'before'],
    );
    assert.equal(store.memories.has('during'), false);
  });

  it('refuses a URL nothing answers at with one line naming MNEMO_DATABASE_URL, without the password', async (t) => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await assert.rejects(
      PostgresStore.open({
        url: `postgres://mnemo:s3cret-pw@127.0.0.1:${port}/mnemo`,
        logger: pino({ level: 'silent' }),
        clock: () => T0,
      }),
      (error) => {
        assert.ok(error instanceof DatabaseError);
        assert.match(error.message, /nothing answers at 127\.0\.0\.1:\d+: start PostgreSQL/);
        assert.match(error.message, /MNEMO_DATABASE_URL/);
        assert.doesNotMatch(error.message, /s3cret/);
        return true;
      },
    );
    t.diagnostic('refused as expected');
  });

  it('refuses a database whose schema is newer than this mnemo, writing nothing', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    await (await openStore(t, db.url)).close();
    await db.query(`INSERT INTO mnemo_schema (version, name) VALUES (999, 'from the future')`);
    await assert.rejects(
      PostgresStore.open({ url: db.url, logger: pino({ level: 'silent' }), clock: () => T0 }),
      /schema version 999, newer than this mnemo knows \(\d+\): upgrade mnemo/,
    );
  });

  it('starts with a role that has rights on the tables only, once the owner migrated', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    await (await openStore(t, db.url)).close();
    const role = `mnemo_rw_${db.schema}`;
    // A connection of its own: the schema's is ended first at the test's end.
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    t.after(async () => {
      await admin.query(`DROP OWNED BY ${role}`).catch(() => {});
      await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => {});
      await admin.end();
    });
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    await db.query(`GRANT USAGE ON SCHEMA ${db.schema} TO ${role}`);
    await db.query(
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${db.schema} TO ${role}`,
    );
    await db.query(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA ${db.schema} TO ${role}`);
    const url = new URL(db.url);
    url.username = role;
    const store = await openStore(t, url.toString());
    await save(store, newMemoryRecord('rw', 'written by a role without CREATE', T0));
    assert.equal((await db.query(`SELECT id FROM mnemo_memories`))[0]?.id, 'rw');
  });

  it('names an unknown database and how to create it', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const url = new URL(db.url);
    url.pathname = '/no_such_database_mnemo';
    await assert.rejects(
      PostgresStore.open({
        url: url.toString(),
        logger: pino({ level: 'silent' }),
        clock: () => T0,
      }),
      /database "no_such_database_mnemo" does not exist: create it \(createdb NAME\)/,
    );
  });
});

async function pgPoolOf(t: TestContext, url: string) {
  const { createPool } = await import('../../src/storage/postgres/database.js');
  const pool = createPool(url, { max: 1 });
  t.after(() => pool.end());
  return pool;
}
