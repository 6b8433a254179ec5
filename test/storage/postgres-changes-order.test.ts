// A catch-up reads the changes after the version a replica holds in version order, whatever plan
// PostgreSQL makes of the joins that bring each changed record: rows given back out of order read
// as a version pruned, and the replica read its whole namespace again (at 100,000 memories, under
// the write lock, for seconds) at every catch-up of more than a few changes.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { clientConfig } from '../../src/storage/postgres/database.js';
import { beginInNamespace } from '../../src/storage/postgres/namespace-feed.js';
import { changesAfter } from '../../src/storage/postgres/record-reads.js';
import { MEMORY_COLUMNS, memoryValues, upsertSql } from '../../src/storage/postgres/rows.js';
import { newMemoryRecord } from '../../src/storage/records.js';
import { openStore, pgSchema, rawClient, STORE_T0 } from '../support-pg.js';

const MEMORIES = 400;
const CHANGES = 300;

/** `url` whose connections plan joins by hashing (no nested loop, no merge), as a large namespace's do. */
function hashJoins(url: string): string {
  const parsed = new URL(url);
  const options = parsed.searchParams.get('options') ?? '';
  parsed.searchParams.set('options', `${options} -c enable_nestloop=off -c enable_mergejoin=off`);
  return parsed.toString();
}

it("reads the changes after a version in version order, whatever the plan of their records' joins", async (t) => {
  const db = await pgSchema(t);
  if (!db) return;
  // The tables, as a replica makes them.
  await (await openStore(t, db.url)).close();
  const writer = new pg.Client({ connectionString: db.url });
  await writer.connect();
  t.after(() => writer.end().catch(() => {}));
  await writer.query('BEGIN');
  for (let i = 0; i < MEMORIES; i++) {
    const record = newMemoryRecord(`m${String(i).padStart(4, '0')}`, `memory ${i}`, STORE_T0);
    await writer.query(
      upsertSql('mnemo_memories', MEMORY_COLUMNS, 1),
      memoryValues(record, 'team'),
    );
  }
  // Each change names a memory far from its neighbour's, as saves in any order do.
  await writer.query(
    `INSERT INTO mnemo_changes (namespace, version, kind, id)
     SELECT 'team', v, 'memory', 'm' || lpad(((v * 7919) % $1)::text, 4, '0')
     FROM generate_series(1, $2::int) v`,
    [MEMORIES, CHANGES],
  );
  await writer.query(
    `INSERT INTO mnemo_namespaces (namespace, version) VALUES ('team', $1)
     ON CONFLICT (namespace) DO UPDATE SET version = EXCLUDED.version`,
    [CHANGES],
  );
  await writer.query('COMMIT');
  await writer.query('ANALYZE');

  const reader = new pg.Client(clientConfig(hashJoins(db.url)));
  await reader.connect();
  t.after(() => reader.end().catch(() => {}));
  for (const held of [0, 100, 250, 295]) {
    const changes = await changesAfter(reader, 'team', held);
    assert.equal(changes.kind, 'changed', `after version ${held}: ${changes.kind}`);
    if (changes.kind !== 'changed') continue;
    assert.equal(changes.last, CHANGES);
    const expected = new Set<string>();
    for (let v = held + 1; v <= CHANGES; v++) {
      expected.add(`m${String((v * 7919) % MEMORIES).padStart(4, '0')}`);
    }
    assert.deepEqual(new Set(changes.memories.map((m) => m.id)), expected);
  }
});

it('catches up changes it did not hear of without reading its namespace again', async (t) => {
  const db = await pgSchema(t);
  if (!db) return;
  const lines: string[] = [];
  const logger = pino(
    { level: 'warn' },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  );
  const store = await openStore(t, hashJoins(db.url), { logger });
  const team = store.namespace('team');
  const held = Array.from({ length: MEMORIES }, (_, i) =>
    newMemoryRecord(`h${String(i).padStart(4, '0')}`, `held ${i}`, STORE_T0),
  );
  await team.transact(() => ({ result: undefined, memories: held }));
  // Another replica's writes that nobody hears of (no NOTIFY), stored in the reverse of their
  // versions' order, as the writes of many replicas may be: the store is 50 versions behind.
  const behind = 50;
  const id = (v: number) => `o${String(v).padStart(4, '0')}`;
  const other = await rawClient(t, db.url);
  const version = await beginInNamespace(other, 'team', 60_000);
  for (let v = behind; v >= 1; v--) {
    const record = newMemoryRecord(id(v), `unheard ${v}`, STORE_T0);
    await other.query(upsertSql('mnemo_memories', MEMORY_COLUMNS, 1), memoryValues(record, 'team'));
  }
  await other.query(
    `INSERT INTO mnemo_changes (namespace, version, kind, id)
     SELECT 'team', $1::bigint + v, 'memory', 'o' || lpad(v::text, 4, '0')
     FROM generate_series(1, $2::int) v`,
    [version, behind],
  );
  await other.query(`UPDATE mnemo_namespaces SET version = $1 WHERE namespace = 'team'`, [
    version + behind,
  ]);
  await other.query('COMMIT');
  await other.query('ANALYZE');

  // Its next write catches up under the lock: every change read, in order, and nothing again.
  await team.transact(() => ({
    result: undefined,
    memories: [newMemoryRecord('last', 'the last memory', STORE_T0)],
  }));
  assert.equal(store.versionOf('team'), version + behind + 1);
  for (let v = 1; v <= behind; v++) assert.ok(team.memories.has(id(v)), id(v));
  assert.deepEqual(
    lines.filter((l) => /reading the namespace again/.test(l)),
    [],
    'the catch-up took its changes for changes pruned',
  );
});
