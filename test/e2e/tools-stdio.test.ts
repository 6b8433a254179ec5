import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ENGINES, engineAbsent, SEARCH_HIT_KEYS } from '../support.js';
import {
  type ChildStorage,
  type CliClient,
  childStorage,
  makeTempDir,
  removeDir,
  startClient,
} from './helpers.js';

const keys = (value: unknown) => Object.keys(value as Record<string, unknown>).sort();

for (const engine of ENGINES) {
  describe(`every tool over a real stdio session with the built CLI (${engine})`, {
    skip: await engineAbsent(engine),
  }, () => {
    let dir: string;
    let storage: ChildStorage;
    let c: CliClient;
    before(async () => {
      dir = makeTempDir();
      storage = await childStorage(engine);
      c = await startClient(dir, { env: { ...storage.env, MNEMO_NOW: '2026-01-01' } });
    });
    after(async () => {
      await c.close();
      await storage.drop();
      removeDir(dir);
    });

    it('answers each with structuredContent of the documented shape', async () => {
      const { tools } = await c.client.listTools();
      assert.equal(tools.length, 19);

      const a = await c.ok<{ memory_id: string }>('save_memory', {
        content: 'Ralph the cat sleeps on the rug',
        tags: ['pets'],
      });
      assert.deepEqual(keys(a), [
        'conflicts',
        'deduplicated',
        'memory_id',
        'similar_to',
        'supersedes',
      ]);
      const b = await c.ok<{ memory_id: string }>('save_memory', {
        content: 'The rug came from Lisbon',
        tags: ['home'],
      });

      const found = await c.ok<{ results: unknown[] }>('search_memory', { query: 'who is ralph?' });
      assert.deepEqual(keys(found), ['page', 'results', 'total']);
      assert.deepEqual(keys(found.results[0]), SEARCH_HIT_KEYS);
      assert.deepEqual(keys(await c.ok('touch_memory', { memory_id: a.memory_id })), [
        'memory_id',
        'new_score',
        'old_score',
        'strength',
        'use_count',
      ]);
      const observed = await c.ok<{ results: unknown[] }>('observe_memory_usage', {
        memory_ids: [a.memory_id],
        context_tags: ['travel'],
      });
      assert.deepEqual(keys(observed), ['not_found', 'reinforced', 'results']);
      assert.deepEqual(keys(observed.results[0]), [
        'cross_domain',
        'memory_id',
        'review_priority',
        'strength',
        'use_count',
      ]);
      assert.deepEqual(
        keys(
          await c.ok('create_relation', {
            from_memory_id: a.memory_id,
            to_memory_id: b.memory_id,
            relation_type: 'related',
          }),
        ),
        ['relation_id'],
      );
      await c.ok('create_relation', {
        from_memory_id: b.memory_id,
        to_memory_id: a.memory_id,
        relation_type: 'conflicts_with',
      });
      assert.deepEqual(
        keys(
          await c.ok('settle_conflict', {
            memory_id: a.memory_id,
            other_id: b.memory_id,
            keep: 'both',
          }),
        ),
        ['archived', 'keep', 'kept', 'memory_id', 'relation_id', 'superseded'],
      );
      const opened = await c.ok<{ memories: unknown[] }>('open_memories', {
        memory_ids: [a.memory_id],
      });
      assert.deepEqual(keys(opened), ['memories', 'not_found']);
      assert.ok(keys(opened.memories[0]).includes('relations'));
      assert.deepEqual(keys(await c.ok('gc', {})), [
        'archived_count',
        'candidates',
        'dry_run',
        'memory_ids',
        'removed_count',
        'total_affected',
      ]);
      assert.deepEqual(keys(await c.ok('promote_memory', { auto_detect: true, dry_run: true })), [
        'candidates',
        'candidates_found',
        'dry_run',
        'failed',
        'promoted',
        'promoted_count',
      ]);
      assert.deepEqual(await c.ok('archive_memory', { memory_id: b.memory_id }), {
        memory_id: b.memory_id,
        status: 'archived',
      });
      assert.deepEqual(await c.ok('restore_memory', { memory_id: b.memory_id }), {
        memory_id: b.memory_id,
        status: 'active',
      });
      assert.deepEqual(await c.ok('delete_memory', { memory_id: b.memory_id }), {
        memory_id: b.memory_id,
        status: 'deleted',
      });
      const stats = await c.ok<{ store_bytes: Record<string, number> }>('memory_stats');
      // The child keeps its memories where this suite says: the test of one engine is not the other's.
      assert.equal('mnemo_memories' in stats.store_bytes, engine === 'postgres');
      assert.equal('memories.jsonl' in stats.store_bytes, engine === 'jsonl');
      assert.deepEqual(keys(stats), [
        'by_status',
        'danger_zone_count',
        'embeddings',
        'gc_candidates',
        'promotion_candidates',
        'relations',
        'score_quantiles',
        'store_bytes',
        'total',
      ]);
    });
  });

  describe(`mnemo stdio in a namespace (${engine})`, { skip: await engineAbsent(engine) }, () => {
    it('--namespace and MNEMO_NAMESPACE choose it: each sees its own memories only', async (t) => {
      const dir = makeTempDir();
      const storage = await childStorage(engine);
      t.after(async () => {
        await storage.drop();
        removeDir(dir);
      });
      const { env } = storage;
      const work = await startClient(dir, { env, args: ['--namespace', 'work'] });
      const saved = await work.ok<{ memory_id: string }>('save_memory', {
        content: 'the quarterly report is due friday',
      });
      await work.close();
      const fromEnv = await startClient(dir, { env: { ...env, MNEMO_NAMESPACE: 'work' } });
      const found = await fromEnv.ok<{ results: { memory_id: string }[] }>('search_memory', {
        query: 'quarterly report',
      });
      assert.deepEqual(
        found.results.map((r) => r.memory_id),
        [saved.memory_id],
      );
      await fromEnv.close();
      const plain = await startClient(dir, { env });
      const none = await plain.ok<{ results: unknown[] }>('search_memory', {
        query: 'quarterly report',
      });
      assert.deepEqual(none.results, []);
      assert.equal((await plain.ok<{ total: number }>('memory_stats')).total, 0);
      await plain.close();
    });
  });
}

describe('save_memory asks the person over stdio (the built CLI)', () => {
  for (const era of ['2025-11-25', '2026-07-28'] as const) {
    it(`a ${era} client with form elicitation is asked; its answer settles the pair`, async (t) => {
      const dir = makeTempDir();
      const asked: string[] = [];
      const c = await startClient(dir, {
        env: { MNEMO_NOW: '2026-01-01' },
        client: {
          capabilities: { elicitation: { form: {} } },
          ...(era === '2026-07-28' ? { versionNegotiation: { mode: { pin: era } } } : {}),
        },
        prepare: (client) =>
          client.setRequestHandler('elicitation/create', async (request) => {
            asked.push((request.params as { message: string }).message);
            return { action: 'accept', content: { pair_1: 'old' } };
          }),
      });
      t.after(async () => {
        await c.close();
        removeDir(dir);
      });
      const older = await c.ok<{ memory_id: string }>('save_memory', { content: 'I love coffee.' });
      const result = await c.call('save_memory', { content: 'I hate coffee.' });
      assert.equal(result.isError, undefined);
      const saved = result.structuredContent as {
        memory_id: string;
        asked?: { answer: string; settled: { memory_id: string; keep: string }[] };
      };
      assert.equal(asked.length, 1);
      assert.match(asked[0] ?? '', /New: "I hate coffee\."/);
      assert.equal(saved.asked?.answer, 'settled');
      assert.deepEqual(
        saved.asked?.settled.map((s) => [s.memory_id, s.keep]),
        [[older.memory_id, 'old']],
      );
      const found = await c.ok<{ results: { memory_id: string }[] }>('search_memory', {
        query: 'coffee',
      });
      assert.deepEqual(
        found.results.map((r) => r.memory_id),
        [older.memory_id],
      );
      assert.doesNotMatch(c.stderr(), /could not be asked/);
    });
  }
});
