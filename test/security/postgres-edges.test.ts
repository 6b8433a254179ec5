// The PostgreSQL engine seen from a tenant: what its errors show of the server's settings.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactUrl } from '../../src/storage/postgres/database.js';
import { engineAbsent, errorText, openTestClient } from '../support.js';
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
