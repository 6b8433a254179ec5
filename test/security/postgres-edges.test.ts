// The PostgreSQL engine seen from a tenant: what its errors show of the server's settings.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { databaseError, redactUrl } from '../../src/storage/postgres/database.js';
import { PostgresStore } from '../../src/storage/postgres/engine.js';
import { CHANNEL } from '../../src/storage/postgres/schema.js';
import { newMemoryRecord } from '../../src/storage/records.js';
import { ENGINES, engineAbsent, errorText, openTestClient, T0 } from '../support.js';
import { freshSchema } from '../support-pg.js';

/** Whether `promise` settles within this turn of the event loop (before setImmediate's). */
function withinTurn(promise: Promise<unknown>): Promise<boolean> {
  return Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => setImmediate(resolve, false)),
  ]);
}

test('redactUrl hides a password given as a parameter of the URL too', () => {
  const shown = redactUrl('postgres://u:secret1@db:5432/m?password=secret2&sslpassword=secret3');
  assert.doesNotMatch(shown, /secret/);
  assert.match(shown, /db:5432\/m/);
});

test('a statement PostgreSQL refuses is reported without the database URL (tool callers read it)', () => {
  const refused = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), {
    code: '22021',
  });
  const url = 'postgres://mnemo@db.internal:5432/m?options=-c%20search_path%3Dt&password=hunter2';
  const { message } = databaseError(refused, url);
  assert.match(message, /invalid byte sequence/);
  assert.doesNotMatch(message, /hunter2|db\.internal|search_path|postgres:/);
});

test("a notification naming a change that was never made does not hold every read (any role that connects may NOTIFY mnemo's channel)", {
  skip: await engineAbsent('postgres'),
}, async (t) => {
  const db = await freshSchema();
  const open = () =>
    PostgresStore.open({
      url: db.url,
      logger: pino({ level: 'silent' }),
      clock: () => T0,
      reconnectMs: 20,
    });
  const a = await open();
  const b = await open();
  t.after(async () => {
    await a.close();
    await b.close();
    await db.drop();
  });
  // Notifications come in commit order: once a hears b's write, it has heard the false one.
  await db.query(`SELECT pg_notify('${CHANNEL}', $1)`, [`${db.schema}:999999999999`]);
  const seen = new Promise<void>((resolve) =>
    a.subscribe({ upsert: () => resolve(), remove: () => {}, reset: () => {} }),
  );
  await b.transact(() => ({ result: undefined, memories: [newMemoryRecord('m1', 'x', T0)] }));
  await seen;
  // A read waits for the changes heard of before it, READ_WAIT_MS at most: one never made held
  // every read that long. The first reads may wait for the catch-up under way (the database's
  // answer); from the first that does not, every read resolves within its turn of the event loop,
  // before any timer could have fired.
  const atOnce: boolean[] = [];
  for (let i = 0; i < 8; i++) {
    const read = a.refresh();
    atOnce.push(await withinTurn(read));
    await read;
  }
  t.diagnostic(`at once: ${atOnce.join(' ')}`);
  const first = atOnce.indexOf(true);
  assert.ok(first !== -1 && atOnce.slice(first).every(Boolean), `at once: ${atOnce.join(' ')}`);
});

for (const engine of ENGINES) {
  test(`a NUL in anything a tool would store is refused by name, on either engine (${engine})`, {
    skip: await engineAbsent(engine),
  }, async (t) => {
    const c = await openTestClient({}, { engine });
    t.after(() => c.close());
    const { memory_id } = await c.ok<{ memory_id: string }>('save_memory', { content: 'kept' });
    const other = await c.ok<{ memory_id: string }>('save_memory', { content: 'other' });
    const calls: [string, Record<string, unknown>][] = [
      ['save_memory', { content: 'a\u0000b' }],
      ['save_memory', { content: 'x', entities: ['e\u0000'] }],
      ['save_memory', { content: 'x', source: 's\u0000' }],
      ['save_memory', { content: 'x', context: 'c\u0000' }],
      ['save_memory', { content: 'x', meta: { 'k\u0000': 1 } }],
      ['update_memory', { memory_id, content: 'a\u0000b' }],
      ['update_memory', { memory_id, entities: ['e\u0000'] }],
      ['update_memory', { memory_id, meta: { k: 'v\u0000' } }],
      [
        'create_relation',
        {
          from_memory_id: memory_id,
          to_memory_id: other.memory_id,
          relation_type: 'related',
          metadata: { k: '\u0000' },
        },
      ],
    ];
    for (const [name, args] of calls) {
      const result = await c.call(name, args);
      assert.equal(result.isError, true, `${name} ${JSON.stringify(args)}`);
      assert.match(errorText(result), /NUL character/, `${name} ${JSON.stringify(args)}`);
    }
    assert.equal(c.store.memories.get(memory_id)?.content, 'kept');
  });
}
