import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  ENGINES,
  engineAbsent,
  errorText,
  openTestClient,
  SEARCH_HIT_KEYS,
  type TestClient,
  tempDir,
} from '../support.js';

const TOOLS = [
  'save_memory',
  'search_memory',
  'touch_memory',
  'observe_memory_usage',
  'gc',
  'promote_memory',
  'open_memories',
  'archive_memory',
  'restore_memory',
  'delete_memory',
  'create_relation',
  'update_memory',
  'read_graph',
  'delete_relation',
  'memory_stats',
  'search_unified',
  'settle_conflict',
  'cluster_memories',
  'consolidate_memories',
];

/** An object `levels` deep, meta itself the first level: {a: {a: ... {}}}. */
function nested(levels: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let at = root;
  for (let i = 1; i < levels; i++) {
    const inner: Record<string, unknown> = {};
    at.a = inner;
    at = inner;
  }
  return root;
}

/** Arguments as a client's JSON arrives: JSON.parse makes `__proto__` an own key. */
const fromJson = (text: string) => JSON.parse(text) as Record<string, unknown>;

for (const engine of ENGINES) {
  describe(`MCP tools over a linked client (${engine})`, {
    skip: await engineAbsent(engine),
  }, () => {
    let t: TestClient;
    before(async () => {
      const dir = tempDir();
      // PostgreSQL has no vault unless told one; promote_memory writes notes.
      const env: Record<string, string> =
        engine === 'postgres' ? { MNEMO_VAULT_DIR: path.join(dir, 'vault') } : {};
      t = await openTestClient(env, { dir, engine });
    });
    after(() => t.close());

    it('lists every tool with a title, description, output schema, annotations and a guide', async () => {
      const { tools } = await t.client.listTools();
      assert.deepEqual(tools.map((x) => x.name).sort(), [...TOOLS].sort());
      for (const tool of tools) {
        assert.ok(tool.title, `${tool.name} has a title`);
        assert.ok((tool.description ?? '').length > 40, `${tool.name} has a description`);
        assert.equal(tool.outputSchema?.type, 'object', `${tool.name} has an output schema`);
        assert.equal(typeof tool.annotations?.readOnlyHint, 'boolean', `${tool.name} readOnlyHint`);
        assert.equal(
          typeof tool.annotations?.destructiveHint,
          'boolean',
          `${tool.name} destructiveHint`,
        );
        assert.equal(
          typeof tool.annotations?.idempotentHint,
          'boolean',
          `${tool.name} idempotentHint`,
        );
        // The description stays short; the guide names every field and says the rest.
        const guide = await t.client.readResource({ uri: `mnemo://help/${tool.name}` });
        const text = (guide.contents[0] as { text: string }).text;
        for (const field of Object.keys(tool.inputSchema.properties ?? {})) {
          assert.match(text, new RegExp(`\\b${field}\\b`), `${tool.name}'s guide names ${field}`);
        }
      }
    });

    it('saves, finds, reinforces, observes, opens, relates and reports', async () => {
      const saved = await t.ok<{ memory_id: string; deduplicated: boolean }>('save_memory', {
        content: 'Ralph is the family cat; he sleeps on the red rug in the hall.',
        tags: ['pets', 'home'],
        entities: ['Ralph'],
        source: 'chat',
      });
      assert.equal(saved.deduplicated, false);
      const again = await t.ok<{ memory_id: string; deduplicated: boolean }>('save_memory', {
        content: '  ralph is the family cat; he sleeps on the red rug in the hall. ',
      });
      assert.deepEqual(again, {
        memory_id: saved.memory_id,
        deduplicated: true,
        supersedes: [],
        conflicts: [],
        similar_to: [],
      });

      const other = await t.ok<{ memory_id: string }>('save_memory', {
        content: 'The deploy pipeline runs on Fridays at noon.',
        tags: ['work'],
      });

      const found = await t.ok<{ results: Record<string, unknown>[]; total: number; page: number }>(
        'search_memory',
        { query: 'who is ralph?' },
      );
      assert.equal(found.total, 1);
      assert.equal(found.page, 1);
      const hit = found.results[0];
      assert.ok(hit);
      assert.deepEqual(Object.keys(hit).sort(), [...SEARCH_HIT_KEYS, 'source'].sort());
      assert.equal(hit.memory_id, saved.memory_id);
      // Its when and where, at the injected clock.
      assert.match(String(hit.date), /^\d{4}-\d{2}-\d{2}, a [A-Z][a-z]+day$/);
      assert.equal(hit.ago, 'today');
      assert.equal(hit.source, 'chat');
      assert.equal(hit.review_candidate, false);

      t.clock.advanceDays(1);
      const touched = await t.ok<{
        old_score: number;
        new_score: number;
        use_count: number;
        strength: number;
      }>('touch_memory', { memory_id: saved.memory_id, boost_strength: true });
      assert.ok(touched.new_score > touched.old_score);
      assert.equal(touched.use_count, 2); // the dedup save counted as one use
      assert.equal(touched.strength, 1.1);

      const observed = await t.ok<{
        results: { memory_id: string; cross_domain: boolean; use_count: number }[];
        not_found: string[];
      }>('observe_memory_usage', {
        memory_ids: [saved.memory_id, 'missing-id'],
        context_tags: ['travel'],
      });
      assert.deepEqual(observed.not_found, ['missing-id']);
      assert.equal(observed.results[0]?.cross_domain, true);
      assert.equal(observed.results[0]?.use_count, 3);

      const rel = await t.ok<{ relation_id: string }>('create_relation', {
        from_memory_id: saved.memory_id,
        to_memory_id: other.memory_id,
        relation_type: 'related',
      });
      const opened = await t.ok<{
        memories: {
          id: string;
          relations: { id: string }[];
          cross_domain_count: number;
          review_count: number;
        }[];
        not_found: string[];
      }>('open_memories', { memory_ids: [saved.memory_id, 'nope'] });
      assert.deepEqual(opened.not_found, ['nope']);
      assert.equal(opened.memories[0]?.relations[0]?.id, rel.relation_id);
      assert.equal(opened.memories[0]?.cross_domain_count, 1);
      assert.equal(opened.memories[0]?.review_count, 1);

      const stats = await t.ok<{
        total: number;
        by_status: { active: number };
        relations: number;
        store_bytes: Record<string, number>;
      }>('memory_stats');
      // The memories are where this suite says: the test of one engine is not the other's.
      assert.equal('mnemo_memories' in stats.store_bytes, engine === 'postgres');
      assert.equal(stats.total, 2);
      assert.equal(stats.by_status.active, 2);
      assert.equal(stats.relations, 1);
    });

    it('archives, restores, deletes recoverably, and collects garbage', async () => {
      const { memory_id } = await t.ok<{ memory_id: string }>('save_memory', {
        content: 'A fleeting thought about kites.',
      });
      assert.deepEqual(await t.ok('archive_memory', { memory_id }), {
        memory_id,
        status: 'archived',
      });
      const hidden = await t.ok<{ total: number }>('search_memory', { query: 'kites' });
      assert.equal(hidden.total, 0);
      assert.deepEqual(await t.ok('restore_memory', { memory_id }), {
        memory_id,
        status: 'active',
      });
      assert.deepEqual(await t.ok('delete_memory', { memory_id }), {
        memory_id,
        status: 'deleted',
      });
      assert.deepEqual(await t.ok('restore_memory', { memory_id }), {
        memory_id,
        status: 'active',
      });

      t.clock.advanceDays(90);
      const dry = await t.ok<{
        dry_run: boolean;
        total_affected: number;
        memory_ids: string[];
        removed_count: number;
      }>('gc');
      assert.equal(dry.dry_run, true);
      assert.ok(dry.memory_ids.includes(memory_id));
      assert.equal(dry.removed_count, dry.total_affected);
      const still = await t.ok<{ total: number }>('search_memory', { query: 'kites' });
      assert.equal(still.total, 1, 'a dry run forgets nothing');
      const done = await t.ok<{ dry_run: boolean; removed_count: number }>('gc', {
        dry_run: false,
      });
      assert.equal(done.dry_run, false);
      assert.equal(done.removed_count, dry.total_affected);
      assert.equal((await t.ok<{ total: number }>('search_memory', { query: 'kites' })).total, 0);
      assert.deepEqual(await t.ok('restore_memory', { memory_id }), {
        memory_id,
        status: 'active',
      });
      assert.equal((await t.ok<{ total: number }>('search_memory', { query: 'kites' })).total, 1);

      // Deleted, saved again, restored: merged into the live copy, which the answer names.
      await t.ok('delete_memory', { memory_id });
      const again = await t.ok<{ memory_id: string }>('save_memory', {
        content: 'A fleeting thought about kites.',
      });
      const merged = await t.call('restore_memory', { memory_id });
      assert.deepEqual(merged.structuredContent, {
        memory_id,
        status: 'merged',
        merged_into: again.memory_id,
      });
      assert.match(
        errorText(merged),
        new RegExp(`same content as the live memory ${again.memory_id}: merged into it`),
      );
      assert.equal((await t.ok<{ total: number }>('search_memory', { query: 'kites' })).total, 1);
    });

    it('promote_memory lists candidates in a dry run, then writes their notes', async () => {
      const { memory_id } = await t.ok<{ memory_id: string }>('save_memory', {
        content: 'Use pnpm in the mnemo repo.',
        tags: ['project/mnemo'],
      });
      for (let i = 0; i < 5; i++) await t.ok('touch_memory', { memory_id });
      const dry = await t.ok<{
        candidates_found: number;
        candidates: { memory_id: string; reason: string }[];
      }>('promote_memory', { auto_detect: true, dry_run: true });
      assert.ok(dry.candidates.some((c) => c.memory_id === memory_id && c.reason.length > 0));
      const real = await t.ok<{ promoted: { memory_id: string; path: string }[] }>(
        'promote_memory',
        {
          memory_id,
        },
      );
      assert.deepEqual(real.promoted, [{ memory_id, path: 'mnemo/use-pnpm-in-the-mnemo-repo.md' }]);
      const unified = await t.ok<{
        results: { source: string; memory_id?: string; path?: string }[];
      }>('search_unified', { query: 'pnpm' });
      assert.equal(unified.results.length, 1);
      assert.equal(unified.results[0]?.memory_id, memory_id);
      assert.equal(unified.results[0]?.path, 'mnemo/use-pnpm-in-the-mnemo-repo.md');
      const neither = await t.call('promote_memory', {});
      assert.equal(neither.isError, true);
      assert.match(errorText(neither), /memory_id, or auto_detect/);
    });

    describe('bad input answers isError naming the field and the fix', () => {
      const cases: [string, string, Record<string, unknown>, RegExp][] = [
        ['empty content', 'save_memory', { content: '' }, /content is empty.*text to remember/],
        ['blank content', 'save_memory', { content: '   ' }, /content is only white space/],
        [
          'content of zero-width and other invisible characters',
          'save_memory',
          { content: '\u200b\u200c\u200d\u2060\ufeff\u00ad \u180e\n\u3164' },
          /content is only white space or invisible characters \(such as zero-width spaces\): pass the text/,
        ],
        [
          'meta nested 10,000 levels deep',
          'save_memory',
          { content: 'deep meta', meta: nested(10_000) },
          /meta is nested deeper than 8 levels: flatten it/,
        ],
        [
          'meta nested 9 levels deep',
          'save_memory',
          { content: 'deep meta', meta: nested(9) },
          /meta is nested deeper than 8 levels: flatten it/,
        ],
        [
          'a __proto__ key in meta',
          'save_memory',
          fromJson('{"content": "proto meta", "meta": {"__proto__": {"admin": true}, "ok": 1}}'),
          /meta has a key named "__proto__", which cannot be kept: rename it/,
        ],
        [
          'a __proto__ key deeper in meta',
          'save_memory',
          fromJson('{"content": "proto meta", "meta": {"a": [{"__proto__": 1}]}}'),
          /meta\.a\[0\] has a key named "__proto__"/,
        ],
        [
          'meta too large',
          'save_memory',
          { content: 'large meta', meta: { pad: 'x'.repeat(16_000) } },
          /meta is 16,010 characters as JSON, over 16,000: keep it to a few fields/,
        ],
        [
          'meta that is not an object',
          'save_memory',
          { content: 'text meta', meta: '{"a": 1}' },
          /meta must be an object of JSON fields/,
        ],
        [
          'relation metadata nested 10,000 levels deep',
          'create_relation',
          {
            from_memory_id: 'a',
            to_memory_id: 'b',
            relation_type: 'related',
            metadata: nested(10_000),
          },
          /metadata is nested deeper than 8 levels: flatten it/,
        ],
        [
          'a __proto__ key in relation metadata',
          'create_relation',
          fromJson(
            '{"from_memory_id": "a", "to_memory_id": "b", "relation_type": "related", "metadata": {"__proto__": {}}}',
          ),
          /metadata has a key named "__proto__"/,
        ],
        [
          'oversized content',
          'save_memory',
          { content: 'x'.repeat(50_001) },
          /content is longer than 50,000 characters: shorten it or split it/,
        ],
        [
          'too many tags',
          'save_memory',
          { content: 'ok', tags: Array.from({ length: 51 }, (_, i) => `t${i}`) },
          /tags has more than 50 tags/,
        ],
        [
          'malformed tag',
          'save_memory',
          { content: 'ok', tags: ['has space'] },
          /tags has an invalid tag "has space": use 1 to 64 of A-Z/,
        ],
        [
          'non-numeric strength',
          'save_memory',
          { content: 'ok', strength: 'strong' },
          /strength must be a number from 1 to 2/,
        ],
        [
          'strength out of range',
          'save_memory',
          { content: 'ok', strength: 3 },
          /strength must be at most 2/,
        ],
        ['top_k too big', 'search_memory', { query: 'x', top_k: 101 }, /top_k must be at most 100/],
        ['top_k zero', 'search_memory', { query: 'x', top_k: 0 }, /top_k must be at least 1/],
        [
          'a status list longer than the statuses',
          'search_memory',
          { query: 'x', status: ['active', 'active', 'promoted', 'archived', 'superseded'] },
          /status lists more than 4 statuses: name each of active, promoted, archived, superseded once/,
        ],
        [
          'a relation_types list longer than the types',
          'read_graph',
          { relation_types: Array(8).fill('related') },
          /relation_types lists more than 7 types: name each once/,
        ],
        [
          'unknown memory_id',
          'touch_memory',
          { memory_id: 'no-such-id' },
          /memory_id "no-such-id" is not a known memory: find ids with search_memory/,
        ],
        [
          'unknown memory_id that reads as a path: said without it, not hidden as a server path',
          'touch_memory',
          { memory_id: '/etc/passwd' },
          /^the memory_id given is not a known memory: find ids with search_memory/,
        ],
        [
          'unknown relation end',
          'create_relation',
          { from_memory_id: 'a', to_memory_id: 'b', relation_type: 'related' },
          /from_memory_id "a" is not a known memory/,
        ],
        [
          'unknown relation type',
          'create_relation',
          { from_memory_id: 'a', to_memory_id: 'b', relation_type: 'likes' },
          /relation_type must be one of related, causes/,
        ],
        ['empty id list', 'open_memories', { memory_ids: [] }, /memory_ids is empty/],
        ['empty unified query', 'search_unified', { query: '' }, /query is empty/],
        [
          'negative weight',
          'search_unified',
          { query: 'x', ltm_weight: -1 },
          /ltm_weight must be 0 or more/,
        ],
        [
          'promote unknown id',
          'promote_memory',
          { memory_id: 'nope' },
          /memory_id "nope" is not a known memory/,
        ],
        [
          'clusters with embeddings off',
          'cluster_memories',
          {},
          /embeddings are off: set MNEMO_EMBEDDINGS to auto or static/,
        ],
        [
          'threshold too low',
          'cluster_memories',
          { threshold: 0.2 },
          /threshold must be at least 0.5/,
        ],
        [
          'cluster size of one',
          'cluster_memories',
          { max_cluster_size: 1 },
          /max_cluster_size must be at least 2/,
        ],
        [
          'consolidate without a cluster',
          'consolidate_memories',
          {},
          /needs cluster_id \(from cluster_memories\), or auto_detect: true/,
        ],
        [
          'a source over 500 characters',
          'save_memory',
          { content: 'long source', source: 's'.repeat(501) },
          /: source is longer than 500 characters: /,
        ],
        [
          'a context over 2,000 characters',
          'save_memory',
          { content: 'long context', context: 'c'.repeat(2001) },
          /: context is longer than 2,000 characters: /,
        ],
        [
          'an entity over 200 characters',
          'save_memory',
          { content: 'long entity', entities: ['e'.repeat(201)] },
          /entities\.0: entities has a name longer than 200 characters: /,
        ],
        [
          'an empty entity',
          'save_memory',
          { content: 'empty entity', entities: [''] },
          /entities\.0: entities has an empty name: /,
        ],
        ['a page of 1.5', 'search_memory', { page: 1.5 }, /: page must be a whole number, from 1/],
        [
          'a preview_length over 50,000',
          'search_memory',
          { preview_length: 50_001 },
          /: preview_length must be at most 50,000/,
        ],
        ['a flag sent as a string', 'gc', { dry_run: 'false' }, /: dry_run must be true or false/],
        ['a gc limit over 100,000', 'gc', { limit: 100_001 }, /: limit must be at most 100,000/],
        [
          'malformed cluster id',
          'consolidate_memories',
          { cluster_id: '42' },
          /cluster_id must be an id from cluster_memories/,
        ],
        [
          'unknown consolidate mode',
          'consolidate_memories',
          { cluster_id: 'c-0123456789ab', mode: 'merge' },
          /mode must be preview, apply or link/,
        ],
      ];
      for (const [label, tool, args, message] of cases) {
        it(label, async () => {
          const before = await t.ok<{ total: number }>('memory_stats');
          const result = await t.call(tool, args);
          assert.equal(result.isError, true);
          assert.match(errorText(result), message);
          const afterStats = await t.ok<{ total: number }>('memory_stats');
          assert.equal(afterStats.total, before.total, 'nothing was written or lost');
        });
      }
    });

    it('keeps meta up to the limits as given, and says the limits in the guides', async () => {
      const meta = {
        ...nested(8),
        constructor: 'kept',
        prototype: ['kept'],
        text: 'y'.repeat(15_000),
      };
      const saved = await t.ok<{ memory_id: string }>('save_memory', {
        content: 'meta at the limits',
        meta,
      });
      const opened = await t.ok<{ memories: { meta: { extra: unknown } }[] }>('open_memories', {
        memory_ids: [saved.memory_id],
      });
      assert.deepEqual(opened.memories[0]?.meta.extra, meta);
      for (const name of ['save_memory', 'create_relation']) {
        const guide = await t.client.readResource({ uri: `mnemo://help/${name}` });
        assert.match(
          (guide.contents[0] as { text: string }).text,
          /at most 8 levels deep and 16,000 characters as JSON, without a "__proto__" key/,
        );
      }
    });

    it('the use cases refuse the same content and meta from any caller', async () => {
      await assert.rejects(
        t.memory.writing.save({ content: '\u200b\u2060' }),
        /content is only white space/,
      );
      await assert.rejects(
        t.memory.writing.save({ content: 'deep', meta: nested(10_000) }),
        /meta is nested deeper than 8 levels/,
      );
      await assert.rejects(
        t.memory.writing.save({ content: 'proto', meta: fromJson('{"__proto__": {}}') }),
        /meta has a key named "__proto__"/,
      );
    });
  });
}
