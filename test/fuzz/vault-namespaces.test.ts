// Notes written into a vault that several namespaces share: each note may come from another
// device (a person's, or a tenant's synced folder), so what it says is hostile. Each namespace's
// memories are spoken for by its own folder's notes only (docs/namespaces.md): a note elsewhere
// that names one of them changes nothing of it, and no note makes or removes a memory.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { stringify } from 'yaml';
import type { MemoryContext } from '../../src/memory/context.js';
import type { Memory } from '../../src/memory/index.js';
import type { MemoryRecord } from '../../src/storage/records.js';
import { capturingLogger, openTestMemory, tempDir } from '../support.js';
import { bounded, clip, hostileJson, hostileText, objectOf, timeBoxed } from './hostile.js';

/** The namespaces of the store: the default one (the vault but the others' folders), and two. */
const NAMESPACES = ['default', 'alice', 'bob'] as const;
type Namespace = (typeof NAMESPACES)[number];
/** A word of every memory, and one word of each namespace only: no generated text holds them. */
const SHARED = 'kestrel';
const MARKERS: Record<Namespace, string> = {
  default: 'quorvexdefault',
  alice: 'quorvexalice',
  bob: 'quorvexbob',
};

/** Whether a vault path is in the namespace's own folder (docs/namespaces.md, "On disk"). */
function ownFolder(namespace: Namespace, notePath: string): boolean {
  if (namespace !== 'default') return notePath.startsWith(`mnemo/${namespace}/`);
  return !notePath.startsWith('mnemo/') || !notePath.slice('mnemo/'.length).includes('/');
}

/** What a note may never change of a memory, wherever it is: all but where its note is. */
function fixedPart(record: MemoryRecord): string {
  const { status: _s, promoted_to: _t, promoted_at: _a, ...rest } = record;
  return JSON.stringify(rest);
}

function linkPart(record: MemoryRecord): string {
  return JSON.stringify([record.status, record.promoted_to, record.promoted_at]);
}

/** A memory_id a note may claim: an id of any namespace (by its index), unknown, or hostile. */
type IdPick = { of: Namespace; index: number } | { value: unknown };
const idPick: fc.Arbitrary<IdPick> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ of: fc.constantFrom(...NAMESPACES), index: fc.nat(3) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      value: fc.oneof(fc.uuid(), hostileText, fc.constantFrom('', 'default', '*', '..')),
    }),
  },
  { weight: 1, arbitrary: fc.record({ value: hostileJson }) },
);

const namespaceLike = fc.constantFrom(
  'namespace',
  'mnemo_namespace',
  'tenant',
  'folder',
  'promoted_to',
  'status',
  'stm_id',
  'memory_id',
  'owner',
  '__proto__',
);
const namespaceValue = fc.oneof(
  fc.constantFrom(...NAMESPACES, 'carol', 'mnemo/bob', 'mnemo/alice/x.md', '../bob', 'deleted'),
  hostileText,
  hostileJson,
);

/** Front matter: ids, tags and namespace-like keys, as YAML or as raw hostile lines. */
interface FrontMatter {
  ids: [string, IdPick][];
  tags: unknown;
  title: string | null;
  extra: [string, unknown][];
  raw: string[];
}
const frontMatter: fc.Arbitrary<FrontMatter> = fc.record({
  ids: fc.array(fc.tuple(fc.constantFrom('memory_id', 'stm_id'), idPick), { maxLength: 3 }),
  tags: fc.oneof(
    fc.array(fc.oneof(hostileText, fc.constantFrom(SHARED, 'bob', 'namespace/bob')), {
      maxLength: 4,
    }),
    hostileText,
    hostileJson,
  ),
  title: fc.option(hostileText),
  extra: fc.array(fc.tuple(namespaceLike, namespaceValue), { maxLength: 4 }),
  raw: fc.array(hostileText, { maxLength: 2 }),
});

/** A body: hostile text, wikilinks into the other folders, a Related section. */
const body = fc.oneof(
  hostileText,
  fc
    .array(
      fc.oneof(
        hostileText,
        fc.constantFrom(
          '\n## Related\n- [[mnemo/bob/x|x]]\n',
          '[[mnemo/alice/]]',
          '\n---\nmemory_id: x\n---\n',
          SHARED,
        ),
      ),
      { maxLength: 5 },
    )
    .map((parts) => parts.join(' ')),
);

const folder = fc.constantFrom(
  'mnemo/alice/',
  'mnemo/bob/',
  'mnemo/',
  '',
  'notes/',
  'mnemo/alice/deep/',
  'mnemo/bob/deep/',
  'mnemo/carol/',
  'mnemo/bobby/',
  'Mnemo/bob/',
  'mnemo/alice/bob/',
  'mnemo\\bob\\',
  '.trash/mnemo/bob/',
);
const fileName = fc.oneof(
  fc.constantFrom('note', 'x', 'anchor', 'con', '-', ' ', 'a b', '..x', 'ünïcode', 'mnemo'),
  fc.stringMatching(/^[a-z0-9-]{1,12}$/),
);
const extension = fc.constantFrom('.md', '.md', '.md', '.MD');

/**
 * What another device does to the vault: a new file; an existing note edited in place, or moved;
 * or a folder made a link to another folder of the vault (a device syncs links too), then an event
 * of a note through it (a folder replaced by a link while the watcher reads a note of it).
 */
type Write =
  | { kind: 'new'; folder: string; name: string; ext: string; text: NoteText }
  | { kind: 'edit'; note: NotePick; how: 'replace' | 'reclaim' | 'append'; text: NoteText }
  | { kind: 'move'; note: NotePick; folder: string; name: string; ext: string }
  | { kind: 'link'; note: NotePick; folder: string; name: string };
type NotePick = { of: Namespace; index: number };
type NoteText = { front: FrontMatter | null; body: string };

const notePick: fc.Arbitrary<NotePick> = fc.record({
  of: fc.constantFrom(...NAMESPACES),
  index: fc.nat(3),
});
const noteText: fc.Arbitrary<NoteText> = fc.record({
  front: fc.option(frontMatter, { freq: 5 }),
  body,
});
const write: fc.Arbitrary<Write> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('new' as const),
      folder,
      name: fileName,
      ext: extension,
      text: noteText,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('edit' as const),
      note: notePick,
      how: fc.constantFrom('replace' as const, 'reclaim' as const, 'append' as const),
      text: noteText,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('move' as const),
      note: notePick,
      folder,
      name: fileName,
      ext: extension,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('link' as const),
      note: notePick,
      folder,
      name: fc.constantFrom('d', 'work', 'shared', 'x.md'),
    }),
  },
);

/** Each namespace's memories: three promoted (each with its note), one active. */
const PROMOTED = 3;
const PER_NAMESPACE = 4;

type Setup = Record<Namespace, { memory: Memory; ids: string[] }>;

function pickId(setup: Setup, pick: IdPick): unknown {
  if ('value' in pick) return pick.value;
  const ids = setup[pick.of].ids;
  return ids[pick.index % ids.length];
}

function render(setup: Setup, text: NoteText): string {
  if (!text.front) return text.body;
  const { ids, tags, title, extra, raw } = text.front;
  const entries: [string, unknown][] = [];
  if (title !== null) entries.push(['title', title]);
  for (const [key, pick] of ids) entries.push([key, pickId(setup, pick)]);
  entries.push(['tags', tags], ...extra);
  let yaml: string;
  try {
    yaml = stringify(objectOf(entries));
  } catch {
    yaml = '';
  }
  return `---\n${yaml}${raw.join('\n')}\n---\n${text.body}`;
}

/** The sync of a namespace: what the watcher's events reach (the tests' way to settle it). */
function syncOf(memory: Memory) {
  const { vault } = (memory.writing as unknown as { ctx: MemoryContext }).ctx;
  assert.ok(vault, 'a vault');
  return vault.sync;
}

/** The vault paths of the notes really in the vault: no link followed, no hidden folder. */
function walk(root: string, dir = root): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) out.push(...walk(root, full));
    else if (entry.isFile() && entry.name.toLowerCase().endsWith('.md')) {
      out.push(path.relative(root, full).split(path.sep).join('/'));
    }
  }
  return out;
}

describe('notes of a shared vault never cross namespaces (property)', () => {
  it('a note changes, reveals, makes or removes no memory but its own folder’s', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(write, { minLength: 1, maxLength: 6 }),
        timeBoxed(40, async (writes) => {
          const dir = tempDir('mnemo-vault-ns-');
          const log = capturingLogger();
          const m = await openTestMemory({}, dir, { logger: log.logger });
          try {
            // Each namespace with promoted memories (so notes), and an active one.
            const setup = {} as Setup;
            for (const ns of NAMESPACES) {
              const memory = m.opened.memoryFor(ns);
              const ids: string[] = [];
              for (let i = 0; i < PER_NAMESPACE; i++) {
                const { memory_id } = await memory.writing.save({
                  content: `${'abcd'[i]} ${SHARED} note of ${MARKERS[ns]} number ${i}`,
                  tags: [ns, `t${i}`],
                });
                ids.push(memory_id);
                if (i < PROMOTED) await memory.promotion.promote({ memory_id, force: true });
              }
              setup[ns] = { memory, ids };
            }
            const syncs = NAMESPACES.map((ns) => syncOf(setup[ns].memory));
            const settle = async (paths: string[]) => {
              for (const relative of paths) await m.opened.notes.refresh(relative);
              for (const sync of syncs) await sync.flush();
            };
            await settle(walk(m.vault));
            const before = new Map<string, { ns: Namespace; record: MemoryRecord }>();
            for (const ns of NAMESPACES) {
              for (const record of m.opened.storeOf(ns).memories.values()) {
                before.set(record.id, { ns, record });
              }
              for (const [i, id] of setup[ns].ids.entries()) {
                const record = before.get(id)?.record;
                assert.equal(record?.status, i < PROMOTED ? 'promoted' : 'active');
              }
            }

            // The notes, written as another device would, then read as the watcher reads them.
            const written = new Map<string, string>();
            const at = (relative: string) => path.join(m.vault, relative);
            for (const w of writes) {
              const noteOf = (pick: NotePick) => {
                const id = setup[pick.of].ids[pick.index % PROMOTED] as string;
                const relative = before.get(id)?.record.promoted_to ?? '';
                return fs.existsSync(at(relative)) ? relative : undefined;
              };
              if (w.kind === 'new') {
                const relative = `${w.folder}${w.name}${w.ext}`;
                const text = render(setup, w.text);
                fs.mkdirSync(path.dirname(at(relative)), { recursive: true });
                fs.writeFileSync(at(relative), text);
                written.set(relative, text);
                continue;
              }
              const relative = noteOf(w.note);
              if (relative === undefined) continue;
              const old = fs.readFileSync(at(relative), 'utf8');
              if (w.kind === 'edit') {
                let text = render(setup, w.text);
                if (w.how === 'reclaim') {
                  const claimed = w.text.front?.ids[0]?.[1];
                  const value = claimed ? pickId(setup, claimed) : '';
                  text = old.replace(/^memory_id: .*$/m, `memory_id: ${JSON.stringify(value)}`);
                } else if (w.how === 'append') {
                  text = `${old}\n${text}`;
                }
                fs.writeFileSync(at(relative), text);
                written.set(relative, text);
              } else if (w.kind === 'move') {
                const to = `${w.folder}${w.name}${w.ext}`;
                fs.mkdirSync(path.dirname(at(to)), { recursive: true });
                fs.renameSync(at(relative), at(to));
                written.set(relative, old);
                written.set(to, old);
              } else {
                const link = `${w.folder}${w.name}`;
                if (fs.existsSync(at(link))) continue;
                fs.mkdirSync(path.dirname(at(link)), { recursive: true });
                const target = path.dirname(at(relative));
                fs.symlinkSync(path.relative(path.dirname(at(link)), target) || '.', at(link));
                written.set(`${link}/${path.posix.basename(relative)}`, old);
              }
            }
            await settle([...written.keys()]);
            assert.deepEqual(
              log.lines.filter((l) => l.msg === 'cannot record note changes'),
              [],
              'the sync failed',
            );

            // No memory made or removed; what a note may change of one is where its note is,
            // and only by a note of its own namespace's folder that names it (or was its note).
            for (const ns of NAMESPACES) {
              const now = m.opened.storeOf(ns).memories;
              const had = [...before.values()].filter((b) => b.ns === ns);
              assert.deepEqual([...now.keys()].sort(), had.map((b) => b.record.id).sort(), ns);
              for (const { record } of had) {
                const after = now.get(record.id) as MemoryRecord;
                assert.equal(fixedPart(after), fixedPart(record), `${ns}: a note changed it`);
                if (linkPart(after) === linkPart(record)) continue;
                const cause = [...written].find(
                  ([relative, text]) =>
                    ownFolder(ns, relative) &&
                    (text.includes(record.id) || relative === record.promoted_to),
                );
                assert.ok(
                  cause,
                  `${ns}'s memory ${record.id} went from ${linkPart(record)} to ${linkPart(after)} by notes at ${JSON.stringify([...written.keys()])}`,
                );
                if (after.promoted_to) assert.ok(ownFolder(ns, after.promoted_to), 'moved out');
              }
            }

            // Each namespace still answers, and never with another's memories or notes: another's
            // words only where a note of its own folder has them (a person moved them there).
            const notes = walk(m.vault);
            for (const ns of NAMESPACES) {
              const { memory, ids } = setup[ns];
              const own = notes
                .filter((relative) => ownFolder(ns, relative))
                .map((relative) => `${relative}\n${fs.readFileSync(at(relative), 'utf8')}`)
                .join('\n')
                .toLowerCase();
              const others = NAMESPACES.filter((o) => o !== ns)
                .map((o) => MARKERS[o])
                .filter((marker) => !own.includes(marker));
              for (const query of [SHARED, ...Object.values(MARKERS)]) {
                const found = await memory.recall.search({ query, top_k: 20 });
                const unified = await memory.recall.searchUnified({ query, top_k: 20 });
                for (const hit of found.results) assert.ok(ids.includes(hit.memory_id), ns);
                for (const hit of unified.results) {
                  if (hit.path) assert.ok(ownFolder(ns, hit.path), `${ns} sees ${hit.path}`);
                  if (hit.memory_id === undefined || ids.includes(hit.memory_id)) continue;
                  // A note of its folder that names an id it does not hold: the note's words,
                  // as for an id nobody has; nothing of that memory's record.
                  assert.equal(hit.source, 'ltm', ns);
                  assert.equal(hit.date, undefined, `${ns} sees when ${hit.memory_id} was saved`);
                }
                const seen = JSON.stringify([found, unified]).toLowerCase();
                for (const marker of others) {
                  assert.ok(!seen.includes(marker), `${ns} sees ${marker}: ${clip(seen)}`);
                }
              }
              // A memory no note of its folder was written for is found by its words as before.
              if ([...written.keys()].some((relative) => ownFolder(ns, relative))) continue;
              const mine = await memory.recall.search({ query: MARKERS[ns], top_k: 20 });
              assert.deepEqual(
                mine.results.map((hit) => hit.memory_id).sort(),
                [...ids].sort(),
                ns,
              );
            }
          } finally {
            await m.close();
          }
        }),
      ),
      bounded(40),
    );
  });
});
