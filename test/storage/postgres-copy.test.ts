// mnemo migrate's copy, both ways, against a PostgreSQL schema of each test's own.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { StoreError } from '../../src/storage/errors.js';
import { FILES, JsonlStore } from '../../src/storage/jsonl/store.js';
import { VECTORS_FILE } from '../../src/storage/jsonl/vectors.js';
import { CopyError, type CopyOptions, type CopyResult } from '../../src/storage/migrate/copy.js';
import { copyDirToDatabase } from '../../src/storage/migrate/copy-to-database.js';
import { copyDatabaseToDir } from '../../src/storage/migrate/copy-to-dir.js';
import { createPool } from '../../src/storage/postgres/database.js';
import { MIGRATIONS } from '../../src/storage/postgres/schema.js';
import {
  type MemoryRecord,
  newMemoryRecord,
  OTHER_FIELDS,
  type RelationRecord,
  toMemoryRecord,
} from '../../src/storage/records.js';
import { T0, testDir } from '../support.js';
import { pgSchema, type TestDatabase } from '../support-pg.js';

const silent = pino({ level: 'silent' });

const jsonl = (values: unknown[]) => values.map((v) => `${JSON.stringify(v)}\n`).join('');

/** The JSON object lines of a file (the line that is not JSON left out). */
const readLines = (file: string) =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];

/** An int8 vector in base64, as the semantic index writes it. */
const int8 = (...values: number[]) => Buffer.from(Int8Array.from(values).buffer).toString('base64');

/**
 * A data dir as cortexgraph and mnemo leave one: two namespaces, fields mnemo does not know (at
 * the top and in meta), a deleted memory, relations, forgotten copies (and a line that is not
 * JSON), and vectors (an older line of the same memory, one of the deleted memory).
 */
function sourceDir(t: TestContext): string {
  const dir = testDir(t, 'mnemo-copy-src-');
  const m1 = {
    id: 'm1',
    content: 'The staging database is Postgres 16 on db-staging.internal.',
    meta: {
      tags: ['infra'],
      source: 'slack #ops',
      context: null,
      extra: { confidence: 0.9 },
      colour: 'red',
    },
    created_at: T0,
    last_used: T0 + 60,
    use_count: 2,
    strength: 1.1,
    status: 'active',
    promoted_at: null,
    promoted_to: null,
    embed: [0.0132, -0.0871, 0.2245],
    entities: ['Postgres'],
    review_priority: 0,
    last_review_at: null,
    review_count: 1,
    cross_domain_count: 0,
    x_cortex: { nested: [1, 'two', null] },
  };
  fs.writeFileSync(
    path.join(dir, FILES.memories),
    jsonl([
      m1,
      { id: 'm2', content: 'Prefers tabs over spaces.', created_at: T0, status: 'promoted' },
      { id: 'gone', content: 'deleted later', created_at: T0 },
      { id: 'gone', _deleted: true },
      { id: 'w1', content: 'work: the deploy is on Fridays', namespace: 'work', origin: 'cg' },
      { id: 'w2', content: 'work: the standup is at nine', namespace: 'work', created_at: T0 },
    ]),
  );
  fs.writeFileSync(
    path.join(dir, FILES.relations),
    jsonl([
      {
        id: 'r1',
        from_memory_id: 'm1',
        to_memory_id: 'm2',
        relation_type: 'supports',
        strength: 0.7,
        created_at: T0,
        metadata: { note: 'same team' },
      },
      {
        id: 'rw',
        from_memory_id: 'w1',
        to_memory_id: 'w2',
        relation_type: 'related',
        created_at: T0,
        metadata: {},
        namespace: 'work',
        weight_source: 'manual',
      },
    ]),
  );
  fs.writeFileSync(
    path.join(dir, FILES.forgotten),
    `${jsonl([
      { id: 'f1', content: 'faded away', created_at: T0 - 100, odd: true, forgotten_at: T0 + 5 },
      { id: 'fw', content: 'work, faded', namespace: 'work', forgotten_at: T0 + 6 },
    ])}not json at all\n`,
  );
  fs.writeFileSync(
    path.join(dir, VECTORS_FILE),
    jsonl([
      { id: 'm1', model: 'static-1', hash: 'old', v: int8(1, 2, 3), s: 0.5 },
      { id: 'gone', model: 'static-1', hash: 'g', v: int8(9, 9, 9), s: 0.1 },
      { id: 'm1', model: 'static-1', hash: 'new', v: int8(-127, 0, 127), s: 0.0071234567 },
      { id: 'w1', model: 'static-1', hash: 'w', v: int8(4, -5, 6), s: 0.25 },
    ]),
  );
  return dir;
}

async function database(t: TestContext): Promise<{ db: TestDatabase; pool: pg.Pool } | undefined> {
  const db = await pgSchema(t);
  if (!db) return undefined;
  const pool = createPool(db.url, { max: 2 });
  t.after(() => pool.end());
  return { db, pool };
}

function options(dataDir: string, pool: pg.Pool, url: string, more: Partial<CopyOptions> = {}) {
  return { dataDir, pool, url, logger: silent, clock: () => T0, batchSize: 2, ...more };
}

/** Every live memory and relation of a data dir, by namespace. */
async function contents(dir: string) {
  const store = await JsonlStore.open({ dataDir: dir, logger: silent, clock: () => T0 });
  try {
    const out: Record<
      string,
      { memories: Map<string, MemoryRecord>; relations: Map<string, RelationRecord> }
    > = {};
    for (const ns of store.live.namespaces()) {
      const view = store.namespace(ns);
      out[ns] = { memories: new Map(view.memories), relations: new Map(view.relations) };
    }
    return out;
  } finally {
    store.close();
  }
}

const totals = (result: CopyResult, pick: 'copied' | 'written') =>
  result.namespaces.reduce(
    (n, ns) => n + ns[pick].memories + ns[pick].relations + ns[pick].forgotten + ns[pick].vectors,
    0,
  );

describe('mnemo migrate: a data dir into PostgreSQL and back', () => {
  it('the same records come back, unknown fields kept; a second run writes nothing', async (t) => {
    const pgdb = await database(t);
    if (!pgdb) return;
    const { db, pool } = pgdb;
    const src = sourceDir(t);

    const first = await copyDirToDatabase(options(src, pool, db.url));
    assert.deepEqual(
      first.migrated,
      MIGRATIONS.map((m) => m.version),
    );
    assert.equal(first.schema, db.schema);
    assert.deepEqual(first.unreadable, { [FILES.forgotten]: 1 });
    assert.deepEqual(
      first.namespaces.map((n) => [n.namespace, n.from, n.copied, n.written]),
      [
        [
          'default',
          'default',
          { memories: 2, relations: 1, forgotten: 1, vectors: 1 },
          { memories: 2, relations: 1, forgotten: 1, vectors: 1 },
        ],
        [
          'work',
          'work',
          { memories: 2, relations: 1, forgotten: 1, vectors: 1 },
          { memories: 2, relations: 1, forgotten: 1, vectors: 1 },
        ],
      ],
    );
    const rows = await db.query('SELECT id, namespace FROM mnemo_memories ORDER BY id');
    assert.deepEqual(rows, [
      { id: 'm1', namespace: 'default' },
      { id: 'm2', namespace: 'default' },
      { id: 'w1', namespace: 'work' },
      { id: 'w2', namespace: 'work' },
    ]);
    // Each record written is a change the replicas read.
    const changes = await db.query('SELECT namespace, kind, id FROM mnemo_changes ORDER BY seq');
    assert.deepEqual(
      changes.map((c) => `${c.namespace}/${c.kind}/${c.id}`).sort(),
      ['default/memory/m1', 'default/memory/m2', 'default/relation/r1', 'work/memory/w1']
        .concat(['work/memory/w2', 'work/relation/rw'])
        .sort(),
    );
    const forgotten = await db.query(
      'SELECT namespace, id, forgotten_at FROM mnemo_forgotten ORDER BY seq',
    );
    assert.deepEqual(forgotten, [
      { namespace: 'default', id: 'f1', forgotten_at: String(T0 + 5) },
      { namespace: 'work', id: 'fw', forgotten_at: String(T0 + 6) },
    ]);
    const vectors = await db.query(
      'SELECT memory_id, model, content_hash, vector FROM mnemo_vectors ORDER BY memory_id',
    );
    assert.deepEqual(
      vectors.map((v) => [v.memory_id, v.content_hash, (v.vector as Buffer).toString('base64')]),
      [
        ['m1', 'new', int8(-127, 0, 127)],
        ['w1', 'w', int8(4, -5, 6)],
      ],
    );

    const again = await copyDirToDatabase(options(src, pool, db.url));
    assert.deepEqual(again.migrated, []);
    assert.equal(totals(again, 'copied'), totals(first, 'copied'));
    assert.equal(totals(again, 'written'), 0, 'nothing new the second time');
    assert.equal((await db.query('SELECT 1 FROM mnemo_changes')).length, 6);
    assert.equal((await db.query('SELECT 1 FROM mnemo_forgotten')).length, 2);

    // Back into a new data dir: the same live records, forgotten copies and vectors.
    const back = path.join(testDir(t, 'mnemo-copy-back-'), 'data');
    const out = await copyDatabaseToDir(options(back, pool, db.url));
    assert.equal(totals(out, 'written'), totals(out, 'copied'));
    assert.deepEqual(
      out.namespaces.map((n) => [n.namespace, n.copied]),
      [
        ['default', { memories: 2, relations: 1, forgotten: 1, vectors: 1 }],
        ['work', { memories: 2, relations: 1, forgotten: 1, vectors: 1 }],
      ],
    );
    const source = await contents(src);
    const copy = await contents(back);
    assert.deepStrictEqual(copy, source);
    const m1 = copy.default?.memories.get('m1');
    assert.deepEqual(m1?.[OTHER_FIELDS], {
      embed: [0.0132, -0.0871, 0.2245],
      x_cortex: { nested: [1, 'two', null] },
    });
    assert.deepEqual(m1?.meta[OTHER_FIELDS], { colour: 'red' });

    const forgottenBack = readLines(path.join(back, FILES.forgotten));
    const forgottenThere = readLines(path.join(src, FILES.forgotten));
    const asCopy = ({ forgotten_at, namespace, ...record }: Record<string, unknown>) => ({
      forgotten_at,
      namespace,
      record: toMemoryRecord(record),
    });
    assert.deepStrictEqual(forgottenBack.map(asCopy), forgottenThere.map(asCopy));
    assert.equal(forgottenBack[0]?.odd, true, 'a forgotten copy keeps its unknown fields');
    assert.equal('namespace' in (forgottenBack[0] ?? {}), false, 'the default one names none');

    const vectorsBack = readLines(path.join(back, VECTORS_FILE));
    assert.deepEqual(
      vectorsBack.map(({ s, ...line }) => ({ ...line, s: Math.fround(s as number) })),
      [
        {
          id: 'm1',
          model: 'static-1',
          hash: 'new',
          v: int8(-127, 0, 127),
          s: Math.fround(0.0071234567),
        },
        { id: 'w1', model: 'static-1', hash: 'w', v: int8(4, -5, 6), s: 0.25 },
      ],
    );

    const files = () =>
      Object.fromEntries(
        [FILES.memories, FILES.relations, FILES.forgotten, VECTORS_FILE].map((f) => [
          f,
          fs.readFileSync(path.join(back, f), 'utf8'),
        ]),
      );
    const before = files();
    const outAgain = await copyDatabaseToDir(options(back, pool, db.url));
    assert.equal(totals(outAgain, 'written'), 0, 'nothing new the second time');
    assert.deepEqual(files(), before, 'not a line added');
  });

  it('a record changed since the last copy is written again, and told to the replicas', async (t) => {
    const pgdb = await database(t);
    if (!pgdb) return;
    const { db, pool } = pgdb;
    const src = sourceDir(t);
    await copyDirToDatabase(options(src, pool, db.url));
    const store = await JsonlStore.open({ dataDir: src, logger: silent, clock: () => T0 });
    await store.transact(() => ({
      result: null,
      memories: [newMemoryRecord('m3', 'a new one', T0)],
    }));
    const m2 = store.memories.get('m2') as MemoryRecord;
    await store.transact(() => ({ result: null, memories: [{ ...m2, use_count: 3 }] }));
    store.close();

    const listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    t.after(() => listener.end());
    await listener.query('LISTEN mnemo_changes');
    const payloads: string[] = [];
    listener.on('notification', (n) => payloads.push(n.payload ?? ''));

    const again = await copyDirToDatabase(options(src, pool, db.url));
    assert.deepEqual(
      again.namespaces.map((n) => [n.namespace, n.written]),
      [
        ['default', { memories: 2, relations: 0, forgotten: 0, vectors: 0 }],
        ['work', { memories: 0, relations: 0, forgotten: 0, vectors: 0 }],
      ],
    );
    const changes = await db.query<{ seq: string; id: string; version: string }>(
      `SELECT seq, id, version FROM mnemo_changes WHERE namespace = 'default' ORDER BY seq`,
    );
    assert.deepEqual(
      changes.slice(-2).map((c) => c.id),
      ['m2', 'm3'],
    );
    const last = changes[changes.length - 1]?.version;
    // The notification of the last batch names the schema, the namespace and its last version
    // (sent at its commit).
    await new Promise<void>((resolve) => {
      const check = () => {
        if (payloads.includes(`${db.schema}:default:${last}`)) resolve();
      };
      check();
      listener.on('notification', check);
    });
  });

  it('--namespace: the default namespace goes into it, and comes back as the default one', async (t) => {
    const pgdb = await database(t);
    if (!pgdb) return;
    const { db, pool } = pgdb;
    const src = sourceDir(t);
    const result = await copyDirToDatabase(options(src, pool, db.url, { namespace: 'alice' }));
    assert.deepEqual(
      result.namespaces.map((n) => [n.from, n.namespace]),
      [
        ['default', 'alice'],
        ['work', 'work'],
      ],
    );
    const rows = await db.query('SELECT DISTINCT namespace FROM mnemo_memories ORDER BY 1');
    assert.deepEqual(rows, [{ namespace: 'alice' }, { namespace: 'work' }]);
    const forgotten = await db.query('SELECT namespace, id FROM mnemo_forgotten ORDER BY seq');
    assert.deepEqual(forgotten, [
      { namespace: 'alice', id: 'f1' },
      { namespace: 'work', id: 'fw' },
    ]);

    const back = testDir(t, 'mnemo-copy-alice-');
    const out = await copyDatabaseToDir(options(back, pool, db.url, { namespace: 'alice' }));
    assert.deepEqual(
      out.namespaces.map((n) => [n.from, n.namespace, n.copied]),
      [['alice', 'default', { memories: 2, relations: 1, forgotten: 1, vectors: 1 }]],
    );
    const copy = await contents(back);
    assert.deepEqual(Object.keys(copy), ['default']);
    assert.deepStrictEqual(copy.default, (await contents(src)).default);
    for (const file of [FILES.memories, FILES.relations, FILES.forgotten]) {
      for (const line of readLines(path.join(back, file))) {
        assert.equal('namespace' in line, false, `${file}: a plain data dir`);
      }
    }

    await assert.rejects(
      copyDatabaseToDir(options(testDir(t), pool, db.url, { namespace: 'bob' })),
      (error: Error) =>
        error instanceof CopyError &&
        /no namespace "bob" \(it has alice, work\)/.test(error.message),
    );
  });

  it('a record the other side holds in another namespace is refused, naming it: nothing written', async (t) => {
    const pgdb = await database(t);
    if (!pgdb) return;
    const { db, pool } = pgdb;
    const src = sourceDir(t);
    await copyDirToDatabase(options(src, pool, db.url, { namespace: 'alice' }));
    const count = async () =>
      (await db.query('SELECT count(*)::int AS n FROM mnemo_changes'))[0]?.n as number;
    const before = await count();
    // m1 is alice's in the database; from this dir it would go into default.
    await assert.rejects(copyDirToDatabase(options(src, pool, db.url)), (error: Error) => {
      assert.ok(error instanceof CopyError);
      assert.match(
        error.message,
        /^memory m1 is in namespace "alice" of the database and would go into "default": nothing was copied\./,
      );
      return true;
    });
    assert.equal(await count(), before);

    // The other way: a data dir holding m1 in default, the database's m1 going into "alice".
    await assert.rejects(copyDatabaseToDir(options(src, pool, db.url)), (error: Error) => {
      assert.ok(error instanceof CopyError);
      assert.match(error.message, /^memory m1 is in namespace "default" of the data dir/);
      return true;
    });
  });

  it('refuses a source that is not a data dir, and a target that holds other things', async (t) => {
    const pgdb = await database(t);
    if (!pgdb) return;
    const { db, pool } = pgdb;
    const dir = testDir(t);
    const missing = path.join(dir, 'missing');
    await assert.rejects(
      copyDirToDatabase(options(missing, pool, db.url)),
      (error: Error) =>
        error instanceof StoreError && /no data dir at .*missing/.test(error.message),
    );
    assert.equal(fs.existsSync(missing), false, 'not made');
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'mine');
    await assert.rejects(copyDirToDatabase(options(dir, pool, db.url)), /is not a mnemo data dir/);
    // Nothing to read: the schema was not even made.
    await assert.rejects(
      copyDatabaseToDir(options(path.join(dir, 'out'), pool, db.url)),
      (error: Error) => error instanceof CopyError && /holds no mnemo tables/.test(error.message),
    );
    await copyDirToDatabase(options(sourceDir(t), pool, db.url));
    await assert.rejects(
      copyDatabaseToDir(options(dir, pool, db.url)),
      (error: Error) =>
        error instanceof StoreError &&
        /holds files and is not a mnemo data dir/.test(error.message),
    );
    await assert.rejects(
      copyDatabaseToDir(options(path.join(dir, 'notes.txt'), pool, db.url)),
      /is a file/,
    );
    assert.deepEqual(fs.readdirSync(dir).sort(), ['notes.txt']);
  });
});
