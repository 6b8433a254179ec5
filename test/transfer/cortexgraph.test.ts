import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { UserError } from '../../src/platform/errors.js';
import {
  cortexgraphSource,
  createCortexgraphSource,
} from '../../src/transfer/sources/cortexgraph.js';
import type {
  ImportEntry,
  ImportItem,
  ImportRefusal,
  ImportRelation,
} from '../../src/transfer/types.js';
import { tempDir } from '../support.js';

async function collect(entries: AsyncIterable<ImportEntry>): Promise<ImportEntry[]> {
  const out: ImportEntry[] = [];
  for await (const entry of entries) out.push(entry);
  return out;
}

const memories = (entries: ImportEntry[]) =>
  entries.filter((e): e is ImportItem => e.kind === 'memory');
const relations = (entries: ImportEntry[]) =>
  entries.filter((e): e is ImportRelation => e.kind === 'relation');
const refusals = (entries: ImportEntry[]) =>
  entries.filter((e): e is ImportRefusal => e.kind === 'refused');

const T = 1_700_000_000;
function memory(id: string, content: string, fields: Record<string, unknown> = {}) {
  return {
    id,
    content,
    meta: { tags: ['t'], source: null, context: null, extra: {} },
    entities: [],
    created_at: T,
    last_used: T,
    use_count: 1,
    strength: 1,
    status: 'active',
    promoted_at: null,
    promoted_to: null,
    ...fields,
  };
}

function lines(values: (object | string)[]): string {
  return values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('\n');
}

describe('cortexgraphSource', () => {
  const dirs: string[] = [];
  const dir = () => {
    const d = tempDir('mnemo-cg-');
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  function dataDir(): { root: string; data: string; absoluteNote: string } {
    const root = dir();
    const data = path.join(root, 'jsonl');
    fs.mkdirSync(path.join(root, 'vault/stm'), { recursive: true });
    fs.mkdirSync(data);
    fs.writeFileSync(path.join(root, 'vault/stm/kept.md'), '---\nstm_id: p1\n---\nkept\n');
    const absoluteNote = path.join(root, 'elsewhere/abs.md');
    fs.mkdirSync(path.dirname(absoluteNote));
    fs.writeFileSync(absoluteNote, 'abs\n');
    fs.writeFileSync(
      path.join(data, 'memories.jsonl'),
      `${lines([
        memory('a', 'first version of a'),
        memory('b', 'b, to be deleted'),
        memory('a', 'a, last version wins', { embed: [0.1, 0.2], future_field: { x: 1 } }),
        { id: 'b', _deleted: true },
        '',
        memory('p1', 'promoted, relative', {
          status: 'promoted',
          promoted_to: 'vault/stm/kept.md',
        }),
        memory('p2', 'promoted, absolute', { status: 'promoted', promoted_to: absoluteNote }),
        memory('p3', 'promoted, note gone', { status: 'promoted', promoted_to: 'vault/gone.md' }),
        { id: 'nocontent' },
        '{"id":"torn","content":"cut sh',
      ])}`,
    );
    fs.writeFileSync(
      path.join(data, 'relations.jsonl'),
      `${lines([
        {
          id: 'r1',
          from_memory_id: 'a',
          to_memory_id: 'p1',
          relation_type: 'supports',
          strength: 0.5,
          created_at: T,
          metadata: { why: 'x' },
          extra_rel: true,
        },
        {
          id: 'r2',
          from_memory_id: 'a',
          to_memory_id: 'b',
          relation_type: 'related',
          strength: 1,
          created_at: T,
          metadata: {},
        },
        { id: 'r3', from_memory_id: 'p1', to_memory_id: 'p2', relation_type: 'related' },
        { id: 'r3', _deleted: true },
        'not json',
      ])}\n`,
    );
    return { root, data, absoluteNote };
  }

  it('yields the last version of each live memory, whole, unknown fields kept', async () => {
    const { data } = dataDir();
    const entries = await collect(cortexgraphSource.entries(data));
    const items = memories(entries);
    assert.deepEqual(
      items.map((m) => m.key),
      ['cortexgraph:a', 'cortexgraph:p1', 'cortexgraph:p2', 'cortexgraph:p3'],
    );
    const a = items[0];
    assert.equal(a?.content, 'a, last version wins');
    assert.deepEqual(
      a?.record,
      memory('a', 'a, last version wins', {
        embed: [0.1, 0.2],
        future_field: { x: 1 },
      }),
    );
  });

  it('refuses torn and unusable lines by file:line, and says when a promoted note is gone', async () => {
    const { data } = dataDir();
    const entries = await collect(cortexgraphSource.entries(data));
    const refused = refusals(entries).map((r) => ({
      where: path.relative(data, r.where),
      why: r.why,
    }));
    assert.equal(refused.length, 5);
    assert.deepEqual(
      refused.map((r) => r.where),
      [
        'memories.jsonl:8',
        'memories.jsonl:9',
        'memories.jsonl:10',
        'relations.jsonl:2',
        'relations.jsonl:5',
      ],
    );
    assert.match(
      refused[0]?.why ?? '',
      /^imported, but its promoted note vault\/gone\.md is not there/,
    );
    assert.match(refused[1]?.why ?? '', /missing string "content"/);
    assert.match(refused[2]?.why ?? '', /not a JSON line/);
    assert.match(refused[3]?.why ?? '', /memory b is not among the imported memories/);
    assert.match(refused[4]?.why ?? '', /not a JSON line/);
    // The warning comes right after the memory it is about, which is imported all the same.
    const p3 = entries.findIndex((e) => e.kind === 'memory' && e.key === 'cortexgraph:p3');
    assert.equal(entries[p3 + 1]?.kind, 'refused');
  });

  it('yields live relations with their records, after every memory', async () => {
    const { data } = dataDir();
    const entries = await collect(cortexgraphSource.entries(data));
    const rels = relations(entries);
    assert.equal(rels.length, 1);
    assert.deepEqual(
      { ...rels[0], record: undefined },
      {
        kind: 'relation',
        where: path.join(data, 'relations.jsonl:1'),
        fromKey: 'cortexgraph:a',
        toKey: 'cortexgraph:p1',
        relation_type: 'supports',
        strength: 0.5,
        metadata: { why: 'x' },
        record: undefined,
      },
    );
    assert.equal(rels[0]?.record?.extra_rel, true);
    const lastMemory = entries.findLastIndex((e) => e.kind === 'memory');
    assert.ok(entries.indexOf(rels[0] as ImportEntry) > lastMemory);
  });

  it('finds a relative promoted_to in the vault it is given', async () => {
    const { root, data } = dataDir();
    const vault = path.join(root, 'obsidian');
    fs.mkdirSync(path.join(vault, 'vault'), { recursive: true });
    fs.writeFileSync(path.join(vault, 'vault/gone.md'), 'here after all\n');
    const before = refusals(await collect(cortexgraphSource.entries(data)));
    assert.ok(before.some((r) => /promoted note vault\/gone\.md/.test(r.why)));
    const source = createCortexgraphSource({ vault });
    const after = refusals(await collect(source.entries(data)));
    assert.ok(!after.some((r) => /promoted note/.test(r.why)));
  });

  it('looks for a promoted note only inside the vault, the data dir and its folder, never through a link out', async () => {
    const root = dir();
    const outside = dir();
    const data = path.join(root, 'jsonl');
    const vault = path.join(root, 'obsidian');
    fs.mkdirSync(data);
    fs.mkdirSync(vault);
    fs.writeFileSync(path.join(outside, 'secret.md'), 'secret\n');
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(vault, 'leak.md'));
    fs.symlinkSync(outside, path.join(vault, 'out'));
    const escapes = [
      path.join(outside, 'secret.md'),
      path.relative(vault, path.join(outside, 'secret.md')),
      'leak.md',
      'out/secret.md',
    ];
    fs.writeFileSync(
      path.join(data, 'memories.jsonl'),
      lines(
        escapes.map((to, i) =>
          memory(`p${i}`, `promoted ${i}`, { status: 'promoted', promoted_to: to }),
        ),
      ),
    );
    const entries = await collect(createCortexgraphSource({ vault }).entries(data));
    assert.equal(memories(entries).length, escapes.length);
    const notFound = refusals(entries).filter((r) => /promoted note/.test(r.why));
    assert.equal(notFound.length, escapes.length);
    assert.ok(notFound.every((r) => /^imported, but/.test(r.why)));
  });

  it('reads a data dir with memories only', async () => {
    const data = dir();
    fs.writeFileSync(path.join(data, 'memories.jsonl'), `${JSON.stringify(memory('x', 'x'))}\r\n`);
    const entries = await collect(cortexgraphSource.entries(data));
    assert.deepEqual(
      entries.map((e) => e.kind),
      ['memory'],
    );
  });

  it('refuses a folder with neither log, or a file, naming --from cortexgraph and the fix', async () => {
    const empty = dir();
    await assert.rejects(collect(cortexgraphSource.entries(empty)), (error) => {
      assert.ok(error instanceof UserError);
      assert.match(
        error.message,
        /--from cortexgraph: .* holds neither memories\.jsonl nor relations\.jsonl: give cortexgraph's data dir/,
      );
      return true;
    });
    const file = path.join(empty, 'memories.jsonl');
    fs.writeFileSync(file, '');
    await assert.rejects(collect(cortexgraphSource.entries(file)), /is not a folder/);
  });
});
