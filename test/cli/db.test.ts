// mnemo db migrate / db status and mnemo migrate, through main as the CLI runs them, against a
// PostgreSQL schema of each test's own; and what each says when the database cannot be used.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { main } from '../../src/cli/main.js';
import { FILES, JsonlStore } from '../../src/storage/jsonl/store.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/storage/postgres/schema.js';
import { newMemoryRecord } from '../../src/storage/records.js';
import { CLI_PATH } from '../e2e/helpers.js';
import { sink, T0, testDir } from '../support.js';
import { databaseAbsent, pgSchema, TEST_DATABASE_URL, withSchema } from '../support-pg.js';

const quiet = { MNEMO_LOG_LEVEL: 'silent', MNEMO_EMBEDDINGS: 'off' };

async function run(argv: string[], env: Record<string, string> = {}) {
  const stdout = sink();
  const stderr = sink();
  const code = await main(argv, { env: { ...quiet, ...env }, stdout, stderr });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** A port nothing listens on: one the system gave, closed again. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** TEST_DATABASE_URL with `user`, `password`, `port` or database `name` changed. */
function variant(change: { user?: string; password?: string; port?: number; name?: string }) {
  const url = new URL(TEST_DATABASE_URL);
  if (change.user !== undefined) url.username = change.user;
  if (change.password !== undefined) url.password = change.password;
  if (change.port !== undefined) url.port = String(change.port);
  if (change.name !== undefined) url.pathname = `/${change.name}`;
  return url.toString();
}

/** Skips the test, saying why, when no PostgreSQL answers. */
async function needsServer(t: TestContext): Promise<boolean> {
  const absent = await databaseAbsent();
  if (absent) t.skip(absent);
  return absent === undefined;
}

/** The one line a failure prints: exit 1, nothing on stdout, never the password. */
function oneLine(
  answer: { code: number; stdout: string; stderr: string },
  named: RegExp,
  secret = 's3cret-pw',
) {
  assert.equal(answer.code, 1, answer.stderr);
  assert.equal(answer.stdout, '');
  assert.match(answer.stderr, /^mnemo: [^\n]+\n$/);
  assert.match(answer.stderr, named);
  assert.ok(!answer.stderr.includes(secret), `the password is out of ${answer.stderr}`);
}

describe('mnemo db', () => {
  it('status before and after migrate; migrate twice applies once', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const env = { MNEMO_DATABASE_URL: db.url };
    const before = await run(['db', 'status'], env);
    assert.equal(before.code, 0, before.stderr);
    assert.equal(
      before.stdout,
      [
        `database  ${db.url}`,
        `schema    ${db.schema}`,
        `version   0 of ${SCHEMA_VERSION}, ${MIGRATIONS.length} to apply: run mnemo db migrate`,
        ...MIGRATIONS.map(
          (m, i) => `${i === 0 ? 'pending ' : '        '}  ${m.version}  ${m.name}`,
        ),
        '',
      ].join('\n'),
    );
    const beforeJson = JSON.parse((await run(['db', 'status', '--json'], env)).stdout);
    assert.deepEqual(
      [beforeJson.database, beforeJson.schema, beforeJson.version, beforeJson.latest],
      [db.url, db.schema, 0, SCHEMA_VERSION],
    );
    assert.deepEqual(beforeJson.applied, []);
    assert.equal(beforeJson.pending.length, MIGRATIONS.length);

    const migrated = await run(['db', 'migrate'], env);
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.equal(
      migrated.stdout,
      [
        ...MIGRATIONS.map((m) => `Applied migration ${m.version}: ${m.name}.`),
        `Schema ${db.schema} of ${db.url} is at version ${SCHEMA_VERSION}.`,
        '',
      ].join('\n'),
    );
    const tables = await db.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`,
      [db.schema],
    );
    assert.ok(tables.some((r) => r.name === 'mnemo_memories'));

    const again = await run(['db', 'migrate', '--json'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout), {
      database: db.url,
      schema: db.schema,
      version: SCHEMA_VERSION,
      latest: SCHEMA_VERSION,
      applied: [],
    });
    const upToDate = await run(['db', 'migrate', '--database-url', db.url]);
    assert.match(upToDate.stdout, /is up to date \(version \d+\): nothing to apply\.\n$/);

    const after = await run(['db', 'status'], env);
    assert.match(
      after.stdout,
      new RegExp(`version   ${SCHEMA_VERSION} of ${SCHEMA_VERSION}, up to date\npending   none\n$`),
    );
    const afterJson = JSON.parse((await run(['db', 'status', '--json'], env)).stdout);
    assert.deepEqual(afterJson.pending, []);
    assert.deepEqual(
      afterJson.applied.map((m: { version: number }) => m.version),
      MIGRATIONS.map((m) => m.version),
    );
  });

  it('without a database, or a subcommand: a usage error naming MNEMO_DATABASE_URL', async () => {
    const none = await run(['db', 'status']);
    assert.equal(none.code, 2);
    assert.match(
      none.stderr,
      /^mnemo: db status needs the database: set MNEMO_DATABASE_URL .* or give --database-url\nRun mnemo --help/,
    );
    for (const argv of [['db'], ['db', 'frob'], ['db', 'status', 'extra']]) {
      const bad = await run(argv, { MNEMO_DATABASE_URL: TEST_DATABASE_URL });
      assert.equal(bad.code, 2, argv.join(' '));
      assert.match(
        bad.stderr,
        /^mnemo: db takes one subcommand: mnemo db migrate, or mnemo db status\n/,
      );
    }
    const wrongScheme = await run(['db', 'status'], { MNEMO_DATABASE_URL: 'mysql://x@h/db' });
    assert.equal(wrongScheme.code, 1);
    assert.match(wrongScheme.stderr, /^mnemo: MNEMO_DATABASE_URL must start with postgres:\/\//);
  });

  it('a refused connection, an unknown database or user, a bad URL: one line naming the setting and the fix', async (t) => {
    if (!(await needsServer(t))) return;
    const refused = variant({ port: await closedPort(), password: 's3cret-pw' });
    oneLine(
      await run(['db', 'status'], { MNEMO_DATABASE_URL: refused }),
      /nothing answers at 127\.0\.0\.1:\d+: start PostgreSQL there, or fix the host and port in MNEMO_DATABASE_URL/,
    );
    oneLine(
      await run(['db', 'migrate'], { MNEMO_DATABASE_URL: refused }),
      /nothing answers at .* in MNEMO_DATABASE_URL/,
    );
    // Given as a flag, the message names the flag.
    oneLine(
      await run(['db', 'status', '--database-url', refused]),
      /fix the host and port in --database-url\n$/,
    );
    const dbName = `no_such_${randomBytes(4).toString('hex')}`;
    oneLine(
      await run(['db', 'status'], {
        MNEMO_DATABASE_URL: variant({ name: dbName, password: 's3cret-pw' }),
      }),
      new RegExp(`database "${dbName}" does not exist: create it .* in MNEMO_DATABASE_URL`),
    );
    oneLine(
      await run(['db', 'migrate'], {
        MNEMO_DATABASE_URL: variant({ user: 'nobody_here', password: 's3cret-pw' }),
      }),
      /role "nobody_here" does not exist.*fix the user in MNEMO_DATABASE_URL/,
    );
    oneLine(
      await run(['db', 'status'], { MNEMO_DATABASE_URL: 'postgres://u:s3cret-pw@[bad/db' }),
      /^mnemo: MNEMO_DATABASE_URL is not a URL: write it as postgres:\/\/USER/,
    );
  });

  it('a user without the rights on the schema: names the setting and what to grant', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const role = `mnemo_ro_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 's3cret-pw'`);
    t.after(async () => {
      // DROP OWNED takes back what was granted to it, so the role can go.
      await admin.query(`DROP OWNED BY ${role}`).catch(() => {});
      await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => {});
      await admin.end();
    });
    const url = new URL(db.url);
    url.username = role;
    url.password = 's3cret-pw';
    const env = { MNEMO_DATABASE_URL: url.toString() };
    // Without USAGE the schema of its search_path is not there for this user.
    oneLine(
      await run(['db', 'migrate'], env),
      /the user of MNEMO_DATABASE_URL has no schema to create mnemo's tables in \(no schema has been selected to create in\): create the schema of its search_path, or grant the user USAGE and CREATE on it\n$/,
    );
    await admin.query(`GRANT USAGE ON SCHEMA ${db.schema} TO ${role}`);
    oneLine(
      await run(['db', 'migrate'], env),
      /the user of MNEMO_DATABASE_URL lacks a right mnemo needs \(permission denied for schema t_\w+\): grant it CREATE and USAGE/,
    );
  });

  it('the built CLI: exit 1 and one line on stderr, the password nowhere', async (t) => {
    if (!fs.existsSync(CLI_PATH)) {
      t.skip(`${CLI_PATH} is missing: run npm run build`);
      return;
    }
    const refused = variant({ port: await closedPort(), password: 's3cret-pw' });
    const child = spawnSync(process.execPath, [CLI_PATH, 'db', 'status'], {
      env: { ...quiet, MNEMO_DATABASE_URL: refused },
      encoding: 'utf8',
    });
    oneLine(
      { code: child.status ?? -1, stdout: child.stdout, stderr: child.stderr },
      /MNEMO_DATABASE_URL/,
    );
  });
});

describe('the flag --database-url', () => {
  it('reaches the settings of the commands that open the memory, and only theirs', async () => {
    for (const command of ['stats', 'gc', 'search x', 'restore id', 'promote', 'reindex']) {
      const bad = await run([...command.split(' '), '--database-url', 'mysql://x@h/db']);
      assert.equal(bad.code, 1, command);
      assert.match(bad.stderr, /^mnemo: --database-url must start with postgres:\/\//, command);
    }
    for (const command of ['vault init', 'migrate']) {
      const refused = await run([...command.split(' '), '--database-url', TEST_DATABASE_URL]);
      assert.equal(refused.code, 2, command);
      assert.match(refused.stderr, /does not take --database-url/);
    }
  });
});

/** A data dir with a memory in the default namespace and one in `work`. */
async function dataDir(t: TestContext): Promise<string> {
  const dir = testDir(t, 'mnemo-cli-migrate-');
  const store = await JsonlStore.open({
    dataDir: dir,
    logger: pino({ level: 'silent' }),
    clock: () => T0,
  });
  await store.transact(() => ({
    result: null,
    memories: [newMemoryRecord('d1', 'the cat is called Ralph', T0)],
  }));
  await store.namespace('work').transact(() => ({
    result: null,
    memories: [
      newMemoryRecord('w1', 'the deploy is on Fridays', T0),
      newMemoryRecord('w2', 'the standup is at nine', T0),
    ],
  }));
  store.close();
  return dir;
}

describe('mnemo migrate', () => {
  it('a data dir into PostgreSQL and back, a summary a namespace; the second run writes nothing', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const src = await dataDir(t);
    const first = await run(['migrate', '--from', src, '--to', db.url]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(
      first.stdout,
      [
        `Applied ${MIGRATIONS.length} migrations (${MIGRATIONS.map((m) => m.version).join(', ')}) to schema ${db.schema} first.`,
        'NAMESPACE  MEMORIES  RELATIONS  FORGOTTEN  VECTORS',
        'default    1         0          0          0',
        'work       2         0          0          0',
        `Copied 3 memories, 0 relations, 0 forgotten copies, 0 vectors from ${src} to ${db.url} (schema ${db.schema}): all written.`,
        '',
      ].join('\n'),
    );
    const second = await run(['migrate', '--from', src, '--to', db.url]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /: nothing new, each one was there already\.\n$/);
    assert.doesNotMatch(second.stdout, /Applied/);

    const back = path.join(testDir(t, 'mnemo-cli-back-'), 'new');
    const out = await run(['migrate', '--from', db.url, '--to', back, '--json']);
    assert.equal(out.code, 0, out.stderr);
    const summary = JSON.parse(out.stdout);
    assert.deepEqual(
      [summary.from, summary.to, summary.schema, summary.migrated, summary.unreadable],
      [db.url, back, db.schema, [], {}],
    );
    assert.deepEqual(
      summary.namespaces.map((n: { namespace: string; written: { memories: number } }) => [
        n.namespace,
        n.written.memories,
      ]),
      [
        ['default', 1],
        ['work', 2],
      ],
    );
    assert.ok(fs.existsSync(path.join(back, FILES.memories)));
  });

  it('--namespace NAME: the data dir goes into NAME, and NAME comes back as the default one', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const src = await dataDir(t);
    const into = await run(['migrate', '--from', src, '--to', db.url, '--namespace', 'alice'], {
      MNEMO_NAMESPACE: 'ignored',
    });
    assert.equal(into.code, 0, into.stderr);
    assert.match(into.stdout, /\nalice \(default in the data dir\) {2}1 /);
    const rows = await db.query('SELECT id, namespace FROM mnemo_memories ORDER BY id');
    assert.deepEqual(rows, [
      { id: 'd1', namespace: 'alice' },
      { id: 'w1', namespace: 'work' },
      { id: 'w2', namespace: 'work' },
    ]);
    const back = testDir(t, 'mnemo-cli-alice-');
    const out = await run(['migrate', '--from', db.url, '--to', back, '--namespace', 'alice']);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /\ndefault \(alice in the database\) {2}1 /);
    const stats = await run(['stats', '--json', '--data-dir', back, '--at', String(T0)]);
    assert.equal(JSON.parse(stats.stdout).total, 1);
  });

  it('refuses what it cannot do as asked: exit 2 for a usage mistake, 1 with one line else', async (t) => {
    const dir = testDir(t);
    for (const [argv, named] of [
      [['migrate', '--to', 'postgres://h/db'], /migrate needs --from and --to/],
      [['migrate', '--from', dir, '--to', dir], /neither --from nor --to is a postgres:\/\/ URL/],
      [
        ['migrate', '--from', 'postgres://h/a', '--to', 'postgresql://h/b'],
        /--from and --to are both database URLs/,
      ],
      [
        ['migrate', '--from', dir, '--to', 'mysql://u:s3cret-pw@h/db'],
        /--to must be a data dir or a postgres:\/\/ URL \(it starts with mysql:\/\/\)/,
      ],
      [['migrate', '--from', '', '--to', 'postgres://h/db'], /--from is empty/],
      [
        ['migrate', '--data-dir', dir, '--to', 'postgres://h/db'],
        /migrate takes the data dir as --from or --to, not --data-dir/,
      ],
      [['migrate', 'now', '--from', dir, '--to', 'postgres://h/db'], /migrate takes no words/],
    ] as const) {
      const refused = await run([...argv]);
      assert.equal(refused.code, 2, argv.join(' '));
      assert.match(refused.stderr, named);
      assert.ok(!refused.stderr.includes('s3cret-pw'));
    }
    if (!(await needsServer(t))) return;
    const src = await dataDir(t);
    const refused = variant({ port: await closedPort(), password: 's3cret-pw' });
    oneLine(
      await run(['migrate', '--from', src, '--to', refused]),
      /nothing answers at 127\.0\.0\.1:\d+: start PostgreSQL there, or fix the host and port in --to\n$/,
    );
    oneLine(
      await run(['migrate', '--from', refused, '--to', path.join(dir, 'out')]),
      /fix the host and port in --from\n$/,
    );
    assert.equal(fs.existsSync(path.join(dir, 'out')), false, 'no data dir made');
    oneLine(
      await run(['migrate', '--from', src, '--to', 'postgres://u:s3cret-pw@[bad/db']),
      /^mnemo: --to is not a URL: write it as postgres:\/\//,
    );
    oneLine(
      await run(['migrate', '--from', path.join(dir, 'missing'), '--to', TEST_DATABASE_URL]),
      /^mnemo: there is no data dir at .*missing: give the folder that holds memories\.jsonl\n$/,
    );
    // A schema no one made: nothing to copy out of it.
    const empty = withSchema(TEST_DATABASE_URL, `no_such_${randomBytes(4).toString('hex')}`);
    oneLine(
      await run(['migrate', '--from', empty, '--to', path.join(dir, 'out')]),
      /holds no mnemo tables: nothing to copy/,
    );
  });
});
