import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { StorageEngine } from '../../src/storage/engine.js';
import { newMemoryRecord } from '../../src/storage/records.js';
import { importInto } from '../../src/transfer/import.js';
import { mnemoSource } from '../../src/transfer/mnemo-format.js';
import { cortexgraphSource } from '../../src/transfer/sources/cortexgraph.js';
import { markdownSource, readNote } from '../../src/transfer/sources/markdown.js';
import { serverMemorySource } from '../../src/transfer/sources/server-memory.js';
import type { ImportSource, ImportSummary } from '../../src/transfer/types.js';
import { openTestMemory, T0, type TestMemory, tempDir } from '../support.js';
import { recordYamlInput } from '../vault/yaml-input.js';
import {
  assertNoPollution,
  bounded,
  hostileJson,
  hostileNumber,
  hostileText,
  objectOf,
  timeBoxed,
} from './hostile.js';

// Each import format, fed a generated hostile file: what must hold is that every bad item is a
// refusal with a place and a reason while the good ones import, that nothing throws past the
// import, that a dry run writes nothing and tells what the real run then does, that a second
// run adds nothing, and that another namespace's memories stay as they were.

/** Memories of namespace "alice", one live and one forgotten: an import elsewhere must not touch them. */
const ALICE_LIVE = 'alice-live-0000';
const ALICE_FORGOTTEN = 'alice-forgotten-0000';
const OUTSIDE_SECRET = 'SECRET-OUTSIDE-THE-IMPORT-FOLDER';

let m: TestMemory;
let alice: StorageEngine;
let outside: string;
let run = 0;

before(async () => {
  m = await openTestMemory();
  alice = m.store.namespace('alice');
  await alice.transact(() => ({
    result: undefined,
    memories: [
      newMemoryRecord(ALICE_LIVE, 'alice live', T0),
      newMemoryRecord(ALICE_FORGOTTEN, 'alice forgotten', T0),
    ],
  }));
  await alice.transact(() => ({
    result: undefined,
    deletes: [ALICE_FORGOTTEN],
    forgotten: [newMemoryRecord(ALICE_FORGOTTEN, 'alice forgotten', T0)],
  }));
  outside = tempDir('mnemo-fuzz-outside-');
  fs.writeFileSync(path.join(outside, 'secret.md'), `${OUTSIDE_SECRET}\n`);
});

after(async () => {
  await m.close();
  fs.rmSync(outside, { recursive: true, force: true });
});

/** An id a hostile record may carry: its own, another namespace's, or nonsense. */
const hostileId = fc.oneof(
  hostileText,
  fc.constantFrom(ALICE_LIVE, ALICE_FORGOTTEN, '__proto__', 'a', 'a'),
);

/**
 * What the data dir holds: names and sizes, to show a dry run wrote nothing. The writer lock is
 * left out: kept a few ms after the last write, it comes and goes by itself.
 */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const name = path.relative(dir, full);
    if (name.split(path.sep)[0]?.startsWith('.lock')) continue;
    if (entry.isFile()) out.push(`${name} ${fs.statSync(full).size}`);
  }
  return out.sort();
}

interface Case {
  /** The file or folder to import. */
  path: string;
  /** Texts that good items hold: each must be in some imported memory's content. */
  good: string[];
}

async function aliceState() {
  return {
    live: [...alice.memories.values()].map((r) => [r.id, r.content]),
    forgotten: (await alice.forgottenRecords()).map((r) => [r.id, r.content]),
  };
}

/** Imports `c` with --dry-run, for real and again, into a namespace of its own, and checks each. */
async function checkImport(source: ImportSource, c: Case, ns: string): Promise<void> {
  const view = m.store.namespace(ns);
  const aliceBefore = await aliceState();
  const options = { engine: view, source, path: c.path, clock: () => T0 };
  const dataBefore = snapshot(m.dir);

  const dry = await importInto({ ...options, dryRun: true });
  assert.deepEqual(snapshot(m.dir), dataBefore, 'a dry run wrote to the data dir');
  assert.equal(view.memories.size, 0, 'a dry run added memories');
  checkSummary(dry);

  const real = await importInto(options);
  checkSummary(real);
  assert.equal(real.imported, dry.imported, 'the dry run told another count of memories');
  assert.equal(real.relations, dry.relations, 'the dry run told another count of relations');
  assert.deepEqual(real.refused, dry.refused, 'the dry run refused other entries');
  const contents = [...view.memories.values()].map((r) => r.content);
  for (const text of c.good) {
    assert.ok(
      contents.some((content) => content.includes(text)),
      `good item ${text} not imported`,
    );
  }
  for (const content of contents)
    assert.ok(!content.includes(OUTSIDE_SECRET), 'read out of the folder');
  assert.ok(!view.memories.has(ALICE_LIVE), 'imported an id alice holds');
  assert.ok(!view.memories.has(ALICE_FORGOTTEN), 'imported an id alice forgot');

  const again = await importInto(options);
  assert.equal(again.imported, 0, 'a second run imported memories again');
  assert.equal(again.relations, 0, 'a second run imported relations again');

  assert.deepEqual(await aliceState(), aliceBefore, "an import changed alice's memories");
  assertNoPollution();
}

function checkSummary(summary: ImportSummary): void {
  const accounted =
    summary.imported +
    summary.relations +
    summary.forgotten +
    summary.skipped_existing +
    summary.refused.length;
  assert.equal(
    accounted,
    summary.read,
    `entries read and accounted for differ: ${JSON.stringify(summary).slice(0, 500)}`,
  );
  for (const refusal of summary.refused) {
    assert.ok(refusal.where.length > 0, 'a refusal without a place');
    assert.ok(refusal.why.length > 0, 'a refusal without a reason');
  }
}

/** Runs one generated case in a folder of its own, removed after. */
async function inFolder(build: (dir: string, ns: string) => Case, source: ImportSource) {
  const dir = tempDir('mnemo-fuzz-import-');
  const ns = `run-${run++}`;
  try {
    await checkImport(source, build(dir, ns), ns);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// The walk is fuzzed here; the note reader has properties of its own (branch sec-vault), so a
// note's text stays short enough that its speed is not what is measured.
const noteText = hostileText.map((text) => text.slice(0, 2_000));

const oneLine = (text: string) => text.replace(/[\n\r]/g, ' ');

// server-memory: {"type":"entity",...} and {"type":"relation",...} lines.
const entityish = fc
  .record(
    {
      type: fc.oneof(fc.constant('entity'), hostileText),
      name: fc.oneof(hostileText, hostileNumber, fc.constant(null)),
      entityType: hostileJson,
      observations: fc.oneof(fc.array(hostileText, { maxLength: 3 }), hostileJson),
    },
    { requiredKeys: ['type'] },
  )
  .map((v) => JSON.stringify(objectOf([...Object.entries(v), ['__proto__', { polluted: 1 }]])));
const relationLine = fc
  .record({
    type: fc.oneof(fc.constant('relation'), hostileText),
    from: fc.oneof(hostileText, fc.constantFrom('good-0', 'good-1')),
    to: fc.oneof(hostileText, fc.constantFrom('good-0', 'good-1'), fc.constant(null)),
    relationType: hostileJson,
  })
  .map((v) => JSON.stringify(v));
const serverMemoryLine = fc.oneof(
  fc.constant(null),
  entityish,
  relationLine,
  hostileText.map(oneLine),
  hostileJson.map((v) => JSON.stringify(v) ?? 'null'),
);

// cortexgraph and mnemo: whole records.
const recordish = fc
  .record(
    {
      id: hostileId,
      content: fc.oneof(hostileText, hostileNumber),
      meta: hostileJson,
      created_at: fc.oneof(hostileNumber, hostileText),
      strength: hostileNumber,
      status: fc.oneof(fc.constantFrom('active', 'promoted', 'archived'), hostileText),
      promoted_to: fc.oneof(
        hostileText,
        fc.constantFrom('../../../../etc/passwd', '/etc/passwd', `../${'x/'.repeat(50)}`),
      ),
      namespace: fc.oneof(fc.constantFrom('alice', 'default'), hostileText),
      _deleted: fc.boolean(),
    },
    { requiredKeys: ['id'] },
  )
  .map((v) => objectOf([...Object.entries(v), ['__proto__', { polluted: 1 }]]));
const relationRecordish = fc.record(
  {
    id: hostileId,
    from_memory_id: hostileId,
    to_memory_id: hostileId,
    relation_type: hostileText,
    strength: hostileNumber,
  },
  { requiredKeys: [] },
);

describe('fuzz: mnemo import of hostile files', () => {
  it('--from server-memory: bad lines refused by place, good entities imported', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(serverMemoryLine, { maxLength: 12 }),
        timeBoxed(2, async (plan) => {
          await inFolder((dir, ns) => {
            const good: string[] = [];
            const entity = (i: number) => {
              const text = `${ns} good observation ${i}`;
              good.push(text);
              return JSON.stringify({
                type: 'entity',
                name: `good-${i}`,
                entityType: 'thing',
                observations: [text],
              });
            };
            // The first line is an entity, so the file is server-memory's and read.
            const lines = [entity(0), ...plan.map((line, i) => line ?? entity(i + 1))];
            const file = path.join(dir, 'memory.jsonl');
            fs.writeFileSync(file, `${lines.join('\n')}\n`);
            return { path: file, good };
          }, serverMemorySource);
        }),
      ),
      bounded(60),
    );
  });

  it('--from cortexgraph: bad records refused by line, good records imported', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.constant(null),
            recordish.map((r) => JSON.stringify(r)),
            hostileText.map(oneLine),
          ),
          {
            maxLength: 10,
          },
        ),
        fc.array(
          fc.oneof(
            relationRecordish.map((r) => JSON.stringify(r)),
            hostileText.map(oneLine),
          ),
          {
            maxLength: 4,
          },
        ),
        timeBoxed(2, async (memories, relations) => {
          await inFolder((dir, ns) => {
            const good: string[] = [];
            const lines = memories.map((line, i) => {
              if (line !== null) return line;
              const content = `${ns} good memory ${i}`;
              good.push(content);
              return JSON.stringify(newMemoryRecord(`${ns}-good-${i}`, content, T0));
            });
            fs.writeFileSync(path.join(dir, 'memories.jsonl'), `${lines.join('\n')}\n`);
            fs.writeFileSync(path.join(dir, 'relations.jsonl'), `${relations.join('\n')}\n`);
            return { path: dir, good };
          }, cortexgraphSource);
        }),
      ),
      bounded(60),
    );
  });

  it('--from mnemo: bad lines refused by line, good records imported', async () => {
    const line = fc.oneof(
      fc.constant(null),
      recordish.map((memory) => JSON.stringify({ memory })),
      recordish.map((forgotten) => JSON.stringify({ forgotten })),
      relationRecordish.map((relation) => JSON.stringify({ relation })),
      hostileJson.map((v) => JSON.stringify(v) ?? 'null'),
      hostileText.map(oneLine),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 12 }),
        timeBoxed(2, async (plan) => {
          await inFolder((dir, ns) => {
            const good: string[] = [];
            const header = { format: 'mnemo-export', version: 1, namespace: 'x', exported_at: T0 };
            const lines = [
              JSON.stringify(header),
              ...plan.map((l, i) => {
                if (l !== null) return l;
                const content = `${ns} good memory ${i}`;
                good.push(content);
                return JSON.stringify({ memory: newMemoryRecord(`${ns}-good-${i}`, content, T0) });
              }),
            ];
            const file = path.join(dir, 'export.jsonl');
            fs.writeFileSync(file, `${lines.join('\n')}\n`);
            return { path: file, good };
          }, mnemoSource);
        }),
      ),
      bounded(60),
    );
  });

  it('never takes an id another namespace holds, live or forgotten (--from mnemo)', async () => {
    // The break: a forgotten record carrying alice's id, imported into bob, and alice's
    // restore of it failing for good.
    // An id of its own: the properties above may have imported ALICE_FORGOTTEN elsewhere already.
    const forgottenId = `alice-forgotten-${run}`;
    await alice.transact(() => ({
      result: undefined,
      forgotten: [newMemoryRecord(forgottenId, 'alice forgotten', T0)],
    }));
    const ids = [ALICE_LIVE, forgottenId];
    const lines = ids.flatMap((id) => [
      JSON.stringify({ memory: newMemoryRecord(id, `taken ${id}`, T0) }),
      JSON.stringify({ forgotten: newMemoryRecord(id, `taken ${id}`, T0) }),
    ]);
    const dir = tempDir('mnemo-fuzz-import-');
    const ns = `run-${run++}`;
    try {
      const file = path.join(dir, 'export.jsonl');
      const header = { format: 'mnemo-export', version: 1, namespace: 'x', exported_at: T0 };
      fs.writeFileSync(file, `${[JSON.stringify(header), ...lines].join('\n')}\n`);
      const view = m.store.namespace(ns);
      const summary = await importInto({
        engine: view,
        source: mnemoSource,
        path: file,
        clock: () => T0,
      });
      checkSummary(summary);
      const forgotten = (await view.forgottenRecords()).map((r) => r.id);
      for (const id of ids) {
        assert.ok(!view.memories.has(id), `${id} imported live`);
        assert.ok(!forgotten.includes(id), `${id} imported as forgotten`);
      }
      assert.equal((await alice.findForgotten(forgottenId))?.content, 'alice forgotten');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a note whose front matter is 30,000 newlines is read without handing them to the YAML parser', (t) => {
    const yaml = recordYamlInput(t);
    const read = readNote('x.md', `---\n${'\n'.repeat(30_000)}\n---\nbody\n`, 0);
    assert.equal('kind' in read && read.kind, 'refused');
    // Past MAX_FRONT_MATTER_CHARS: refused before the parser, whose cost grows with the text.
    assert.equal(yaml.parses, 0);
  });

  it('--from markdown: a hostile folder (links out, loops, FIFOs, odd names) imports its notes only', async () => {
    const node = fc.oneof(
      fc.constant({ kind: 'good' as const }),
      fc.record({ kind: fc.constant('named' as const), name: hostileText, text: noteText }),
      fc.constantFrom(
        { kind: 'link-out-file' as const },
        { kind: 'link-out-folder' as const },
        { kind: 'link-loop' as const },
        { kind: 'link-dangling' as const },
        { kind: 'fifo' as const },
        { kind: 'folder-named-md' as const },
        { kind: 'binary' as const },
        { kind: 'huge' as const },
        { kind: 'hidden' as const },
        { kind: 'empty' as const },
      ),
      fc.record({ kind: fc.constant('front-matter' as const), yaml: noteText }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(node, fc.constantFrom('', 'sub', 'sub/deeper')), { maxLength: 8 }),
        timeBoxed(3, async (plan) => {
          await inFolder((dir, ns) => {
            const good: string[] = [];
            plan.forEach(([n, folder], i) => {
              const at = path.join(dir, folder);
              fs.mkdirSync(at, { recursive: true });
              const file = (name: string) => path.join(at, name);
              switch (n.kind) {
                case 'good': {
                  const text = `${ns} good note ${i}`;
                  good.push(text);
                  fs.writeFileSync(file(`good-${i}.md`), `${text}\n`);
                  break;
                }
                case 'named': {
                  const name = n.name.replace(/[/\0]/g, '_').slice(0, 100);
                  if (name === '' || name === '.' || name === '..') break;
                  fs.writeFileSync(file(`${name}-${i}.md`), n.text);
                  break;
                }
                case 'link-out-file':
                  fs.symlinkSync(path.join(outside, 'secret.md'), file(`leak-${i}.md`));
                  break;
                case 'link-out-folder':
                  fs.symlinkSync(outside, file(`out-${i}`));
                  break;
                case 'link-loop':
                  fs.symlinkSync(dir, file(`loop-${i}`));
                  break;
                case 'link-dangling':
                  fs.symlinkSync(path.join(dir, 'nothing'), file(`dangling-${i}.md`));
                  break;
                case 'fifo':
                  spawnSync('mkfifo', [file(`fifo-${i}.md`)]);
                  break;
                case 'folder-named-md':
                  fs.mkdirSync(file(`folder-${i}.md`), { recursive: true });
                  break;
                case 'binary':
                  fs.writeFileSync(
                    file(`binary-${i}.md`),
                    Buffer.from([0xff, 0xfe, 0, 0xc3, 0x28, 0x0a]),
                  );
                  break;
                case 'huge':
                  fs.writeFileSync(file(`huge-${i}.md`), 'x'.repeat(2 << 20));
                  break;
                case 'hidden':
                  fs.writeFileSync(file(`.hidden-${i}.md`), OUTSIDE_SECRET);
                  break;
                case 'empty':
                  fs.writeFileSync(file(`empty-${i}.md`), '');
                  break;
                case 'front-matter':
                  fs.writeFileSync(file(`props-${i}.md`), `---\n${n.yaml}\n---\nbody ${i}\n`);
                  break;
              }
            });
            return { path: dir, good };
          }, markdownSource);
        }),
      ),
      bounded(40),
    );
  });
});
