// The PostgreSQL engine per namespace: a database of the build before (one write lock, one
// feed) opens and goes on, writes in different namespaces never wait for each other, a
// namespace loads at its first need and is let go beyond the budget.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { TransientError } from '../../src/platform/errors.js';
import type { PostgresStore } from '../../src/storage/postgres/engine.js';
import { beginInNamespace } from '../../src/storage/postgres/namespace-feed.js';
import { MEMORY_COLUMNS, memoryValues, upsertSql } from '../../src/storage/postgres/rows.js';
import { MIGRATIONS, SCHEMA_VERSION, schemaStatus } from '../../src/storage/postgres/schema.js';
import { type MemoryRecord, newMemoryRecord } from '../../src/storage/records.js';
import { openStore, pgSchema, proxyTo, rawClient, STORE_T0, seen } from '../support-pg.js';
import { throwawayCluster } from '../support-pg-cluster.js';

const T0 = STORE_T0;

const save = (store: { transact: PostgresStore['transact'] }, ...records: MemoryRecord[]) =>
  store.transact(() => ({ result: undefined, memories: records }));

describe('PostgresStore, per namespace', () => {
  it('opens a database the build before wrote (one lock, one feed) and goes on from it', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const old = await rawClient(t, db.url);
    // The schema of the build before: migrations 1 and 2, and what its writes left.
    await old.query(
      'CREATE TABLE mnemo_schema (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    for (const m of MIGRATIONS.filter((m) => m.version <= 2)) {
      await old.query(m.sql);
      await old.query('INSERT INTO mnemo_schema (version, name) VALUES ($1, $2)', [
        m.version,
        m.name,
      ]);
    }
    const rows: [string, MemoryRecord][] = [
      ['default', newMemoryRecord('d1', 'default one', T0)],
      ['work', newMemoryRecord('w1', 'work one', T0)],
      ['work', newMemoryRecord('w2', 'work two', T0)],
    ];
    for (const [ns, r] of rows) {
      await old.query(upsertSql('mnemo_memories', MEMORY_COLUMNS, 1), memoryValues(r, ns));
      await old.query(`INSERT INTO mnemo_changes (namespace, kind, id) VALUES ($1, 'memory', $2)`, [
        ns,
        r.id,
      ]);
    }
    const a = await openStore(t, db.url);
    assert.equal((await schemaStatus(old as unknown as pg.PoolClient)).version, SCHEMA_VERSION);
    assert.deepEqual([...a.memories.keys()], ['d1']);
    assert.deepEqual([...a.namespace('work').memories.keys()].sort(), ['w1', 'w2']);
    assert.equal(a.versionOf('work'), 2);
    assert.equal(a.versionOf('default'), 1);
    const b = await openStore(t, db.url);
    const arrived = seen(b.namespace('work'), 'w3');
    await save(a.namespace('work'), newMemoryRecord('w3', 'work three', T0));
    await arrived;
    assert.equal(b.versionOf('work'), 3);
    assert.equal(b.versionOf('default'), 1);
  });

  it('writes in one namespace while another namespace is locked, never in the locked one', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const store = await openStore(t, db.url, { lockWaitMs: 100 });
    const holder = await rawClient(t, db.url);
    await beginInNamespace(holder, 'team', 60_000);
    await assert.rejects(
      save(store.namespace('team'), newMemoryRecord('t1', 'held', T0)),
      TransientError,
    );
    for (let i = 0; i < 3; i++) await save(store, newMemoryRecord(`d${i}`, 'free', T0));
    assert.equal(store.versionOf(), 3);
    await holder.query('ROLLBACK');
    await save(store.namespace('team'), newMemoryRecord('t1', 'after', T0));
    assert.equal(store.versionOf('team'), 1);
  });

  it('reads a write it has not heard of under the lock, and writes rows and changes at once', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const store = await openStore(t, db.url);
    await save(store.namespace('team'), newMemoryRecord('t1', 'first', T0));
    // Another replica's write that nobody hears of (no NOTIFY): the store's version is behind.
    const other = await rawClient(t, db.url);
    const version = await beginInNamespace(other, 'team', 60_000);
    await other.query(
      upsertSql('mnemo_memories', MEMORY_COLUMNS, 1),
      memoryValues(newMemoryRecord('t2', 'unheard', T0), 'team'),
    );
    await other.query(
      `INSERT INTO mnemo_changes (namespace, version, kind, id) VALUES ('team', $1, 'memory', 't2')`,
      [version + 1],
    );
    await other.query(`UPDATE mnemo_namespaces SET version = $1 WHERE namespace = 'team'`, [
      version + 1,
    ]);
    await other.query('COMMIT');
    assert.equal(store.versionOf('team'), version);

    const sent: { text: string; name?: string | undefined }[] = [];
    const query = pg.Client.prototype.query;
    t.mock.method(pg.Client.prototype, 'query', function (this: pg.Client, ...args: unknown[]) {
      const q = args[0] as string | { text: string; name?: string };
      sent.push(typeof q === 'string' ? { text: q } : { text: q.text, name: q.name });
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    });
    const writes = () =>
      sent.filter((q) => /BEGIN|COMMIT|mnemo_memories|mnemo_changes/.test(q.text));
    let planned: boolean | undefined;
    await store.namespace('team').transact(() => {
      planned = store.namespace('team').memories.has('t2');
      return { result: undefined, memories: [newMemoryRecord('t3', 'third', T0)] };
    });
    // The plan saw the unheard write: it was read under the lock, before the plan ran.
    assert.equal(planned, true);
    assert.equal(store.versionOf('team'), version + 2);
    // The lock, the catch-up, the row with its change row, the commit.
    const behind = writes();
    assert.equal(behind.length, 4, behind.map((q) => q.text).join('\n---\n'));
    assert.match(behind[0]?.text ?? '', /^BEGIN;/);
    assert.match(behind[1]?.text ?? '', /FROM mnemo_changes/);
    assert.match(behind[2]?.text ?? '', /INSERT INTO mnemo_memories.*INSERT INTO mnemo_changes/s);
    assert.equal(behind[3]?.text, 'COMMIT');
    // The catch-up and the write are prepared once by name, not planned again at each write.
    assert.ok(behind[1]?.name && behind[2]?.name);
    sent.length = 0;
    await save(store.namespace('team'), newMemoryRecord('t4', 'fourth', T0));
    t.mock.restoreAll();
    // Level with the database: no catch-up.
    assert.deepEqual(
      writes().map((q) => q.name),
      [undefined, behind[2]?.name, undefined],
    );
    const changes = await db.query<{ id: string }>(
      `SELECT id FROM mnemo_changes WHERE namespace = 'team' ORDER BY version`,
    );
    assert.deepEqual(
      changes.map((c) => c.id),
      ['t1', 't2', 't3', 't4'],
    );
  });

  it('does not read back its own writes when it hears of them', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const store = await openStore(t, db.url);
    await save(store.namespace('team'), newMemoryRecord('t0', 'first', T0));
    let catchUps = 0;
    const query = pg.Client.prototype.query;
    t.mock.method(pg.Client.prototype, 'query', function (this: pg.Client, ...args: unknown[]) {
      const q = args[0] as string | { text: string };
      if (/FROM mnemo_changes/.test(typeof q === 'string' ? q : q.text)) catchUps++;
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    });
    // Its listener hears of each write, often before the commit's answer is applied.
    const heard = seen(store.namespace('team'), 't40');
    for (let i = 1; i <= 40; i++)
      await save(store.namespace('team'), newMemoryRecord(`t${i}`, 'more', T0));
    await heard;
    const version = store.versionOf('team');
    const other = await openStore(t, db.url);
    const arrived = seen(store.namespace('team'), 'o1');
    await save(other.namespace('team'), newMemoryRecord('o1', 'the other replica', T0));
    await arrived;
    t.mock.restoreAll();
    assert.equal(version, 41);
    // One catch-up: the other replica's write; none of its own forty.
    assert.ok(catchUps >= 1 && catchUps <= 2, `catch-ups: ${catchUps}`);
  });

  it('refuses a write of an id another namespace holds, even one this replica never loaded', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const a = await openStore(t, db.url, { preload: false });
    await save(a.namespace('one'), newMemoryRecord('same', 'in one', T0));
    const b = await openStore(t, db.url, { preload: false });
    await assert.rejects(
      save(b.namespace('two'), newMemoryRecord('same', 'in two', T0)),
      /not in namespace "two": nothing was written/,
    );
    const rows = await db.query<{ namespace: string }>(
      `SELECT namespace FROM mnemo_memories WHERE id = 'same'`,
    );
    assert.deepEqual(rows, [{ namespace: 'one' }]);
    assert.equal(b.namespace('two').memories.size, 0);
  });
});

describe('PostgresStore, namespaces on demand', () => {
  it('loads nothing at the start, a namespace at its first read, whole, and follows it then', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const a = await openStore(t, db.url, { preload: false });
    for (let i = 0; i < 20; i++) await save(a.namespace('big'), newMemoryRecord(`b${i}`, 'x', T0));
    await save(a.namespace('small'), newMemoryRecord('s0', 'y', T0));
    const b = await openStore(t, db.url, { preload: false });
    assert.deepEqual(b.heldNamespaces(), []);
    assert.equal(b.namespace('big').memories.size, 0);
    await b.namespace('big').refresh();
    assert.deepEqual(b.heldNamespaces(), ['big']);
    assert.equal(b.namespace('big').memories.size, 20);
    // A namespace it does not hold is not followed; one it holds is.
    const arrived = seen(b.namespace('big'), 'b20');
    await save(a.namespace('big'), newMemoryRecord('b20', 'x', T0));
    await save(a.namespace('small'), newMemoryRecord('s1', 'y', T0));
    await arrived;
    assert.deepEqual(b.heldNamespaces(), ['big']);
    await b.namespace('small').refresh();
    assert.deepEqual([...b.namespace('small').memories.keys()].sort(), ['s0', 's1']);
  });

  it('held(): loads a namespace it does not hold, as a read does (what a save compares with)', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const a = await openStore(t, db.url, { preload: false });
    await save(a.namespace('work'), newMemoryRecord('w0', 'I live in Oslo.', T0));
    const b = await openStore(t, db.url, { preload: false });
    assert.equal(b.namespace('work').memories.size, 0);
    await b.namespace('work').held();
    assert.deepEqual(b.heldNamespaces(), ['work']);
    assert.deepEqual([...b.namespace('work').memories.keys()], ['w0']);
    await b.held();
    assert.deepEqual(b.heldNamespaces().sort(), ['default', 'work']);
  });

  it('lets go of the least recently used namespaces beyond MNEMO_CACHE_MB, and loads them again', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const a = await openStore(t, db.url, { preload: false });
    for (const ns of ['n1', 'n2', 'n3']) {
      await a.namespace(ns).transact(() => ({
        result: undefined,
        memories: Array.from({ length: 30 }, (_, i) => newMemoryRecord(`${ns}-${i}`, 'z', T0)),
      }));
    }
    // Room for about two namespaces of 30 memories.
    const b = await openStore(t, db.url, { preload: false, cacheMb: 0.16, evictGraceMs: 0 });
    const removed: string[] = [];
    b.namespace('n1').subscribe({
      upsert: () => {},
      remove: (r) => removed.push(r.id),
      reset: () => {},
    });
    await b.namespace('n1').refresh();
    await b.namespace('n2').refresh();
    assert.deepEqual(b.heldNamespaces().sort(), ['n1', 'n2']);
    await b.namespace('n3').refresh();
    assert.deepEqual(b.heldNamespaces().sort(), ['n2', 'n3']);
    assert.equal(b.namespace('n1').memories.size, 0);
    assert.equal(removed.length, 30, 'its indexes were told of each memory let go');
    // Written while let go: read whole at the next need.
    await save(a.namespace('n1'), newMemoryRecord('n1-new', 'z', T0));
    await b.namespace('n1').refresh();
    assert.equal(b.namespace('n1').memories.size, 31);
    assert.ok(b.heldBytes <= 0.16 * 2 ** 20 || b.heldNamespaces().length === 1);
  });

  it('answers reads from what it holds while the database is away, and catches up once back', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const a = await openStore(t, db.url, { preload: false });
    await save(a, newMemoryRecord('before', 'kept', T0));
    const proxy = await proxyTo(t, db.url);
    const b = await openStore(t, proxy.url, { preload: false });
    await b.refresh();
    assert.ok(b.memories.has('before'));
    proxy.cut();
    await save(a, newMemoryRecord('during', 'written while b was cut off', T0));
    // Held: answered from memory. Not held: a transient error, at once.
    for (let i = 0; i < 5; i++) await b.refresh();
    assert.ok(b.memories.has('before'));
    await assert.rejects(b.namespace('elsewhere').refresh(), TransientError);
    proxy.restore();
    await seen(b, 'during');
  });

  it('names every namespace of the database, held or not; those it holds while the database is away', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const a = await openStore(t, db.url, { preload: false });
    for (const ns of ['default', 'work', 'home']) {
      await save(a.namespace(ns), newMemoryRecord(`${ns}-1`, 'x', T0));
    }
    const proxy = await proxyTo(t, db.url);
    const b = await openStore(t, proxy.url, { preload: false });
    await b.namespace('work').refresh();
    assert.deepEqual(b.heldNamespaces(), ['work']);
    assert.deepEqual(await b.storedNamespaces(), ['default', 'home', 'work']);
    proxy.cut();
    assert.deepEqual(await b.storedNamespaces(), ['work']);
  });

  it('holding them all, loads a namespace first written while its listener was away', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const a = await openStore(t, db.url, { preload: false });
    const proxy = await proxyTo(t, db.url);
    const b = await openStore(t, proxy.url);
    assert.deepEqual(b.heldNamespaces(), []);
    proxy.cut();
    // No notification of these reaches b: it learns of them when it listens again.
    await save(a, newMemoryRecord('first', 'in a namespace b never heard of', T0));
    await save(a.namespace('new'), newMemoryRecord('n1', 'another one', T0));
    proxy.restore();
    await Promise.all([seen(b, 'first'), seen(b.namespace('new'), 'n1')]);
    assert.deepEqual(b.heldNamespaces().sort(), ['default', 'new']);
  });
});

describe('PostgresStore, the database crashing under writes in many namespaces', () => {
  it('loses no answered write, one statement or a transaction, and both replicas hold them all', {
    timeout: 120_000,
  }, async (t) => {
    const cluster = await throwawayCluster(t);
    if (!cluster) return;
    const a = await openStore(t, cluster.url, { preload: false });
    const b = await openStore(t, cluster.url, { preload: false });
    const names = ['n0', 'n1', 'n2', 'n3'];
    for (const ns of names) {
      await a.namespace(ns).refresh();
      await b.namespace(ns).refresh();
    }
    const answered = new Map<string, string[]>(names.map((ns) => [ns, []]));
    let failed = 0;
    let stop = false;
    const writers = names.flatMap((ns) =>
      [a, b].map(async (store, w) => {
        for (let i = 0; !stop; i++) {
          const id = `${ns}-${w}-${i}`;
          try {
            const record = newMemoryRecord(id, `saved ${id}`, T0);
            // B's plans are pure: written in one statement when they can, A's through the lock.
            const how = w === 1 ? { pure: true } : {};
            await store
              .namespace(ns)
              .transact(() => ({ result: undefined, memories: [record] }), how);
            answered.get(ns)?.push(id);
          } catch (error) {
            assert.ok(error instanceof TransientError, String(error));
            failed++;
            await new Promise((resolve) => setImmediate(resolve));
          }
        }
      }),
    );
    // Some writes answered, then the crash, then some writes answered again.
    const total = () => [...answered.values()].reduce((n, ids) => n + ids.length, 0);
    while (total() < 40) await new Promise((resolve) => setImmediate(resolve));
    await cluster.crashAndStart();
    const after = total();
    while (total() < after + 40) await new Promise((resolve) => setImmediate(resolve));
    stop = true;
    await Promise.all(writers);
    const check = await rawClient(t, cluster.url);
    for (const [ns, ids] of answered) {
      const rows = await check.query<{ id: string }>(
        'SELECT id FROM mnemo_memories WHERE namespace = $1',
        [ns],
      );
      const stored = new Set(rows.rows.map((r) => r.id));
      for (const id of ids) assert.ok(stored.has(id), `${id} answered, and stored`);
      for (const store of [a, b]) {
        const last = ids[ids.length - 1] as string;
        await seen(store.namespace(ns), last);
        for (const id of ids) assert.ok(store.namespace(ns).memories.has(id), `${id} held`);
      }
    }
    t.diagnostic(`${total()} writes answered, ${failed} refused while the database was away`);
  });
});
