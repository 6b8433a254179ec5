// The PostgreSQL engine seen from a tenant: what its errors show of the server's settings.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { redactUrl } from '../../src/storage/postgres/database.js';
import { PostgresStore } from '../../src/storage/postgres/engine.js';
import { CHANNEL } from '../../src/storage/postgres/schema.js';
import { newMemoryRecord } from '../../src/storage/records.js';
import { engineAbsent, errorText, openTestClient, T0 } from '../support.js';
import { freshSchema } from '../support-pg.js';

test('redactUrl hides a password given as a parameter of the URL too', () => {
  const shown = redactUrl('postgres://u:secret1@db:5432/m?password=secret2&sslpassword=secret3');
  assert.doesNotMatch(shown, /secret/);
  assert.match(shown, /db:5432\/m/);
});

test('a statement PostgreSQL refuses answers the tool caller without the database URL', {
  skip: await engineAbsent('postgres'),
}, async (t) => {
  const db = await freshSchema();
  const c = await openTestClient({ MNEMO_DATABASE_URL: `${db.url}&password=hunter2` });
  t.after(async () => {
    await c.close();
    await db.drop();
  });
  // PostgreSQL's text cannot hold a NUL: the server refuses the statement.
  const result = await c.call('save_memory', { content: 'a\u0000b' });
  assert.equal(result.isError, true);
  const text = errorText(result);
  assert.doesNotMatch(text, /hunter2|search_path|127\.0\.0\.1|postgres:/);
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
  const started = performance.now();
  for (let i = 0; i < 3; i++) await a.refresh();
  assert.ok(performance.now() - started < 500, `${performance.now() - started} ms`);
});
