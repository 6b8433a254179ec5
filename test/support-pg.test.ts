// The PostgreSQL tests skip only when the server does not answer: the runner asks once, before
// any test process starts, and a test process takes its answer rather than asking under load.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { databaseAbsent, PROBED_ENV, probedValue } from './support-pg.js';

test("a test process takes the runner's answer about the test database", async (t) => {
  const before = process.env[PROBED_ENV];
  t.after(() => {
    if (before === undefined) delete process.env[PROBED_ENV];
    else process.env[PROBED_ENV] = before;
  });
  process.env[PROBED_ENV] = probedValue(undefined);
  assert.equal(await databaseAbsent(), undefined);
  const why = 'no PostgreSQL at MNEMO_TEST_DATABASE_URL (10.0.0.1:5432): connect ECONNREFUSED';
  process.env[PROBED_ENV] = probedValue(why);
  assert.equal(await databaseAbsent(), why);
});
