// An import file's numbers are data: whatever a record's dates and counts say, the memory it
// becomes can be stored by either engine, shown, and read back.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { importInto } from '../../src/transfer/import.js';
import { MNEMO_EXPORT_FORMAT, mnemoSource } from '../../src/transfer/mnemo-format.js';
import { markdownSource } from '../../src/transfer/sources/markdown.js';
import { ENGINES, engineAbsent, openTestClient } from '../support.js';

const HOSTILE = [
  { id: 'far-future', created_at: 1e13, last_used: 1e300, use_count: 3e9, review_count: 1e20 },
  { id: 'far-past', created_at: -1e300, last_used: -1e13, cross_domain_count: 1e10 },
  { id: 'dates-as-text', created_at: '+275760-09-13T00:00:01Z', promoted_at: 9e15 },
];

for (const engine of ENGINES) {
  describe(`an import's numbers (${engine})`, { skip: await engineAbsent(engine) }, () => {
    it('dates past what a date can be and counts past what a column holds import, show and read back', async (t) => {
      const m = await openTestClient({}, { engine });
      t.after(() => m.close());
      const file = path.join(m.dir, 'hostile.jsonl');
      const rows = [
        { format: MNEMO_EXPORT_FORMAT, version: 1 },
        ...HOSTILE.map((r) => ({ memory: { content: `memory ${r.id}`, ...r } })),
        { memory: { id: 'plain', content: 'a plain memory after them' } },
      ];
      fs.writeFileSync(file, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
      const summary = await importInto({
        engine: m.store,
        source: mnemoSource,
        path: file,
        clock: m.clock.read,
      });
      assert.deepEqual(summary.refused, []);
      assert.equal(summary.imported, HOSTILE.length + 1);
      for (const { id } of [...HOSTILE, { id: 'plain' }]) {
        const record = m.store.memories.get(id);
        assert.ok(record, id);
        for (const t of [record.created_at, record.last_used, record.promoted_at ?? 0]) {
          assert.doesNotThrow(() => new Date(t * 1000).toISOString(), `${id}: ${t}`);
        }
        for (const n of [record.use_count, record.review_count, record.cross_domain_count]) {
          assert.ok(n <= 2 ** 31 - 1, `${id}: ${n}`);
        }
        const read = await m.client.readResource({ uri: `mnemo://memory/${id}` });
        assert.ok(read.contents.length > 0);
      }
      const found = await m.ok<{ results: unknown[] }>('search_memory', { query: 'memory' });
      assert.ok(found.results.length > 0);
    });

    it("a note's created date past what a date can be imports, and the notes after it too", async (t) => {
      const m = await openTestClient({}, { engine });
      t.after(() => m.close());
      const folder = path.join(m.dir, 'notes');
      fs.mkdirSync(folder);
      fs.writeFileSync(path.join(folder, 'a.md'), '---\ncreated: 1e300\n---\nfar future note\n');
      fs.writeFileSync(path.join(folder, 'b.md'), '---\ncreated: "99999999999999999999"\n---\nb\n');
      fs.writeFileSync(path.join(folder, 'c.md'), 'a plain note\n');
      const summary = await importInto({
        engine: m.store,
        source: markdownSource,
        path: folder,
        clock: m.clock.read,
      });
      assert.deepEqual(summary.refused, []);
      assert.equal(summary.imported, 3);
      for (const record of m.store.memories.values()) {
        assert.doesNotThrow(() => new Date(record.created_at * 1000).toISOString());
      }
    });

    it('a line holding a NUL anywhere is refused by name and the rest imports (PostgreSQL cannot store one)', async (t) => {
      const m = await openTestClient({}, { engine });
      t.after(() => m.close());
      const file = path.join(m.dir, 'nul.jsonl');
      const rows = [
        { format: MNEMO_EXPORT_FORMAT, version: 1 },
        { memory: { id: 'n1', content: 'a\u0000b' } },
        { memory: { id: 'n2', content: 'ok', entities: ['e\u0000'] } },
        { memory: { id: 'n3', content: 'ok', meta: { extra: { 'k\u0000': 1 } } } },
        { memory: { id: 'n4', content: 'ok', meta: { tags: ['t\u0000'] } } },
        { memory: { id: 'kept', content: 'a literal \\u0000 is text' } },
      ];
      fs.writeFileSync(file, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
      const summary = await importInto({
        engine: m.store,
        source: mnemoSource,
        path: file,
        clock: m.clock.read,
      });
      assert.deepEqual(
        summary.refused.map((r) => r.where.slice(file.length)),
        [':2', ':3', ':4', ':5'],
      );
      assert.ok(summary.refused.every((r) => /NUL/.test(r.why)));
      assert.equal(summary.imported, 1);
      assert.equal(m.store.memories.get('kept')?.content, 'a literal \\u0000 is text');
    });

    it('a line nested past what JSON.stringify can write is refused by name and the rest imports', async (t) => {
      const m = await openTestClient({}, { engine });
      t.after(() => m.close());
      const file = path.join(m.dir, 'deep.jsonl');
      const deep = `${'['.repeat(6000)}${']'.repeat(6000)}`;
      const lines = [
        JSON.stringify({ format: MNEMO_EXPORT_FORMAT, version: 1 }),
        `{"memory":{"id":"deep-extra","content":"deep","meta":{"extra":{"x":${deep}}}}}`,
        `{"memory":{"id":"deep-other","content":"deep","odd":${deep}}}`,
        JSON.stringify({ memory: { id: 'plain', content: 'a plain memory' } }),
      ];
      fs.writeFileSync(file, `${lines.join('\n')}\n`);
      const summary = await importInto({
        engine: m.store,
        source: mnemoSource,
        path: file,
        clock: m.clock.read,
      });
      assert.deepEqual(
        summary.refused.map((r) => r.where.slice(file.length)),
        [':2', ':3'],
      );
      assert.equal(summary.imported, 1);
      assert.ok(m.store.memories.has('plain'));
      await m.ok('save_memory', { content: 'the store still writes' });
    });
  });
}
