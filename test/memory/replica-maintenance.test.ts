// gc, promotion and consolidation run at once on two replicas of one PostgreSQL database: each
// memory is forgotten once, promoted once, merged once, whichever replica gets to it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import pino from 'pino';
import { openMemory } from '../../src/app/memory.js';
import { loadConfig } from '../../src/config/index.js';
import { eventually, TestClock, testDir } from '../support.js';
import { pgSchema } from '../support-pg.js';

/** Two replicas on one fresh schema, each with a vault of its own (two hosts), one clock. */
async function replicas(t: TestContext, env: Record<string, string> = {}) {
  const db = await pgSchema(t);
  if (!db) return undefined;
  const clock = new TestClock();
  const open = () => {
    const dir = testDir(t);
    const config = loadConfig({
      env: {
        MNEMO_EMBEDDINGS: 'off',
        MNEMO_DATA_DIR: dir,
        MNEMO_DATABASE_URL: db.url,
        MNEMO_VAULT_DIR: path.join(dir, 'vault'),
        ...env,
      },
      home: dir,
    });
    const opened = openMemory(config, { logger: pino({ level: 'silent' }), clock: clock.read });
    t.after(() => opened.close());
    return { opened, memory: opened.memory, vault: path.join(dir, 'vault') };
  };
  const a = open();
  const b = open();
  await a.opened.connected;
  await b.opened.connected;
  await a.opened.readiness.wait('store');
  await b.opened.readiness.wait('store');
  return { db, clock, a, b };
}

/** The notes of memory `id` in `vault`: the Markdown files that name it. */
function notesOf(vault: string, id: string): string[] {
  if (!fs.existsSync(vault)) return [];
  return (fs.readdirSync(vault, { recursive: true }) as string[])
    .filter((file) => file.endsWith('.md'))
    .filter((file) => fs.readFileSync(path.join(vault, file), 'utf8').includes(id));
}

describe('maintenance on two replicas at once (PostgreSQL)', () => {
  it('gc: each faded memory is forgotten once, by one replica', async (t) => {
    const r = await replicas(t);
    if (!r) return;
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      ids.push((await r.a.memory.writing.save({ content: `faded fact number ${i}` })).memory_id);
    }
    r.clock.advanceDays(120);
    await eventually(
      async () => (await r.b.memory.forgetting.gcCandidates()).length === 12,
      'b sees the faded memories',
    );
    const [fromA, fromB] = await Promise.all([
      r.a.memory.forgetting.gc({ dry_run: false }),
      r.b.memory.forgetting.gc({ dry_run: false }),
    ]);
    assert.deepEqual(
      [...fromA.memory_ids, ...fromB.memory_ids].sort(),
      [...ids].sort(),
      'every memory forgotten, none twice',
    );
    const forgotten = await r.db.query<{ n: string }>(
      'SELECT count(*) AS n FROM mnemo_forgotten WHERE namespace = $1',
      ['default'],
    );
    assert.equal(Number(forgotten[0]?.n), 12);
  });

  it('promotion: each candidate is promoted once, by one replica, with one note', async (t) => {
    const r = await replicas(t);
    if (!r) return;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { memory_id } = await r.a.memory.writing.save({
        content: `a durable fact worth keeping, number ${i}`,
      });
      ids.push(memory_id);
    }
    for (let round = 0; round < 6; round++) {
      r.clock.advanceDays(0.25);
      for (const id of ids) await r.a.memory.writing.touch({ memory_id: id });
    }
    await eventually(
      async () => (await r.b.memory.promotion.candidates()).length === 6,
      'b sees the candidates',
    );
    assert.equal((await r.a.memory.promotion.candidates()).length, 6);
    const [fromA, fromB] = await Promise.all([
      r.a.memory.promotion.promote({ auto_detect: true, dry_run: false }),
      r.b.memory.promotion.promote({ auto_detect: true, dry_run: false }),
    ]);
    const promoted = [...fromA.promoted, ...fromB.promoted].map((p) => p.memory_id).sort();
    assert.deepEqual(promoted, [...ids].sort(), 'every candidate promoted, none twice');
    assert.equal(fromA.promoted_count + fromB.promoted_count, 6);
    for (const id of ids) {
      const notes: string[] = [...notesOf(r.a.vault, id), ...notesOf(r.b.vault, id)];
      assert.equal(notes.length, 1, `one note of ${id}: ${notes.join(', ')}`);
    }
  });

  it('consolidation: a cluster is merged once, the other replica told it changed', async (t) => {
    const r = await replicas(t, { MNEMO_EMBEDDINGS: 'static' });
    if (!r) return;
    await r.a.opened.readiness.wait('embeddings');
    await r.b.opened.readiness.wait('embeddings');
    for (const content of [
      'The staging database password rotates every thirty days. Ask Dana for it.',
      'The staging database password rotates every thirty days! Ask Dana for it.',
    ]) {
      await r.a.memory.writing.save({ content });
    }
    await eventually(
      async () =>
        (await r.b.memory.consolidation.consolidate({ auto_detect: true })).consolidations
          .length === 1,
      'b sees the cluster',
    );
    const runs = await Promise.allSettled([
      r.a.memory.consolidation.consolidate({ auto_detect: true, mode: 'apply' }),
      r.b.memory.consolidation.consolidate({ auto_detect: true, mode: 'apply' }),
    ]);
    const merged = runs.flatMap((run) =>
      run.status === 'fulfilled' ? run.value.consolidations.map((c) => c.memory_id) : [],
    );
    assert.equal(merged.length, 1, 'one merged memory, by one replica');
    for (const run of runs) {
      if (run.status === 'rejected') assert.match(String(run.reason), /no longer active|not among/);
    }
    const rows = await r.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM mnemo_memories WHERE namespace = 'default' AND status = 'active'",
      [],
    );
    assert.equal(Number(rows[0]?.n), 1, 'the merged memory is the only active one');
  });
});
