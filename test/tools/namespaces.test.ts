import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { Memory } from '../../src/memory/index.js';
import { createServer } from '../../src/server.js';
import {
  ENGINES,
  engineAbsent,
  errorText,
  openTestMemory,
  type TestMemory,
  tempDir,
} from '../support.js';

interface Linked {
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  ok<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>;
  close(): Promise<void>;
}

async function link(memory: Memory, t: TestMemory): Promise<Linked> {
  const server = createServer({ memory, logger: t.logger });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'mnemo-test', version: '0.0.0' });
  await client.connect(clientSide);
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    call,
    async ok<T>(name: string, args: Record<string, unknown> = {}) {
      const result = await call(name, args);
      if (result.isError) throw new Error(`${name} failed: ${errorText(result)}`);
      return result.structuredContent as T;
    },
    async close() {
      await client.close();
      await server.close();
    },
  };
}

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

/** The namespace each stored memory and relation carries (undefined: none written). */
async function storedNamespaces(t: TestMemory) {
  const of = (rows: Record<string, unknown>[]) =>
    new Map(rows.map((r) => [r.id as string, r.namespace as string | undefined]));
  if (t.database) {
    const memories = await t.database.query('SELECT id, namespace FROM mnemo_memories');
    const relations = await t.database.query('SELECT id, namespace FROM mnemo_relations');
    return { memories: of(memories), relations: of(relations) };
  }
  const lines = (file: string) =>
    fs
      .readFileSync(path.join(t.dir, file), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { memories: of(lines('memories.jsonl')), relations: of(lines('relations.jsonl')) };
}

for (const engine of ENGINES) {
  describe(`namespaces: a tool call sees and changes its own namespace only (${engine})`, {
    skip: await engineAbsent(engine),
  }, () => {
    let t: TestMemory;
    let a: Linked;
    let b: Linked;
    const ids: string[] = [];
    let idA = '';

    before(async () => {
      const dir = tempDir();
      // On PostgreSQL too: a vault, for the promotion's note.
      const vault = path.join(dir, 'vault');
      t = await openTestMemory({ MNEMO_EMBEDDINGS: 'static', MNEMO_VAULT_DIR: vault }, dir, {
        engine,
      });
      await t.opened.readiness.wait('store');
      await t.opened.readiness.wait('embeddings');
      a = await link(t.opened.memoryFor('a'), t);
      b = await link(t.opened.memoryFor('b'), t);
      for (const content of [
        'apples grow in the orchard behind the old barn',
        'apples grow in the orchard behind the old red barn',
        'the orchard apples are picked in late september',
      ]) {
        ids.push((await a.ok<{ memory_id: string }>('save_memory', { content })).memory_id);
      }
      idA = ids[0] as string;
      await a.ok('create_relation', {
        from_memory_id: ids[0],
        to_memory_id: ids[1],
        relation_type: 'related',
      });
      await a.ok('promote_memory', { memory_id: ids[2], dry_run: false, force: true });
    });
    after(async () => {
      await a.close();
      await b.close();
      await t.close();
    });

    /** The call about a memory of `a`, from `b`, answers as one about an id nobody has. */
    async function sameAsUnknown(name: string, args: (id: string) => Record<string, unknown>) {
      const theirs = await b.call(name, args(idA));
      const nobody = await b.call(name, args(UNKNOWN));
      assert.equal(theirs.isError, nobody.isError, name);
      const text = (r: CallToolResult, id: string) => errorText(r).replaceAll(id, '<id>');
      assert.equal(text(theirs, idA), text(nobody, UNKNOWN), name);
      const shape = (r: CallToolResult, id: string) =>
        JSON.stringify(r.structuredContent ?? null).replaceAll(id, '<id>');
      assert.equal(shape(theirs, idA), shape(nobody, UNKNOWN), name);
    }

    it('search, search_unified, open, stats, gc candidates, promotion and clusters find nothing of a', async () => {
      const search = await b.ok<{ results: unknown[] }>('search_memory', {
        query: 'orchard apples',
      });
      assert.deepEqual(search.results, []);
      const unified = await b.ok<{ results: unknown[] }>('search_unified', { query: 'orchard' });
      assert.deepEqual(unified.results, []);
      const stats = await b.ok<Record<string, unknown>>('memory_stats');
      assert.equal(stats.total, 0);
      assert.equal(stats.relations, 0);
      assert.deepEqual(
        [
          (stats.embeddings as { vectors: number }).vectors,
          (stats.embeddings as { backlog: number }).backlog,
        ],
        [0, 0],
      );
      for (const bytes of Object.values(stats.store_bytes as Record<string, number>)) {
        assert.equal(bytes, 0);
      }
      const candidates = await b.ok<{ candidates_found: number }>('promote_memory', {
        auto_detect: true,
        dry_run: true,
      });
      assert.equal(candidates.candidates_found, 0);
      const clusters = await b.ok<{ clusters: unknown[] }>('cluster_memories', {
        find_duplicates: true,
      });
      assert.deepEqual(clusters.clusters, []);
      const consolidated = await b.ok<Record<string, unknown>>('consolidate_memories', {
        auto_detect: true,
        mode: 'preview',
      });
      assert.deepEqual(consolidated.consolidations ?? [], []);
      // a itself sees them all: the test would pass on an empty store otherwise.
      const own = await a.ok<Record<string, unknown>>('memory_stats');
      assert.equal(own.total, 3);
      assert.equal(own.relations, 1);
      assert.equal((own.embeddings as { vectors: number }).vectors, 3);
      const found = await a.ok<{ results: unknown[] }>('search_memory', {
        query: 'orchard apples',
      });
      assert.equal(found.results.length, 3);
      const ownClusters = await a.ok<{ clusters: unknown[] }>('cluster_memories', {
        find_duplicates: true,
      });
      assert.ok(ownClusters.clusters.length > 0);
    });

    it("every call about a's memory from b answers as for an unknown id, and changes nothing", async () => {
      await sameAsUnknown('open_memories', (id) => ({ memory_ids: [id] }));
      await sameAsUnknown('touch_memory', (id) => ({ memory_id: id }));
      await sameAsUnknown('observe_memory_usage', (id) => ({ memory_ids: [id] }));
      await sameAsUnknown('archive_memory', (id) => ({ memory_id: id }));
      await sameAsUnknown('delete_memory', (id) => ({ memory_id: id }));
      await sameAsUnknown('restore_memory', (id) => ({ memory_id: id }));
      await sameAsUnknown('restore_memory', (id) => ({ memory_id: id, version: 1 }));
      await sameAsUnknown('update_memory', (id) => ({ memory_id: id, content: 'changed by b' }));
      await sameAsUnknown('promote_memory', (id) => ({
        memory_id: id,
        dry_run: false,
        force: true,
      }));
      const mine = (await b.ok<{ memory_id: string }>('save_memory', { content: 'pears in b' }))
        .memory_id;
      await sameAsUnknown('create_relation', (id) => ({
        from_memory_id: mine,
        to_memory_id: id,
        relation_type: 'related',
      }));
      await sameAsUnknown('create_relation', (id) => ({
        from_memory_id: id,
        to_memory_id: mine,
        relation_type: 'related',
      }));
      // Nothing of a moved.
      const opened = await a.ok<{ memories: { id: string; use_count: number; status: string }[] }>(
        'open_memories',
        { memory_ids: ids },
      );
      assert.deepEqual(
        opened.memories.map((m) => [m.id, m.use_count, m.status]),
        [
          [ids[0], 0, 'active'],
          [ids[1], 0, 'active'],
          [ids[2], 0, 'promoted'],
        ],
      );
      await b.ok('delete_memory', { memory_id: mine });
    });

    it('gc in b forgets none of a, and the same content saved in b is a memory of its own', async () => {
      const saved = await b.ok<{ memory_id: string; deduplicated?: boolean }>('save_memory', {
        content: 'apples grow in the orchard behind the old barn',
      });
      assert.notEqual(saved.memory_id, idA);
      assert.notEqual(saved.deduplicated, true);
      t.clock.advanceDays(400);
      const gc = await b.ok<{ removed_count: number }>('gc', { dry_run: false });
      assert.equal(gc.removed_count, 1);
      const own = await a.ok<{ total: number }>('memory_stats');
      assert.equal(own.total, 3);
      const restored = await b.ok<{ status: string }>('restore_memory', {
        memory_id: saved.memory_id,
      });
      assert.equal(restored.status, 'active');
      // a cannot restore b's forgotten copy either.
      const fromA = await a.call('restore_memory', { memory_id: saved.memory_id });
      const unknown = await a.call('restore_memory', { memory_id: UNKNOWN });
      assert.equal(fromA.isError, unknown.isError);
    });

    it("a's note goes to mnemo/a/, its records carry the namespace, the default one's do not", async () => {
      const notes = fs.readdirSync(path.join(t.vault, 'mnemo', 'a'));
      assert.equal(notes.filter((n) => n.endsWith('.md')).length, 1);
      const plain = await t.memory.writing.save({ content: 'a memory of the default namespace' });
      const stored = await storedNamespaces(t);
      for (const id of ids) assert.equal(stored.memories.get(id), 'a');
      // JSONL writes no namespace for the default one; PostgreSQL has a column for it.
      assert.equal(stored.memories.has(plain.memory_id), true);
      assert.equal(
        stored.memories.get(plain.memory_id),
        engine === 'postgres' ? 'default' : undefined,
      );
      assert.ok(stored.relations.size > 0);
      assert.ok([...stored.relations.values()].every((ns) => ns === 'a'));
      // The default namespace sees nothing of a, its notes included.
      const unified = await t.memory.recall.searchUnified({ query: 'orchard' });
      assert.deepEqual(unified.results, []);
    });
  });
}

for (const engine of ENGINES) {
  describe(`namespaces: memory_stats shows one namespace nothing of another's writes (${engine})`, {
    skip: await engineAbsent(engine),
  }, () => {
    it('store_bytes of bob stays the same while alice saves, relates, deletes and forgets', async (tc) => {
      const t = await openTestMemory({}, tempDir(), { engine });
      tc.after(() => t.close());
      const alice = await link(t.opened.memoryFor('alice'), t);
      const bob = await link(t.opened.memoryFor('bob'), t);
      tc.after(async () => {
        await alice.close();
        await bob.close();
      });
      await bob.ok('save_memory', { content: 'the ferry leaves at nine from the east pier' });
      const bytesOfBob = async () =>
        (await bob.ok<{ store_bytes: Record<string, number> }>('memory_stats')).store_bytes;
      const before = await bytesOfBob();
      assert.ok(
        Object.values(before).some((n) => n > 0),
        'bob sees his own bytes',
      );
      const theirs: string[] = [];
      for (let i = 0; i < 20; i++) {
        const content = `alice's secret number ${i} is ${'x'.repeat(200 * i)}`;
        theirs.push((await alice.ok<{ memory_id: string }>('save_memory', { content })).memory_id);
      }
      await alice.ok('create_relation', {
        from_memory_id: theirs[0],
        to_memory_id: theirs[1],
        relation_type: 'related',
      });
      assert.deepEqual(await bytesOfBob(), before, 'after alice saves');
      // Every memory of alice deleted: bob is the only namespace with a live record left.
      for (const id of theirs) await alice.ok('delete_memory', { memory_id: id });
      assert.deepEqual(await bytesOfBob(), before, 'after alice deletes all of hers');
    });
  });
}
