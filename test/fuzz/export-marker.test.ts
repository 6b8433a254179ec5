import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { newMemoryRecord, type RelationRecord } from '../../src/storage/records.js';
import { EXPORT_MARKER, ExportError, exportMarkdown } from '../../src/transfer/export-markdown.js';
import { T0, tempDir } from '../support.js';
import {
  assertNoPollution,
  bounded,
  hostileJson,
  hostileNumber,
  hostileText,
  objectOf,
  timeBoxed,
} from './hostile.js';

// `mnemo export --format markdown --out DIR` into a folder that holds a `.mnemo-export` of any
// bytes (a hand edit, a sync tool, someone else's file of that name): the marker is an earlier
// export's, and the export goes into the folder, or it is not mnemo's, and the folder is refused
// with an ExportError saying so. Never another throw, and nothing outside the folder, nor a
// folder inside it, is removed whatever notes the marker lists.

const records = () => [
  newMemoryRecord('m1', 'Alpha note about the garden', T0),
  newMemoryRecord('m2', 'Beta note about the kitchen', T0 + 1),
];
const relation: RelationRecord = {
  id: 'r1',
  from_memory_id: 'm1',
  to_memory_id: 'm2',
  relation_type: 'related',
  strength: 1,
  created_at: T0,
  metadata: {},
};
const relationsOf = (id: string) => (id === 'm1' || id === 'm2' ? [relation] : []);

/** What the folder holds besides the marker: a person's files, a folder, a link out. */
const EXTRAS = ['keep.txt', 'old.md', 'link.md', 'sub'];

/** Names a hand-edited marker may list as its notes. */
const noteName = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      ...EXTRAS,
      'sub/inner.md',
      '../outside.md',
      EXPORT_MARKER,
      '',
      '.',
      '..',
      'a\0b.md',
      `${'x'.repeat(300)}.md`,
      '/etc/passwd',
      '..\\outside.md',
      '__proto__',
      'alpha-note-about-the-garden.md',
    ),
  },
  { weight: 1, arbitrary: hostileText },
  { weight: 1, arbitrary: hostileJson },
);

const markerish = fc
  .record(
    {
      format: fc.oneof(
        { weight: 3, arbitrary: fc.constant('mnemo-markdown-export') },
        { weight: 1, arbitrary: hostileText },
        { weight: 1, arbitrary: hostileJson },
      ),
      version: fc.oneof(fc.constant(1), hostileNumber, hostileJson),
      notes: fc.oneof(
        { weight: 3, arbitrary: fc.array(noteName, { maxLength: 8 }) },
        { weight: 1, arbitrary: hostileJson },
      ),
    },
    { requiredKeys: ['format', 'notes'] },
  )
  .chain((fields) =>
    fc.tuple(fc.boolean(), fc.constantFrom('line', 'pretty', 'bom', 'cut')).map(([proto, how]) => {
      const value = objectOf([
        ...Object.entries(fields),
        ...(proto ? [['__proto__', { polluted: 1 }] as [string, unknown]] : []),
      ]);
      const text = JSON.stringify(value, null, how === 'pretty' ? 2 : undefined);
      if (how === 'bom') return `\ufeff${text}`;
      if (how === 'cut') return text.slice(0, text.length >> 1);
      return text;
    }),
  );

const marker = fc.oneof(
  { weight: 4, arbitrary: markerish.map((text) => ({ kind: 'text' as const, text })) },
  { weight: 2, arbitrary: hostileText.map((text) => ({ kind: 'text' as const, text })) },
  {
    weight: 1,
    arbitrary: hostileJson.map((v) => ({ kind: 'text' as const, text: JSON.stringify(v) ?? '' })),
  },
  {
    weight: 1,
    arbitrary: fc
      .uint8Array({ maxLength: 200 })
      .map((bytes) => ({ kind: 'bytes' as const, bytes })),
  },
  { weight: 1, arbitrary: fc.constantFrom({ kind: 'folder' as const }, { kind: 'fifo' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'link' as const }) },
);

/** The marker as an export reads it: an earlier export's list of notes, or undefined. */
function oracle(file: string): string[] | undefined {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!stat?.isFile()) return undefined;
  try {
    const value = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown> | null;
    if (value?.format !== 'mnemo-markdown-export' || !Array.isArray(value.notes)) return undefined;
    return value.notes.filter((n): n is string => typeof n === 'string');
  } catch {
    return undefined;
  }
}

/** Every file under `dir` (links not followed) with its bytes. */
function contents(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const kind = entry.isFile() ? fs.readFileSync(full, 'latin1') : entry.isDirectory() ? '/' : '@';
    out.set(path.relative(dir, full), kind);
  }
  return out;
}

describe('fuzz: the marker of a markdown export (src/transfer/export-markdown.ts)', () => {
  it('any .mnemo-export gives an export into the folder or "not an earlier export", never another throw', async () => {
    await fc.assert(
      fc.asyncProperty(
        marker,
        timeBoxed(3, async (m) => {
          const parent = tempDir('mnemo-fuzz-marker-');
          try {
            const out = path.join(parent, 'out');
            fs.mkdirSync(path.join(out, 'sub'), { recursive: true });
            fs.writeFileSync(path.join(parent, 'outside.md'), 'outside\n');
            fs.writeFileSync(path.join(out, 'keep.txt'), 'a file of the person\n');
            fs.writeFileSync(path.join(out, 'old.md'), 'an older note\n');
            fs.writeFileSync(path.join(out, 'sub', 'inner.md'), 'inside a folder\n');
            fs.symlinkSync(path.join(parent, 'outside.md'), path.join(out, 'link.md'));
            const file = path.join(out, EXPORT_MARKER);
            switch (m.kind) {
              case 'text':
                fs.writeFileSync(file, m.text);
                break;
              case 'bytes':
                fs.writeFileSync(file, m.bytes);
                break;
              case 'folder':
                fs.mkdirSync(file);
                break;
              case 'fifo':
                spawnSync('mkfifo', [file]);
                break;
              case 'link': {
                const target = path.join(parent, 'marker.json');
                const notes = ['old.md'];
                fs.writeFileSync(
                  target,
                  JSON.stringify({ format: 'mnemo-markdown-export', version: 1, notes }),
                );
                fs.symlinkSync(target, file);
                break;
              }
            }
            const earlier = oracle(file);
            const before = contents(parent);

            let written: number | undefined;
            try {
              ({ written } = await exportMarkdown({
                records: records(),
                relationsOf,
                outDir: out,
              }));
            } catch (error) {
              if (!(error instanceof ExportError)) throw error;
              assert.equal(
                earlier,
                undefined,
                `an earlier export's folder refused: ${error.message}`,
              );
              assert.match(
                error.message,
                /no earlier markdown export \(it has no \.mnemo-export\)/,
              );
              assert.ok(error.message.includes(out), 'the error does not name the folder');
              assert.deepEqual(contents(parent), before, 'a refused export changed files');
            }
            if (written !== undefined) {
              assert.ok(earlier !== undefined, 'exported into a folder of no earlier export');
              assert.equal(written, 2);
              const after = contents(parent);
              assert.equal(after.get('outside.md'), 'outside\n', 'a file outside was changed');
              assert.equal(
                after.get('out/sub/inner.md'),
                'inside a folder\n',
                'a folder was emptied',
              );
              for (const name of ['keep.txt', 'old.md', 'link.md']) {
                if (!earlier.includes(name)) assert.ok(after.has(`out/${name}`), `${name} removed`);
              }
              assert.deepEqual(oracle(file)?.sort(), [
                'alpha-note-about-the-garden.md',
                'beta-note-about-the-kitchen.md',
              ]);
            }
            assertNoPollution();
          } finally {
            fs.rmSync(parent, { recursive: true, force: true });
          }
        }),
      ),
      bounded(150),
    );
  });
});
