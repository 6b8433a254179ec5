// A pure plan of one memory on PostgreSQL: written as one statement when the namespace is at the
// version the replica holds and free, else through the lock as any write, never half of either.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import pg from 'pg';
import { TransientError } from '../../src/platform/errors.js';
import type { Mutation } from '../../src/storage/engine.js';
import { beginInNamespace } from '../../src/storage/postgres/namespace-feed.js';
import {
  MEMORY_COLUMNS,
  MEMORY_TYPES,
  memoryValues,
  upsertSql,
} from '../../src/storage/postgres/rows.js';
import { type MemoryRecord, newMemoryRecord } from '../../src/storage/records.js';
import { openStore, pgSchema, rawClient, STORE_T0, seen } from '../support-pg.js';

const T0 = STORE_T0;
const PURE = { pure: true };

/** The statements sent to PostgreSQL while `work` runs that write or lock (by their text). */
async function writesOf(t: TestContext, work: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  const spy = t.mock.method(
    pg.Client.prototype,
    'query',
    function (this: pg.Client, ...args: unknown[]) {
      const q = args[0] as string | { text: string };
      sent.push(typeof q === 'string' ? q : q.text);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    },
  );
  try {
    await work();
  } finally {
    spy.mock.restore();
  }
  return sent.filter((sql) => /^BEGIN;|^COMMIT$|INSERT INTO mnemo_memories/.test(sql));
}

const one = (record: MemoryRecord) => (): Mutation<string> => ({
  result: record.id,
  memories: [record],
});

/** A write of memory `id` into `ns` by another replica that nobody hears of (no NOTIFY). */
async function unheardWrite(c: pg.Client, ns: string, id: string): Promise<void> {
  const version = await beginInNamespace(c, ns, 60_000);
  await c.query(
    upsertSql('mnemo_memories', MEMORY_COLUMNS, 1),
    memoryValues(newMemoryRecord(id, 'unheard', T0), ns),
  );
  await c.query(
    `INSERT INTO mnemo_changes (namespace, version, kind, id) VALUES ($1, $2, 'memory', $3)`,
    [ns, version + 1, id],
  );
  await c.query('UPDATE mnemo_namespaces SET version = $2 WHERE namespace = $1', [ns, version + 1]);
  await c.query('COMMIT');
}

describe('PostgresStore, one memory in one statement', () => {
  it('writes it in one statement, outside a transaction, and the other replicas hear of it', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    // Neither loads a namespace in the background: what is sent while A saves is A's save.
    const a = await openStore(t, db.url, { preload: false });
    const b = await openStore(t, db.url, { preload: false });
    await a.namespace('team').transact(one(newMemoryRecord('t1', 'first', T0)));
    await b.namespace('team').refresh();
    await seen(b.namespace('team'), 't1');
    const arrived = seen(b.namespace('team'), 't2');
    const writes = await writesOf(t, () =>
      a.namespace('team').transact(one(newMemoryRecord('t2', 'second', T0)), PURE),
    );
    assert.equal(writes.length, 1, writes.join('\n---\n'));
    assert.match(writes[0] ?? '', /^WITH cur AS/);
    assert.equal(a.versionOf('team'), 2);
    await arrived;
    assert.equal(b.versionOf('team'), 2);
    const rows = await db.query<{ version: string; id: string }>(
      `SELECT version, id FROM mnemo_changes WHERE namespace = 'team' ORDER BY version`,
    );
    assert.deepEqual(
      rows.map((r) => [Number(r.version), r.id]),
      [
        [1, 't1'],
        [2, 't2'],
      ],
    );
  });

  it('finding the namespace moved, writes nothing so and plans again under the lock', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const store = await openStore(t, db.url);
    const team = store.namespace('team');
    await team.transact(one(newMemoryRecord('t1', 'first', T0)));
    await unheardWrite(await rawClient(t, db.url), 'team', 't2');
    const seenByPlans: boolean[] = [];
    const writes = await writesOf(t, () =>
      team.transact(() => {
        seenByPlans.push(team.memories.has('t2'));
        return { result: undefined, memories: [newMemoryRecord('t3', 'third', T0)] };
      }, PURE),
    );
    // Planned before the lock without the unheard write, then again after reading it.
    assert.deepEqual(seenByPlans, [false, true]);
    assert.equal(writes.length, 4, writes.join('\n---\n'));
    assert.match(writes[0] ?? '', /^WITH cur AS/);
    assert.match(writes[1] ?? '', /^BEGIN;/);
    assert.equal(writes.at(-1), 'COMMIT');
    assert.equal(store.versionOf('team'), 3);
    const rows = await db.query<{ id: string }>(
      `SELECT id FROM mnemo_changes WHERE namespace = 'team' ORDER BY version`,
    );
    assert.deepEqual(
      rows.map((r) => r.id),
      ['t1', 't2', 't3'],
    );
    // The next writes take the lock first, a few of them, then try at once again.
    const next = await writesOf(t, () =>
      team.transact(one(newMemoryRecord('t4', 'fourth', T0)), PURE),
    );
    assert.match(next[0] ?? '', /^BEGIN;/);
  });

  it('while another replica holds the lock, waits for it as any write, and writes nothing so', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const store = await openStore(t, db.url, { lockWaitMs: 100 });
    const team = store.namespace('team');
    await team.transact(one(newMemoryRecord('t1', 'first', T0)));
    const holder = await rawClient(t, db.url);
    await beginInNamespace(holder, 'team', 60_000);
    await assert.rejects(
      team.transact(one(newMemoryRecord('t2', 'held', T0)), PURE),
      TransientError,
    );
    await holder.query('ROLLBACK');
    const rows = await db.query<{ id: string }>(`SELECT id FROM mnemo_memories ORDER BY id`);
    assert.deepEqual(
      rows.map((r) => r.id),
      ['t1'],
    );
    assert.equal(store.versionOf('team'), 1);
    assert.equal(team.memories.has('t2'), false);
  });

  it('refuses an id of another namespace it never loaded, and writes nothing', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const a = await openStore(t, db.url, { preload: false });
    await a.namespace('one').transact(one(newMemoryRecord('same', 'in one', T0)));
    const b = await openStore(t, db.url, { preload: false });
    await b.namespace('two').transact(one(newMemoryRecord('t0', 'two first', T0)));
    await assert.rejects(
      b.namespace('two').transact(one(newMemoryRecord('same', 'in two', T0)), PURE),
      /not in namespace "two": nothing was written/,
    );
    const rows = await db.query<{ namespace: string; content: string }>(
      `SELECT namespace, content FROM mnemo_memories WHERE id = 'same'`,
    );
    assert.deepEqual(rows, [{ namespace: 'one', content: 'in one' }]);
    assert.equal(b.versionOf('two'), 1);
    const versions = await db.query<{ namespace: string; version: string }>(
      'SELECT namespace, version FROM mnemo_namespaces ORDER BY namespace',
    );
    assert.deepEqual(
      versions.map((v) => [v.namespace, Number(v.version)]),
      [
        ['one', 1],
        ['two', 1],
      ],
    );
  });

  it('casts each value to its column as the database declares it', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    await openStore(t, db.url);
    const rows = await db.query<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns
       WHERE table_name = 'mnemo_memories' AND table_schema = current_schema()`,
    );
    assert.deepEqual(Object.fromEntries(rows.map((r) => [r.column_name, r.data_type])), {
      ...MEMORY_TYPES,
    });
  });
});
