import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MemoryTable } from '../../src/storage/memory-table.js';
import { parseNote } from '../../src/vault/note.js';
import {
  ENGINES,
  engineAbsent,
  errorText,
  openTestClient,
  T0,
  type TestClient,
  tempDir,
  testDir,
} from '../support.js';

interface Version {
  version: number;
  content: string;
  tags: string[];
  entities: string[];
  meta: Record<string, unknown>;
  replaced_at: number;
}
interface Opened {
  id: string;
  content: string;
  meta: { tags: string[]; extra: Record<string, unknown> };
  entities: string[];
  use_count: number;
  version: number;
  versions: Version[];
}
interface GraphPage {
  memories: { id: string; content: string; tags: string[] }[];
  relations: { id: string; from_memory_id: string; to_memory_id: string; relation_type: string }[];
  next_cursor: string | null;
}

for (const engine of ENGINES) {
  describe(`update_memory, versions, read_graph, delete_relation (${engine})`, {
    skip: await engineAbsent(engine),
  }, () => {
    let t: TestClient;
    before(async () => {
      const dir = tempDir();
      // PostgreSQL has no vault unless told one.
      const env: Record<string, string> =
        engine === 'postgres' ? { MNEMO_VAULT_DIR: path.join(dir, 'vault') } : {};
      t = await openTestClient(env, { dir, engine });
    });
    after(() => t.close());

    const save = async (content: string, extra: Record<string, unknown> = {}) =>
      (await t.ok<{ memory_id: string }>('save_memory', { content, ...extra })).memory_id;
    const open = async (id: string) =>
      (await t.ok<{ memories: Opened[] }>('open_memories', { memory_ids: [id] }))
        .memories[0] as Opened;

    it('update_memory changes a memory in place and keeps what it replaced', async () => {
      const id = await save('The standup is at 9:30.', {
        tags: ['work'],
        entities: ['standup'],
        meta: { room: 'A' },
      });
      const fresh = await open(id);
      assert.deepEqual([fresh.version, fresh.versions], [1, []]);

      t.clock.advanceDays(1);
      const done = await t.ok<{ memory_id: string; version: number }>('update_memory', {
        memory_id: id,
        content: 'The standup moved to 10:00.',
        tags: ['work', 'meetings', 'work'],
      });
      assert.deepEqual(done, { memory_id: id, version: 2 });
      // The same change again adds nothing.
      const again = await t.ok<{ version: number }>('update_memory', {
        memory_id: id,
        content: 'The standup moved to 10:00.',
        tags: ['work', 'meetings'],
      });
      assert.equal(again.version, 2);
      const now = await open(id);
      assert.equal(now.content, 'The standup moved to 10:00.');
      assert.deepEqual(now.meta.tags, ['work', 'meetings']);
      // What was not given stays.
      assert.deepEqual(now.entities, ['standup']);
      assert.deepEqual(now.meta.extra, { room: 'A' });
      // Not a use.
      assert.equal(now.use_count, fresh.use_count);
      assert.equal(now.version, 2);
      assert.deepEqual(now.versions, [
        {
          version: 1,
          content: 'The standup is at 9:30.',
          tags: ['work'],
          entities: ['standup'],
          meta: { room: 'A' },
          replaced_at: t.clock.now,
        },
      ]);
      // The words index has the new text, not the old.
      const found = await t.ok<{ results: { memory_id: string }[] }>('search_memory', {
        query: '10:00 moved',
      });
      assert.deepEqual(
        found.results.map((r) => r.memory_id),
        [id],
      );
      const old = await t.ok<{ results: { memory_id: string }[] }>('search_memory', {
        query: '9:30',
      });
      assert.ok(!old.results.some((r) => r.memory_id === id));
    });

    it('restore_memory with a version brings it back and keeps the current state', async () => {
      const id = await save('Deploys run on Fridays.', { tags: ['ops'] });
      await t.ok('update_memory', { memory_id: id, content: 'Deploys run on Mondays.' });
      await t.ok('update_memory', { memory_id: id, meta: { checked: true } });
      const restored = await t.ok<{ memory_id: string; status: string; version: number }>(
        'restore_memory',
        { memory_id: id, version: 1 },
      );
      assert.deepEqual(restored, { memory_id: id, status: 'active', version: 4 });
      const now = await open(id);
      assert.equal(now.content, 'Deploys run on Fridays.');
      assert.deepEqual(now.meta.extra, {});
      assert.deepEqual(
        now.versions.map((v) => [v.version, v.content, v.meta]),
        [
          [1, 'Deploys run on Fridays.', {}],
          [2, 'Deploys run on Mondays.', {}],
          [3, 'Deploys run on Mondays.', { checked: true }],
        ],
      );

      const unknown = await t.call('restore_memory', { memory_id: id, version: 9 });
      assert.equal(unknown.isError, true);
      assert.match(
        errorText(unknown),
        /version 9 is not a version of memory_id .*\(it has 1, 2, 3; 4 is current\): pass one open_memories lists/,
      );
      const never = await save('Never updated.');
      const none = await t.call('restore_memory', { memory_id: never, version: 1 });
      assert.match(errorText(none), /version 1 .*\(it has none: it was never updated/);
    });

    it('keeps the last 20 versions, numbered on', async () => {
      const id = await save('Counter 0');
      for (let i = 1; i <= 22; i++) {
        await t.ok('update_memory', { memory_id: id, content: `Counter ${i}` });
      }
      const now = await open(id);
      assert.equal(now.version, 23);
      assert.equal(now.versions.length, 20);
      assert.deepEqual(
        [now.versions[0]?.version, now.versions[0]?.content, now.versions.at(-1)?.version],
        [3, 'Counter 2', 22],
      );
    });

    it('allows content equal to another live memory', async () => {
      const a = await save('The office plant is a fern.');
      const b = await save('The office plant is a cactus.');
      await t.ok('update_memory', { memory_id: b, content: 'The office plant is a fern.' });
      assert.equal((await open(a)).content, (await open(b)).content);
    });

    it('refuses an unknown id, nothing to change and bad fields, naming them', async () => {
      const id = await save('Something to change later.');
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ memory_id: 'no-such-id', content: 'x' }, /memory_id "no-such-id" is not a known memory/],
        [
          { memory_id: id },
          /nothing to change: pass at least one of content, tags, entities, meta/,
        ],
        [{ memory_id: id, content: '' }, /content is empty/],
        [{ memory_id: id, content: '\u200b ' }, /content is only white space/],
        [{ memory_id: id, tags: ['no spaces'] }, /tags has an invalid tag "no spaces"/],
        [
          { memory_id: id, meta: { a: { b: { c: { d: { e: { f: { g: { h: {} } } } } } } } } },
          /meta is nested deeper than 8 levels/,
        ],
      ];
      for (const [args, message] of cases) {
        const result = await t.call('update_memory', args);
        assert.equal(result.isError, true, JSON.stringify(args));
        assert.match(errorText(result), message);
      }
      assert.deepEqual((await open(id)).versions, []);
    });

    it("updates a promoted memory's note: mnemo's keys and its body, never a person's edit", async () => {
      const mine = await save('Use pnpm in the mnemo repo.');
      const theirs = await save('Run the linter before each commit.');
      for (const id of [mine, theirs]) {
        await t.ok('promote_memory', { memory_id: id, force: true });
      }
      const pathOf = async (id: string) =>
        path.join(
          t.config.vaultDir as string,
          (
            await t.ok<{ memories: { promoted_to: string }[] }>('open_memories', {
              memory_ids: [id],
            })
          ).memories[0]?.promoted_to as string,
        );
      // Used since the notes were written: their use_count is behind.
      for (const id of [mine, theirs]) await t.ok('touch_memory', { memory_id: id });
      const theirPath = await pathOf(theirs);
      const edited = fs
        .readFileSync(theirPath, 'utf8')
        .replace(
          /\nRun the linter before each commit\.\n/,
          '\nRun biome before each commit (my words).\n',
        );
      assert.ok(edited.includes('(my words)'));
      fs.writeFileSync(theirPath, edited);

      const a = await t.ok<{ note?: { path: string; body_updated: boolean } }>('update_memory', {
        memory_id: mine,
        content: 'Use npm in the mnemo repo.',
      });
      assert.equal(a.note?.body_updated, true);
      const mineNote = parseNote(fs.readFileSync(await pathOf(mine), 'utf8'));
      assert.equal(mineNote.body.trim(), 'Use npm in the mnemo repo.');
      assert.equal(mineNote.properties.use_count, 1);
      assert.equal(mineNote.properties.memory_id, mine);

      const b = await t.ok<{ note?: { path: string; body_updated: boolean } }>('update_memory', {
        memory_id: theirs,
        content: 'Run the tests before each commit.',
        tags: ['habits'],
      });
      assert.equal(b.note?.body_updated, false);
      const theirNote = parseNote(fs.readFileSync(theirPath, 'utf8'));
      assert.equal(theirNote.body.trim(), 'Run biome before each commit (my words).');
      assert.equal(theirNote.properties.use_count, 1);
      // The record changed all the same, and its earlier text is a version.
      const record = await open(theirs);
      assert.equal(record.content, 'Run the tests before each commit.');
      assert.equal(record.versions[0]?.content, 'Run the linter before each commit.');
      // Search matches each by its note as it is: the new text of one, the person's of the other.
      const find = async (query: string) =>
        (await t.ok<{ results: { memory_id: string }[] }>('search_memory', { query })).results.map(
          (r) => r.memory_id,
        );
      assert.deepEqual(await find('npm'), [mine]);
      assert.deepEqual(await find('biome words'), [theirs]);
    });

    it('delete_relation deletes one relation of the namespace; an unknown one names relation_id', async () => {
      const a = await save('Relation end A.');
      const b = await save('Relation end B.');
      const { relation_id } = await t.ok<{ relation_id: string }>('create_relation', {
        from_memory_id: a,
        to_memory_id: b,
        relation_type: 'supports',
      });
      const done = await t.ok('delete_relation', { relation_id });
      assert.deepEqual(done, { relation_id, deleted: true });
      const opened = await t.ok<{ memories: { relations: unknown[] }[] }>('open_memories', {
        memory_ids: [a, b],
      });
      assert.deepEqual(
        opened.memories.map((m) => m.relations),
        [[], []],
      );
      const again = await t.call('delete_relation', { relation_id });
      assert.equal(again.isError, true);
      assert.match(errorText(again), /relation_id ".*" is not a known relation/);
    });
  });

  describe(`read_graph pages through every memory once (${engine})`, {
    skip: await engineAbsent(engine),
  }, () => {
    let t: TestClient;
    const ids: string[] = [];
    const relationIds: string[] = [];
    before(async () => {
      t = await openTestClient({}, { engine });
      for (let i = 0; i < 250; i++) {
        const { memory_id } = await t.ok<{ memory_id: string }>('save_memory', {
          content: `Graph memory number ${i}: ${'detail '.repeat(i % 7)}`,
          tags: [i % 2 === 0 ? 'even' : 'odd'],
        });
        ids.push(memory_id);
      }
      // A chain: every memory relates to the next one.
      for (let i = 0; i + 1 < ids.length; i += 1) {
        const made = await t.ok<{ relation_id: string }>('create_relation', {
          from_memory_id: ids[i],
          to_memory_id: ids[i + 1],
          relation_type: i % 3 === 0 ? 'causes' : 'related',
        });
        relationIds.push(made.relation_id);
      }
    });
    after(() => t.close());

    async function pages(args: Record<string, unknown>) {
      const all: GraphPage[] = [];
      let cursor: string | null = null;
      do {
        const page: GraphPage = await t.ok<GraphPage>('read_graph', {
          ...args,
          ...(cursor ? { cursor } : {}),
        });
        all.push(page);
        cursor = page.next_cursor;
        assert.ok(all.length < 1_000, 'the paging ends');
      } while (cursor);
      return all;
    }

    it('limit 100 and a small max_chars: every memory once, in id order, relations once', async () => {
      const all = await pages({ limit: 100, max_chars: 2_000 });
      const seen = all.flatMap((p) => p.memories.map((m) => m.id));
      assert.deepEqual(seen, [...ids].sort());
      assert.ok(all.length > 3, `${all.length} pages: the budget ended them early`);
      for (const page of all) {
        assert.ok(page.memories.length >= 1 && page.memories.length <= 100);
        assert.ok(
          JSON.stringify(page.memories).length + JSON.stringify(page.relations).length <= 2_000,
        );
        const members = new Set(page.memories.map((m) => m.id));
        for (const r of page.relations) assert.ok(members.has(r.from_memory_id));
      }
      const listed = all.flatMap((p) => p.relations.map((r) => r.id));
      assert.deepEqual([...listed].sort(), [...relationIds].sort());
    });

    it('limit bounds a page; filters by tags, status and relation_types', async () => {
      const first = await t.ok<GraphPage>('read_graph', { limit: 100, max_chars: 200_000 });
      assert.equal(first.memories.length, 100);
      assert.ok(first.next_cursor);

      const even = await pages({
        tags: ['EVEN'],
        relation_types: ['causes'],
        limit: 200,
        max_chars: 200_000,
      });
      const evenIds = even.flatMap((p) => p.memories.map((m) => m.id));
      assert.deepEqual(evenIds, ids.filter((_, i) => i % 2 === 0).sort());
      // A chain joins an even memory to an odd one: none of its relations is in this listing.
      assert.deepEqual(
        even.flatMap((p) => p.relations),
        [],
      );

      const causes = await pages({ relation_types: ['causes'], limit: 200, max_chars: 200_000 });
      const causeCount = causes.flatMap((p) => p.relations).length;
      assert.equal(causeCount, relationIds.filter((_, i) => i % 3 === 0).length);
      assert.ok(causes.flatMap((p) => p.relations).every((r) => r.relation_type === 'causes'));

      const archived = await pages({ status: ['archived'] });
      assert.deepEqual(
        archived.flatMap((p) => p.memories),
        [],
      );
      assert.equal(archived.length, 1);
    });

    it('refuses a cursor that does not decode, or one of another listing', async () => {
      const bad = await t.call('read_graph', { cursor: 'not a cursor!' });
      assert.equal(bad.isError, true);
      assert.match(errorText(bad), /cursor is not a read_graph cursor/);
      const forged = Buffer.from('{"x":1}').toString('base64url');
      assert.match(errorText(await t.call('read_graph', { cursor: forged })), /cursor is not/);
      const first = await t.ok<GraphPage>('read_graph', { limit: 10 });
      const other = await t.call('read_graph', {
        cursor: first.next_cursor,
        tags: ['odd'],
      });
      assert.equal(other.isError, true);
      assert.match(errorText(other), /cursor is from a read_graph listing with other tags/);
      const tooMany = await t.call('read_graph', { limit: 201 });
      assert.match(errorText(tooMany), /limit must be at most 200/);
    });
  });
}

describe('versions as stored', () => {
  it('a bad versions value in memories.jsonl does not stop a start; what is readable is kept', async (ctx) => {
    const dir = testDir(ctx);
    const line = (id: string, versions: unknown) =>
      JSON.stringify({ id, content: `memory ${id}`, created_at: T0, last_used: T0, versions });
    fs.writeFileSync(
      path.join(dir, 'memories.jsonl'),
      `${[
        line('m-garbage', 'not a list'),
        line('m-mixed', [
          { version: 2, content: 'second', tags: 'not a list', replaced_at: T0 + 2 },
          { version: 'x', content: 'no number' },
          { version: 1, content: 'first', tags: ['a'], entities: ['E'], meta: { k: 1 } },
          null,
        ]),
      ].join('\n')}\n`,
    );
    const t = await openTestClient({}, { dir });
    try {
      const opened = await t.ok<{ memories: Opened[] }>('open_memories', {
        memory_ids: ['m-garbage', 'm-mixed'],
      });
      assert.deepEqual(
        opened.memories.map((m) => [m.id, m.version, m.versions]),
        [
          ['m-garbage', 1, []],
          [
            'm-mixed',
            3,
            [
              {
                version: 1,
                content: 'first',
                tags: ['a'],
                entities: ['E'],
                meta: { k: 1 },
                replaced_at: 0,
              },
              {
                version: 2,
                content: 'second',
                tags: [],
                entities: [],
                meta: {},
                replaced_at: T0 + 2,
              },
            ],
          ],
        ],
      );
      const done = await t.ok<{ version: number }>('update_memory', {
        memory_id: 'm-garbage',
        content: 'memory m-garbage, changed',
      });
      assert.equal(done.version, 2);
      // Written after the fields cortexgraph knows, as one more field of the line.
      const stored = fs
        .readFileSync(path.join(dir, 'memories.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((r) => r.id === 'm-garbage')
        .at(-1) as Record<string, unknown>;
      assert.equal(stored.content, 'memory m-garbage, changed');
      assert.deepEqual(stored.versions, [
        {
          version: 1,
          content: 'memory m-garbage',
          tags: [],
          entities: [],
          meta: {},
          replaced_at: t.clock.now,
        },
      ]);
      const keys = Object.keys(stored);
      assert.ok(keys.indexOf('versions') > keys.indexOf('cross_domain_count'), keys.join());
    } finally {
      await t.close();
    }
  });
});

describe('read_graph over a large namespace', () => {
  it('a tag no memory has reads the ids a few times, not once per 256 of them', async (ctx) => {
    const dir = testDir(ctx);
    const n = 5_000;
    const lines: string[] = [];
    for (let i = 0; i < n; i++) {
      lines.push(
        JSON.stringify({
          id: `m-${(i * 7919) % n}`,
          content: `memory ${i}`,
          meta: { tags: ['common'] },
          created_at: T0,
          last_used: T0,
        }),
      );
    }
    fs.writeFileSync(path.join(dir, 'memories.jsonl'), `${lines.join('\n')}\n`);
    const t = await openTestClient({}, { dir });
    const keys = MemoryTable.prototype.keys;
    let read = 0;
    ctx.mock.method(MemoryTable.prototype, 'keys', function* (this: MemoryTable) {
      for (const id of keys.call(this)) {
        read++;
        yield id;
      }
    });
    try {
      const none = await t.ok<GraphPage>('read_graph', { tags: ['absent'] });
      assert.deepEqual(none.memories, []);
      assert.equal(none.next_cursor, null);
      // A pass over the pool per 256 ids read them 20 times here: 5 s of every namespace's
      // time over 100,000 memories.
      assert.ok(read <= 3 * n, `${read} ids read for ${n} memories`);
      const page = await t.ok<GraphPage>('read_graph', {
        tags: ['common'],
        limit: 200,
        max_chars: 200_000,
      });
      assert.equal(page.memories.length, 200);
      assert.deepEqual(
        page.memories.map((m) => m.id),
        Array.from({ length: n }, (_, i) => `m-${i}`)
          .sort()
          .slice(0, 200),
      );
    } finally {
      await t.close();
    }
  });
});
