// mnemo import and export against both engines: what the importer writes from each source, that a
// second run adds nothing, that a dry run writes nothing, that an import stopped part way is
// finished by the next run, and the round trips (mnemo -> export -> import, server-memory file ->
// import -> export).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { serverMemoryExportLines } from '../../src/transfer/export-server-memory.js';
import { derivedId, importInto } from '../../src/transfer/import.js';
import { mnemoExportLines, mnemoSource } from '../../src/transfer/mnemo-format.js';
import { serverMemorySource } from '../../src/transfer/sources/server-memory.js';
import type { ImportEntry, ImportSource } from '../../src/transfer/types.js';
import { writeLinesToFile } from '../../src/transfer/write-lines.js';
import { ENGINES, engineAbsent, openTestClient, T0, tempDir } from '../support.js';

async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

const GRAPH = [
  {
    type: 'entity',
    name: 'Alice',
    entityType: 'person',
    observations: ['Alice likes green tea', 'Alice works on the billing team'],
  },
  { type: 'entity', name: 'Acme', entityType: 'Company Org', observations: ['Acme sells anvils'] },
  { type: 'entity', name: 'Lonely', entityType: 'thing', observations: [] },
  { type: 'relation', from: 'Alice', to: 'Acme', relationType: 'works_at' },
  { type: 'relation', from: 'Lonely', to: 'Alice', relationType: 'knows' },
];

function writeGraph(dir: string, rows: unknown[] = GRAPH): string {
  const file = path.join(dir, 'memory.jsonl');
  fs.writeFileSync(file, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return file;
}

/** A source that yields `count` memories, then fails as a disk or a parser might. */
function failingSource(count: number, failAfter: number | undefined): ImportSource {
  return {
    format: 'markdown',
    async *entries(): AsyncGenerator<ImportEntry> {
      for (let i = 0; i < count; i++) {
        if (i === failAfter) throw new Error('the source broke');
        yield { kind: 'memory', key: `note-${i}.md`, content: `note number ${i} about anvils` };
      }
    },
  };
}

for (const engine of ENGINES) {
  describe(`mnemo import and export (${engine})`, { skip: await engineAbsent(engine) }, () => {
    it('imports a server-memory graph: observations as memories, entity and type, relations between first memories', async (t) => {
      const m = await openTestClient({}, { engine });
      t.after(() => m.close());
      const file = writeGraph(m.dir);
      const summary = await importInto({
        engine: m.store,
        source: serverMemorySource,
        path: file,
        clock: m.clock.read,
      });
      assert.equal(summary.imported, 4);
      assert.equal(summary.relations, 2);
      assert.deepEqual(summary.refused, []);
      const records = [...m.store.memories.values()];
      const tea = records.find((r) => r.content === 'Alice likes green tea');
      assert.ok(tea);
      assert.deepEqual(tea.entities, ['Alice']);
      assert.deepEqual(tea.meta.tags, ['person']);
      assert.equal(tea.created_at, m.clock.now);
      const acme = records.find((r) => r.content === 'Acme sells anvils');
      assert.deepEqual(acme?.meta.tags, ['Company-Org']);
      const lonely = records.find((r) => r.entities[0] === 'Lonely');
      assert.equal(lonely?.content, 'Lonely (thing)');
      const worksAt = [...m.store.relations.values()].find(
        (r) => r.metadata.relationType === 'works_at',
      );
      assert.equal(worksAt?.from_memory_id, tea.id, 'the entity’s first observation stands for it');
      assert.equal(worksAt?.to_memory_id, acme?.id);
      assert.equal(worksAt?.relation_type, 'related');
      const found = await m.ok<{ results: { memory_id: string }[] }>('search_memory', {
        query: 'green tea',
      });
      assert.equal(found.results[0]?.memory_id, tea.id);
    });

    it('runs twice without adding anything, and a dry run writes nothing', async (t) => {
      const m = await openTestClient({}, { engine });
      t.after(() => m.close());
      const file = writeGraph(m.dir);
      const options = { engine: m.store, source: serverMemorySource, path: file };
      const dry = await importInto({ ...options, clock: m.clock.read, dryRun: true });
      assert.equal(dry.imported, 4);
      assert.equal(dry.relations, 2);
      assert.equal(m.store.memories.size, 0, 'a dry run writes nothing');
      await importInto({ ...options, clock: m.clock.read });
      m.clock.now += 3600;
      const again = await importInto({ ...options, clock: m.clock.read });
      assert.equal(again.imported, 0);
      assert.equal(again.relations, 0);
      assert.equal(again.skipped_existing, 6);
      assert.equal(m.store.memories.size, 4);
      assert.equal(m.store.relations.size, 2);
      const record = [...m.store.memories.values()][0];
      const origin = record?.meta.extra.imported_from as { format?: string; key?: string };
      assert.equal(origin?.format, 'server-memory');
      assert.match(origin?.key ?? '', /^server-memory:Alice:/);
    });

    it('an import that fails part way keeps whole batches, and the next run finishes the rest', async (t) => {
      const m = await openTestClient({}, { engine });
      t.after(() => m.close());
      await assert.rejects(
        importInto({
          engine: m.store,
          source: failingSource(250, 130),
          path: '-',
          clock: m.clock.read,
          batchSize: 50,
        }),
        /the source broke/,
      );
      assert.equal(m.store.memories.size, 100, 'two whole batches of 50, nothing of the third');
      const rest = await importInto({
        engine: m.store,
        source: failingSource(250, undefined),
        path: '-',
        clock: m.clock.read,
        batchSize: 50,
      });
      assert.equal(rest.imported, 150);
      assert.equal(rest.skipped_existing, 100);
      assert.equal(m.store.memories.size, 250);
      assert.ok(m.store.memories.has(derivedId('default', 'markdown', 'note-0.md')));
    });

    it('server-memory file -> import -> export as server-memory gives the same entities and observations', async (t) => {
      const m = await openTestClient({}, { engine });
      t.after(() => m.close());
      const file = writeGraph(m.dir);
      await importInto({
        engine: m.store,
        source: serverMemorySource,
        path: file,
        clock: m.clock.read,
      });
      const exported = (await collect(serverMemoryExportLines(m.store))).map((l) => JSON.parse(l));
      assert.deepEqual(exported, GRAPH);
    });

    it('mnemo -> export -> import into an empty store gives the same memories, relations, forgotten copies and scores', async (t) => {
      const a = await openTestClient({}, { engine });
      t.after(() => a.close());
      const ids: string[] = [];
      for (const content of [
        'the deploy runs on Fridays',
        'the staging database is called cobalt',
        'Ana reviews every migration',
      ]) {
        const saved = await a.ok<{ memory_id: string }>('save_memory', {
          content,
          tags: ['ops'],
          entities: ['Ana'],
          meta: { ticket: 42 },
        });
        ids.push(saved.memory_id);
        a.clock.now += 3600;
      }
      const [deploy, cobalt, ana] = ids as [string, string, string];
      await a.ok('touch_memory', { memory_id: cobalt });
      await a.ok('create_relation', {
        from_memory_id: deploy,
        to_memory_id: cobalt,
        relation_type: 'supports',
      });
      await a.ok('update_memory', { memory_id: deploy, content: 'the deploy runs on Thursdays' });
      await a.ok('delete_memory', { memory_id: ana });
      const file = path.join(tempDir('mnemo-export-'), 'export.jsonl');
      t.after(() => fs.rmSync(path.dirname(file), { recursive: true, force: true }));
      await writeLinesToFile(file, mnemoExportLines(a.store, a.clock.now));

      const b = await openTestClient({}, { engine });
      t.after(() => b.close());
      b.clock.now = a.clock.now;
      const summary = await importInto({
        engine: b.store,
        source: mnemoSource,
        path: file,
        clock: b.clock.read,
      });
      assert.deepEqual(
        { imported: summary.imported, relations: summary.relations, forgotten: summary.forgotten },
        { imported: 2, relations: 1, forgotten: 1 },
      );
      for (const id of [deploy, cobalt]) {
        assert.deepEqual(b.store.memories.get(id), a.store.memories.get(id), id);
      }
      assert.deepEqual([...b.store.relations.values()], [...a.store.relations.values()]);
      const scores = async (c: typeof a) =>
        (
          await c.ok<{ results: { memory_id: string; score: number }[] }>('search_memory', {
            query: 'deploy staging database',
          })
        ).results.map((r) => [r.memory_id, r.score]);
      assert.deepEqual(await scores(b), await scores(a));
      const restored = await b.ok<{ status: string }>('restore_memory', { memory_id: ana });
      assert.equal(restored.status, 'active');
      assert.equal(b.store.memories.get(ana)?.content, 'Ana reviews every migration');

      const again = await importInto({
        engine: b.store,
        source: mnemoSource,
        path: file,
        clock: b.clock.read,
      });
      assert.equal(again.imported + again.relations + again.forgotten, 0);
    });

    it('imports one file into two namespaces as two sets of memories, each seen by its own only', async (t) => {
      const m = await openTestClient({}, { engine });
      t.after(() => m.close());
      const file = writeGraph(m.dir);
      for (const ns of ['default', 'work']) {
        const summary = await importInto({
          engine: m.store.namespace(ns),
          source: serverMemorySource,
          path: file,
          clock: m.clock.read,
        });
        assert.deepEqual([summary.imported, summary.refused.length], [4, 0], ns);
      }
      const work = m.store.namespace('work');
      assert.equal(work.memories.size, 4);
      assert.equal(m.store.memories.size, 4);
      for (const id of work.memories.keys()) assert.equal(m.store.memories.has(id), false);
    });

    it('refuses a memory whose id another namespace holds, naming it, and imports the rest', async (t) => {
      const m = await openTestClient({}, { engine });
      t.after(() => m.close());
      const saved = await m.ok<{ memory_id: string }>('save_memory', {
        content: 'only in default',
      });
      const file = path.join(m.dir, 'export.jsonl');
      await writeLinesToFile(file, mnemoExportLines(m.store, T0));
      const work = m.store.namespace('work');
      const summary = await importInto({
        engine: work,
        source: mnemoSource,
        path: file,
        clock: m.clock.read,
      });
      assert.equal(summary.imported, 0);
      assert.match(summary.refused[0]?.why ?? '', /held by namespace "default"/);
      assert.equal(work.memories.has(saved.memory_id), false);
    });

    it('never writes or shadows an id another namespace holds, live or forgotten: each such line refused by file:line, the rest imported', async (t) => {
      const m = await openTestClient({}, { engine });
      t.after(() => m.close());
      const alice = m.opened.memoryFor('alice');
      const bob = m.opened.memoryFor('bob');
      const secret = 'alice keeps the spare key under the third stone';
      const save = async (content: string) => (await alice.writing.save({ content })).memory_id;
      const [live, later, gone] = [
        await save(secret),
        await save(`${secret} too`),
        await save('gone'),
      ];
      const { relation_id } = await alice.writing.createRelation({
        from_memory_id: live,
        to_memory_id: later,
        relation_type: 'related',
      });
      await alice.forgetting.delete({ memory_id: gone });
      const aliceStore = m.store.namespace('alice');
      const exported = await collect(mnemoExportLines(aliceStore, T0));
      // Forgotten after the export: the file still carries it as a live memory.
      await alice.forgetting.delete({ memory_id: later });

      const record = (id: string) =>
        JSON.parse(exported.find((l) => l.includes(`"id":"${id}"`)) ?? '{}').memory;
      const fresh = (id: string, content: string) =>
        JSON.stringify({ memory: { ...record(live), id, content } });
      const own1 = '11111111-1111-4111-8111-111111111111';
      const own2 = '22222222-2222-4222-8222-222222222222';
      const lines = [
        ...exported,
        'not json {',
        JSON.stringify({ memory: { id: 'no-content' } }),
        fresh(own1, 'bob has a bicycle'),
        fresh(own2, 'bob has a red bicycle bell'),
        // alice's relation id over two memories of bob's own.
        JSON.stringify({
          relation: {
            id: relation_id,
            from_memory_id: own1,
            to_memory_id: own2,
            relation_type: 'related',
            strength: 1,
            created_at: T0,
            metadata: {},
          },
        }),
      ];
      const file = path.join(m.dir, 'alice.jsonl');
      fs.writeFileSync(file, `${lines.join('\n')}\n`);

      const summary = await importInto({
        engine: m.store.namespace('bob'),
        source: mnemoSource,
        path: file,
        clock: m.clock.read,
      });
      assert.equal(summary.imported, 2, JSON.stringify(summary.refused));
      assert.equal(summary.forgotten, 0);
      assert.equal(summary.relations, 0);
      const byLine = new Map(
        summary.refused.map((r) => [Number(r.where.slice(file.length + 1)), r.why]),
      );
      for (const r of summary.refused) assert.ok(r.where.startsWith(`${file}:`), r.where);
      const lineOf = (needle: string) => lines.findIndex((l) => l.includes(needle)) + 1;
      const held = /is held by namespace "alice"/;
      assert.match(
        byLine.get(lineOf(`"memory":{"id":"${live}"`)) ?? '',
        held,
        'a live memory of alice',
      );
      assert.match(
        byLine.get(lineOf(`"memory":{"id":"${later}"`)) ?? '',
        held,
        'one alice forgot since',
      );
      assert.match(
        byLine.get(lineOf(`"forgotten":{"id":"${gone}"`)) ?? '',
        held,
        "alice's forgotten copy",
      );
      assert.match(byLine.get(lines.length) ?? '', /relation .* is held by namespace "alice"/);
      assert.match(byLine.get(lineOf('not json {')) ?? '', /not a JSON line/);
      assert.match(byLine.get(lineOf('no-content')) ?? '', /content/);
      for (const r of summary.refused) assert.ok(!r.why.includes('spare key'), r.why);
      const bobStore = m.store.namespace('bob');
      assert.deepEqual([...bobStore.memories.keys()].sort(), [own1, own2]);
      assert.deepEqual(await bobStore.forgottenRecords(), []);
      await assert.rejects(
        bob.forgetting.restore({ memory_id: gone }),
        /neither a live memory nor a forgotten one/,
      );
      // Alice's ids are still hers to bring back.
      for (const id of [later, gone]) {
        assert.equal((await alice.forgetting.restore({ memory_id: id })).status, 'active', id);
      }
    });
  });
}

describe('bad input to an import', () => {
  it('a file that is not what --from says is refused, naming the file and the fix', async (t) => {
    const m = await openTestClient();
    t.after(() => m.close());
    const elsewhere = tempDir('mnemo-import-');
    t.after(() => fs.rmSync(elsewhere, { recursive: true, force: true }));
    const file = path.join(elsewhere, 'memories.jsonl');
    fs.writeFileSync(file, `${JSON.stringify({ id: 'x', content: 'a memory' })}\n`);
    const options = { engine: m.store, path: file, clock: m.clock.read };
    await assert.rejects(importInto({ ...options, source: serverMemorySource }), (error: Error) => {
      assert.match(error.message, /is not a server-memory file/);
      assert.match(error.message, /--from cortexgraph/);
      return true;
    });
    await assert.rejects(
      importInto({ ...options, source: mnemoSource }),
      /is not a mnemo export.*--from cortexgraph/,
    );
    await assert.rejects(
      importInto({ ...options, path: path.join(m.dir, 'nothing'), source: serverMemorySource }),
      /cannot read .*nothing \(ENOENT\)/,
    );
    assert.equal(m.store.memories.size, 0);
  });

  it('a record the importer refuses (content too long) is named by its file and line, the rest imported', async (t) => {
    const m = await openTestClient();
    t.after(() => m.close());
    const file = writeGraph(m.dir, [
      { type: 'entity', name: 'Ok', entityType: 'thing', observations: ['fine'] },
      { type: 'entity', name: 'Big', entityType: 'thing', observations: ['x'.repeat(60_000)] },
    ]);
    const summary = await importInto({
      engine: m.store,
      source: serverMemorySource,
      path: file,
      clock: m.clock.read,
    });
    assert.equal(summary.imported, 1);
    assert.deepEqual(
      summary.refused.map((r) => r.where),
      [`${file}:2`],
    );
    assert.match(summary.refused[0]?.why ?? '', /content of 60000 characters/);
  });

  it('a line past 16 MB is refused by its file and line, never held whole, the rest imported', async (t) => {
    // readline held a line whole: one past 512 MB ended mnemo import with a stack trace.
    const m = await openTestClient();
    t.after(() => m.close());
    const file = path.join(m.dir, 'long.jsonl');
    const line = (name: string, text: string) =>
      JSON.stringify({ type: 'entity', name, entityType: 'thing', observations: [text] });
    fs.writeFileSync(
      file,
      `${line('Ok', 'fine')}\r\n${line('Long', 'x'.repeat(17 << 20))}\n${line('After', 'kept')}`,
    );
    const summary = await importInto({
      engine: m.store,
      source: serverMemorySource,
      path: file,
      clock: m.clock.read,
    });
    assert.equal(summary.imported, 2, JSON.stringify(summary.refused).slice(0, 300));
    assert.deepEqual(
      summary.refused.map((r) => r.where),
      [`${file}:2`],
    );
  });

  it('reads the older one-document shape, and names each line it refuses', async (t) => {
    const m = await openTestClient();
    t.after(() => m.close());
    const doc = path.join(m.dir, 'memory.json');
    fs.writeFileSync(
      doc,
      JSON.stringify(
        {
          entities: [
            { name: 'Bob', entityType: 'person', observations: ['Bob plays the cello'] },
            { entityType: 'nameless' },
          ],
          relations: [{ from: 'Bob', to: 'Carol', relationType: 'knows' }],
        },
        null,
        2,
      ),
    );
    const summary = await importInto({
      engine: m.store,
      source: serverMemorySource,
      path: doc,
      clock: m.clock.read,
    });
    assert.equal(summary.imported, 1);
    assert.deepEqual(
      summary.refused.map((r) => r.why),
      [
        'an entity without a "name"',
        'relation Bob -knows-> Carol: entity "Carol" is not in the file',
      ],
    );
    const file = writeGraph(m.dir, [GRAPH[0], 'not json at all', { type: 'other' }]);
    const lines = await importInto({
      engine: m.store,
      source: serverMemorySource,
      path: file,
      clock: m.clock.read,
    });
    assert.deepEqual(
      lines.refused.map((r) => r.where),
      [`${file}:2`, `${file}:3`],
    );
  });
});
