import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { UserError } from '../../src/platform/errors.js';
import {
  type MemoryRecord,
  newMemoryRecord,
  type RelationRecord,
} from '../../src/storage/records.js';
import { EXPORT_MARKER, exportMarkdown } from '../../src/transfer/export-markdown.js';
import {
  bodyTags,
  markdownSource,
  toEpoch,
  wikilinkTargets,
} from '../../src/transfer/sources/markdown.js';
import type {
  ImportEntry,
  ImportItem,
  ImportRefusal,
  ImportRelation,
} from '../../src/transfer/types.js';
import { noteTags, parseNote, renderNote } from '../../src/vault/note.js';
import { propertiesOf } from '../../src/vault/writer.js';
import { tempDir } from '../support.js';

async function collect(entries: AsyncIterable<ImportEntry>): Promise<ImportEntry[]> {
  const out: ImportEntry[] = [];
  for await (const entry of entries) out.push(entry);
  return out;
}

function put(root: string, relative: string, text: string): void {
  const file = path.join(root, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

const memories = (entries: ImportEntry[]) =>
  entries.filter((e): e is ImportItem => e.kind === 'memory');
const relations = (entries: ImportEntry[]) =>
  entries.filter((e): e is ImportRelation => e.kind === 'relation');
const refusals = (entries: ImportEntry[]) =>
  entries.filter((e): e is ImportRefusal => e.kind === 'refused');

describe('markdownSource', () => {
  const dirs: string[] = [];
  const dir = () => {
    const d = tempDir('mnemo-md-');
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  function vault(): string {
    const root = dir();
    put(
      root,
      'Projects/Alpha.md',
      '---\ntitle: Project Alpha\ntags: [work, "#alpha"]\ncreated: 2024-03-01T10:00:00Z\n---\nAlpha talks to [[Beta|the beta]] and [[notes/beta]] and [[Gamma#Part]] and [[Nowhere]].\n\n```\n[[Code]] #notatag\n```\n',
    );
    put(
      root,
      'notes/Beta.md',
      '# Beta heading\n\nBeta has #inline and #nested/tag but not #1984. Back to [[projects/alpha]].\n',
    );
    put(root, 'Gamma.md', '---\ntags: one, two\ndate: 1700000000\n---\nNo heading here.\n');
    put(root, 'z/beta.md', 'Another beta, later by path.\n');
    put(root, '.obsidian/workspace.md', 'hidden config\n');
    put(root, '.trash/Old.md', 'trashed\n');
    put(root, 'notes/.hidden.md', 'hidden note\n');
    put(root, 'Broken.md', '---\ntitle: [unclosed\n---\nbody\n');
    put(root, 'attachment.png', 'not a note');
    return root;
  }

  it('reads every note, skipping hidden folders and files, and refuses a broken one', async () => {
    const root = vault();
    const entries = await collect(markdownSource.entries(root));
    const keys = memories(entries)
      .map((m) => m.key)
      .sort();
    assert.deepEqual(keys, [
      'markdown:Gamma.md',
      'markdown:Projects/Alpha.md',
      'markdown:notes/Beta.md',
      'markdown:z/beta.md',
    ]);
    const refused = refusals(entries);
    assert.equal(refused.length, 1);
    assert.equal(refused[0]?.where, 'Broken.md');
    assert.match(refused[0]?.why ?? '', /YAML/);
  });

  it('takes title, tags and created_at from properties, headings, the body and the file', async () => {
    const root = vault();
    const mtime = new Date('2020-05-05T00:00:00Z');
    fs.utimesSync(path.join(root, 'z/beta.md'), mtime, mtime);
    const byKey = new Map(
      memories(await collect(markdownSource.entries(root))).map((m) => [m.key, m]),
    );

    const alpha = byKey.get('markdown:Projects/Alpha.md');
    assert.ok(alpha);
    assert.match(alpha.content, /^Project Alpha\n\nAlpha talks to/);
    assert.deepEqual(alpha.tags, ['work', 'alpha']);
    assert.equal(alpha.created_at, Date.parse('2024-03-01T10:00:00Z') / 1000);
    assert.deepEqual(alpha.extra, { path: 'Projects/Alpha.md' });

    const beta = byKey.get('markdown:notes/Beta.md');
    assert.ok(beta);
    assert.match(beta.content, /^# Beta heading\n\nBeta has/);
    assert.deepEqual(beta.tags, ['inline', 'nested/tag']);

    const gamma = byKey.get('markdown:Gamma.md');
    assert.equal(gamma?.content, 'Gamma\n\nNo heading here.');
    assert.deepEqual(gamma?.tags, ['one', 'two']);
    assert.equal(gamma?.created_at, 1700000000);

    const other = byKey.get('markdown:z/beta.md');
    assert.equal(other?.content, 'beta\n\nAnother beta, later by path.');
    assert.equal(other?.created_at, mtime.getTime() / 1000);
    assert.equal(other?.tags, undefined);
  });

  it('turns wikilinks between imported notes into related relations, after every memory', async () => {
    const root = vault();
    const entries = await collect(markdownSource.entries(root));
    const lastMemory = entries.findLastIndex((e) => e.kind === 'memory');
    const firstRelation = entries.findIndex((e) => e.kind === 'relation');
    assert.ok(firstRelation > lastMemory);
    const pairs = relations(entries)
      .map((r) => `${r.fromKey} -> ${r.toKey} ${r.relation_type}`)
      .sort();
    assert.deepEqual(pairs, [
      // [[Beta|the beta]] and [[notes/beta]] are one note (the first by path of two betas);
      // [[Nowhere]] and the link in code name no imported note.
      'markdown:Projects/Alpha.md -> markdown:Gamma.md related',
      'markdown:Projects/Alpha.md -> markdown:notes/Beta.md related',
      'markdown:notes/Beta.md -> markdown:Projects/Alpha.md related',
    ]);
  });

  it('does not follow a link out of the folder, and follows one inside it once', async () => {
    const root = dir();
    const outside = dir();
    put(outside, 'Secret.md', 'outside the vault\n');
    put(root, 'inside/Note.md', 'inside\n');
    fs.symlinkSync(path.join(outside, 'Secret.md'), path.join(root, 'Leak.md'));
    fs.symlinkSync(outside, path.join(root, 'leakdir'));
    fs.symlinkSync(path.join(root, 'inside'), path.join(root, 'inside/loop'));
    const entries = await collect(markdownSource.entries(root));
    assert.deepEqual(
      memories(entries).map((m) => m.key),
      ['markdown:inside/Note.md'],
    );
    assert.deepEqual(
      refusals(entries)
        .map((r) => r.where)
        .sort(),
      ['Leak.md', 'leakdir'],
    );
    assert.ok(refusals(entries).every((r) => /out of the folder/.test(r.why)));
  });

  it('refuses a hard link by name: a file with a second name may be a secret from elsewhere', async () => {
    const root = dir();
    const outside = dir();
    put(outside, 'credentials', 'aws_secret_access_key HARDLINKED\n');
    put(root, 'Note.md', 'a note\n');
    fs.linkSync(path.join(outside, 'credentials'), path.join(root, 'Keys.md'));
    const entries = await collect(markdownSource.entries(root));
    assert.deepEqual(
      memories(entries).map((m) => m.key),
      ['markdown:Note.md'],
    );
    assert.deepEqual(
      refusals(entries).map((r) => [r.where, /hard link/.test(r.why)]),
      [['Keys.md', true]],
    );
  });

  it('refuses a path that is not a folder, naming --from markdown and the fix', async () => {
    const root = dir();
    put(root, 'one.md', 'x\n');
    await assert.rejects(collect(markdownSource.entries(path.join(root, 'one.md'))), (error) => {
      assert.ok(error instanceof UserError);
      assert.match(error.message, /--from markdown: .*one\.md is not a folder: give the folder/);
      return true;
    });
    await assert.rejects(collect(markdownSource.entries(path.join(root, 'missing'))), UserError);
  });

  it('reads links, tags and dates as Obsidian writes them', () => {
    assert.deepEqual(wikilinkTargets('[[A]] [[b/C|alias]] ![[D.md]] [[E#h]] [[F^blk]] [[ ]]'), [
      'A',
      'b/C',
      'D',
      'E',
      'F',
    ]);
    assert.deepEqual(bodyTags('#top x#no (#paren) #1984 #a-b_c #trailing/'), [
      'top',
      'paren',
      'a-b_c',
      'trailing',
    ]);
    assert.equal(toEpoch(new Date('2024-01-02T00:00:00Z')), 1704153600);
    assert.equal(toEpoch('1704153600'), 1704153600);
    assert.equal(toEpoch(1704153600123), 1704153600);
    assert.equal(toEpoch('2024-01-02T00:00:00Z'), 1704153600);
    assert.equal(toEpoch('yesterday'), undefined);
  });
});

describe('exportMarkdown', () => {
  const dirs: string[] = [];
  const dir = () => {
    const d = tempDir('mnemo-export-');
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  const T = 1_700_000_000;
  const records = () => [
    newMemoryRecord('m1', 'The kitten sleeps on the rug\n\nAll afternoon.', T, {
      meta: { tags: ['cats', 'home'], source: 'chat', context: null, extra: {} },
      entities: ['kitten'],
    }),
    newMemoryRecord('m2', 'The kitten sleeps on the rug', T + 1),
    newMemoryRecord('m3', '../../etc/passwd: not a path', T + 2, {
      meta: { tags: [], source: null, context: null, extra: {} },
    }),
  ];
  const relation: RelationRecord = {
    id: 'r1',
    from_memory_id: 'm1',
    to_memory_id: 'm3',
    relation_type: 'related',
    strength: 1,
    created_at: T,
    metadata: {},
  };
  const relationsOf = (id: string) =>
    id === relation.from_memory_id || id === relation.to_memory_id ? [relation] : [];

  it('writes one note per memory that parses back with the same content and tags', async () => {
    const out = path.join(dir(), 'export');
    async function* stream() {
      yield* records();
    }
    const result = await exportMarkdown({ records: stream(), relationsOf, outDir: out });
    assert.equal(result.written, 3);
    const names = fs.readdirSync(out).sort();
    assert.deepEqual(names, [
      EXPORT_MARKER,
      'etc-passwd-not-a-path.md',
      'the-kitten-sleeps-on-the-rug-2.md',
      'the-kitten-sleeps-on-the-rug.md',
    ]);
    for (const [name, record] of [
      ['the-kitten-sleeps-on-the-rug.md', records()[0]],
      ['the-kitten-sleeps-on-the-rug-2.md', records()[1]],
      ['etc-passwd-not-a-path.md', records()[2]],
    ] as const) {
      const note = parseNote(fs.readFileSync(path.join(out, name), 'utf8'));
      assert.ok(note.valid);
      assert.equal(note.properties.memory_id, record?.id);
      assert.deepEqual(noteTags(note.properties), record?.meta.tags);
      const own = note.body.replace(/\n*## Related\n(- \[\[.*\]\]\n?)*$/, '').trimEnd();
      assert.equal(own, record?.content);
    }
    const first = fs.readFileSync(path.join(out, 'the-kitten-sleeps-on-the-rug.md'), 'utf8');
    assert.match(
      first,
      /## Related\n- \[\[etc-passwd-not-a-path\|\.\.\/\.\.\/etc\/passwd: not a path\]\]\n$/,
    );
    // The same text the vault writer's renderNote makes with the links at once, without the
    // `promoted` property of a memory that was not promoted.
    assert.doesNotMatch(first, /^promoted:/m);
    const { promoted: _, ...properties } = propertiesOf(records()[0] as MemoryRecord);
    assert.equal(
      first,
      renderNote(properties, records()[0]?.content ?? '', [
        { path: 'etc-passwd-not-a-path.md', title: '../../etc/passwd: not a path' },
      ]),
    );
    const third = fs.readFileSync(path.join(out, 'etc-passwd-not-a-path.md'), 'utf8');
    assert.match(third, /- \[\[the-kitten-sleeps-on-the-rug\|The kitten sleeps on the rug\]\]\n$/);
  });

  it('reads back through the markdown source: same content and tags, links as relations', async () => {
    const out = dir();
    await exportMarkdown({ records: records(), relationsOf, outDir: out });
    const entries = await collect(markdownSource.entries(out));
    const byContent = new Map(memories(entries).map((m) => [m.content, m]));
    for (const record of records()) {
      const item = byContent.get(record.content);
      assert.ok(item, record.content);
      assert.deepEqual(item.tags ?? [], record.meta.tags);
      assert.equal(item.created_at, record.created_at);
    }
    assert.deepEqual(
      relations(entries)
        .map((r) => `${r.fromKey} -> ${r.toKey}`)
        .sort(),
      [
        'markdown:etc-passwd-not-a-path.md -> markdown:the-kitten-sleeps-on-the-rug.md',
        'markdown:the-kitten-sleeps-on-the-rug.md -> markdown:etc-passwd-not-a-path.md',
      ],
    );
  });

  it('exports again into an earlier export, and refuses any other non-empty folder', async () => {
    const out = dir();
    await exportMarkdown({ records: records(), relationsOf, outDir: out });
    put(out, 'mine.md', 'a note of the person\n');
    const again = await exportMarkdown({
      records: records().slice(1),
      relationsOf: () => [],
      outDir: out,
    });
    assert.equal(again.written, 2);
    assert.deepEqual(fs.readdirSync(out).sort(), [
      EXPORT_MARKER,
      'etc-passwd-not-a-path.md',
      'mine.md',
      'the-kitten-sleeps-on-the-rug.md',
    ]);
    assert.equal(
      parseNote(fs.readFileSync(path.join(out, 'the-kitten-sleeps-on-the-rug.md'), 'utf8'))
        .properties.memory_id,
      'm2',
    );
    assert.equal(fs.readFileSync(path.join(out, 'mine.md'), 'utf8'), 'a note of the person\n');

    const other = dir();
    put(other, 'notes.md', 'mine\n');
    await assert.rejects(
      exportMarkdown({ records: records(), relationsOf, outDir: other }),
      /is not empty and no earlier markdown export .*give a new or empty folder/,
    );
    const file = path.join(other, 'notes.md');
    await assert.rejects(
      exportMarkdown({ records: records(), relationsOf, outDir: file }),
      /is a file: give a new or empty folder/,
    );
  });
});
