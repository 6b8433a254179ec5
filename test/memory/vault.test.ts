import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseNote } from '../../src/vault/note.js';
import { initVault } from '../../src/vault/template.js';
import {
  capturingLogger,
  DAY,
  eventually,
  openTestMemory,
  type TestMemory,
  tempDir,
} from '../support.js';

describe('promotion into the Obsidian vault', () => {
  let t: TestMemory;
  let log: ReturnType<typeof capturingLogger>;
  beforeEach(async () => {
    log = capturingLogger();
    t = await openTestMemory({}, undefined, { logger: log.logger });
  });
  afterEach(() => t.close());

  const read = (relative: string) => fs.readFileSync(path.join(t.vault, relative), 'utf8');

  /** Rereads notes the way the watcher would after a change, then settles the sync. */
  async function noticed(...relatives: string[]) {
    for (const relative of relatives) await t.opened.notes.refresh(relative);
    await t.opened.noteSync.flush();
  }

  it('writes the note and marks the memory promoted, with the path relative to the vault', async () => {
    const { memory_id } = await t.memory.writing.save({
      content: 'Kitten sleeping on the rug\nHer name is Milo.',
      tags: ['pets', 'home/cats'],
      entities: ['Milo'],
      source: 'chat',
    });
    t.clock.advanceDays(1);
    const done = await t.memory.promotion.promote({ memory_id, force: true });
    assert.deepEqual(done.promoted, [{ memory_id, path: 'mnemo/kitten-sleeping-on-the-rug.md' }]);
    const record = t.store.memories.get(memory_id);
    assert.equal(record?.status, 'promoted');
    assert.equal(record?.promoted_to, 'mnemo/kitten-sleeping-on-the-rug.md');
    assert.equal(record?.promoted_at, t.clock.now);
    const note = parseNote(read('mnemo/kitten-sleeping-on-the-rug.md'));
    assert.deepEqual(Object.keys(note.properties), [
      'title',
      'memory_id',
      'tags',
      'created',
      'promoted',
      'last_used',
      'use_count',
      'strength',
      'source',
      'entities',
    ]);
    assert.equal(note.properties.memory_id, memory_id);
    assert.deepEqual(note.properties.tags, ['pets', 'home/cats']);
    assert.deepEqual(note.properties.entities, ['Milo']);
    assert.equal(new Date(note.properties.promoted as string).getTime() / 1000, t.clock.now);
    assert.equal(note.body, 'Kitten sleeping on the rug\nHer name is Milo.\n');
  });

  it('writes notes the way Obsidian reads them: properties, tags, links', async () => {
    const a = await t.memory.writing.save({
      content: '# Milo: our "cat" — 🐈\nSleeps on the rug.',
      tags: ['pets', 'home/cats', 'x-1'],
      entities: ['Milo'],
    });
    const b = await t.memory.writing.save({ content: 'Milo likes tuna', tags: ['pets'] });
    await t.memory.writing.createRelation({
      from_memory_id: a.memory_id,
      to_memory_id: b.memory_id,
      relation_type: 'related',
    });
    await t.memory.promotion.promote({ memory_id: b.memory_id, force: true });
    const { promoted } = await t.memory.promotion.promote({ memory_id: a.memory_id, force: true });
    const types = JSON.parse(fs.readFileSync(path.join(t.vault, '.obsidian/types.json'), 'utf8'))
      .types as Record<string, string>;
    const text = read(promoted[0]?.path ?? '');
    // Properties: a YAML block at the very top, between --- lines.
    assert.match(text, /^---\n[\s\S]+?\n---\n/);
    const { properties, body } = parseNote(text);
    for (const [key, value] of Object.entries(properties)) {
      const type = types[key];
      assert.ok(type, `${key} has a declared property type`);
      if (type === 'datetime') assert.match(String(value), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
      if (type === 'number') assert.equal(typeof value, 'number', key);
      if (type === 'text') assert.equal(typeof value, 'string', key);
      if (type === 'tags' || type === 'multitext') {
        assert.ok(Array.isArray(value) && value.every((v) => typeof v === 'string'), key);
      }
    }
    // Tags: no #, no spaces, Obsidian's characters, not only digits.
    for (const tag of properties.tags as string[]) {
      assert.match(tag, /^(?!\d+$)[\p{L}\p{N}_/-]+$/u);
    }
    assert.equal(properties.title, 'Milo: our "cat" — 🐈');
    // Links: wikilinks whose target is a note of the vault.
    const links = [...body.matchAll(/\[\[([^\]|#^]+)(?:\|[^\]]*)?\]\]/g)].map((m) => m[1]);
    assert.deepEqual(links, ['mnemo/milo-likes-tuna']);
    for (const link of links) assert.ok(fs.existsSync(path.join(t.vault, `${link}.md`)), link);
  });

  it('dry_run lists candidates and why, and writes nothing', async () => {
    const { memory_id } = await t.memory.writing.save({ content: 'used a lot' });
    for (let i = 0; i < 5; i++) await t.memory.writing.touch({ memory_id: memory_id });
    await t.memory.writing.save({ content: 'used once' });
    const dry = await t.memory.promotion.promote({ auto_detect: true, dry_run: true });
    assert.equal(dry.candidates_found, 1);
    assert.match(dry.candidates[0]?.reason ?? '', /with 5 uses/);
    assert.equal(dry.promoted_count, 0);
    assert.ok(!fs.existsSync(t.vault));
    const done = await t.memory.promotion.promote({ auto_detect: true });
    assert.deepEqual(
      done.promoted.map((p) => p.memory_id),
      [memory_id],
    );
  });

  it('refuses a memory that does not qualify, unless forced', async () => {
    const { memory_id } = await t.memory.writing.save({ content: 'fresh' });
    await assert.rejects(
      t.memory.promotion.promote({ memory_id }),
      /does not qualify.*force: true/,
    );
    assert.equal(t.store.memories.get(memory_id)?.status, 'active');
  });

  it('links the notes of related promoted memories', async () => {
    const a = await t.memory.writing.save({ content: 'Milo is a cat' });
    const b = await t.memory.writing.save({ content: 'Milo sleeps on the rug' });
    await t.memory.writing.createRelation({
      from_memory_id: b.memory_id,
      to_memory_id: a.memory_id,
      relation_type: 'supports',
    });
    await t.memory.promotion.promote({ memory_id: a.memory_id, force: true });
    const done = await t.memory.promotion.promote({ memory_id: b.memory_id, force: true });
    const body = read(done.promoted[0]?.path ?? '');
    assert.match(body, /\n## Related\n- \[\[mnemo\/milo-is-a-cat\|Milo is a cat\]\]\n$/);
  });

  it('an edit in Obsidian changes what search finds for that memory', async () => {
    const { memory_id } = await t.memory.writing.save({ content: 'The kitten sleeps on the rug' });
    const { promoted } = await t.memory.promotion.promote({ memory_id, force: true });
    const file = promoted[0]?.path ?? '';
    await noticed(file);
    fs.writeFileSync(
      path.join(t.vault, file),
      read(file).replaceAll('The kitten sleeps on the rug', 'The puppy naps by the fireplace'),
    );
    await noticed(file);
    const found = await t.memory.recall.search({ query: 'fireplace' });
    assert.deepEqual(
      found.results.map((r) => r.memory_id),
      [memory_id],
    );
    assert.match(found.results[0]?.content ?? '', /^The puppy naps by the fireplace/);
    assert.equal((await t.memory.recall.search({ query: 'kitten' })).total, 0);
    // The agent's own record is unchanged: the note is what a person sees and edits.
    assert.equal(t.store.memories.get(memory_id)?.content, 'The kitten sleeps on the rug');
  });

  it('a renamed note keeps its memory linked', async () => {
    const { memory_id } = await t.memory.writing.save({ content: 'Kitten' });
    const { promoted } = await t.memory.promotion.promote({ memory_id, force: true });
    const from = promoted[0]?.path ?? '';
    fs.mkdirSync(path.join(t.vault, 'Pets'));
    fs.renameSync(path.join(t.vault, from), path.join(t.vault, 'Pets/Our kitten.md'));
    await noticed(from, 'Pets/Our kitten.md');
    const record = t.store.memories.get(memory_id);
    assert.equal(record?.status, 'promoted');
    assert.equal(record?.promoted_to, 'Pets/Our kitten.md');
    assert.ok(log.lines.some((l) => l.msg === 'note moved: promoted_to follows it'));
    // A later promotion updates the note where it is now.
    const again = await t.memory.promotion.promote({ memory_id, force: true });
    assert.equal(again.promoted[0]?.path, 'Pets/Our kitten.md');
  });

  it('a rename seen half (the old path gone, the new one not yet read) does not demote the memory meanwhile', async () => {
    const { memory_id } = await t.memory.writing.save({ content: 'Kitten' });
    const { promoted } = await t.memory.promotion.promote({ memory_id, force: true });
    const from = promoted[0]?.path ?? '';
    await noticed(from);
    fs.mkdirSync(path.join(t.vault, 'Pets'));
    fs.renameSync(path.join(t.vault, from), path.join(t.vault, 'Pets/Our kitten.md'));
    await t.opened.notes.refresh(from);
    // Another reconcile of the memory while the removal settles (as the batch of a note change
    // would run it): the removal's verdict waits for the addition.
    await t.opened.noteSync.recheck(memory_id);
    assert.equal(t.store.memories.get(memory_id)?.status, 'promoted');
    await noticed('Pets/Our kitten.md');
    assert.equal(t.store.memories.get(memory_id)?.promoted_to, 'Pets/Our kitten.md');
    assert.deepEqual(
      log.lines.map((l) => l.msg).filter((m) => typeof m === 'string' && m.startsWith('note ')),
      ['note moved: promoted_to follows it'],
    );
  });

  it('a deleted note puts the memory back to active, and logs it', async () => {
    const { memory_id } = await t.memory.writing.save({ content: 'Kitten' });
    const { promoted } = await t.memory.promotion.promote({ memory_id, force: true });
    const file = promoted[0]?.path ?? '';
    await noticed(file);
    fs.rmSync(path.join(t.vault, file));
    await noticed(file);
    const record = t.store.memories.get(memory_id);
    assert.equal(record?.status, 'active');
    assert.equal(record?.promoted_to, null);
    const line = log.lines.find(
      (l) => l.msg === 'note deleted from the vault: the memory is active again',
    );
    assert.equal(line?.memory_id, memory_id);
    assert.equal(line?.note, undefined, 'the path (a slug of the content) is not logged');
    // Searching finds it by its own words again.
    assert.equal(
      (await t.memory.recall.search({ query: 'kitten' })).results[0]?.memory_id,
      memory_id,
    );
  });

  it('logs name the memory, never the path of a note (a slug of its content)', async () => {
    const { memory_id } = await t.memory.writing.save({ content: 'Launch codename Bluebird' });
    const { promoted } = await t.memory.promotion.promote({ memory_id, force: true });
    const file = promoted[0]?.path ?? '';
    assert.match(file, /bluebird/, 'the path is a slug of the content');
    await noticed(file);
    fs.mkdirSync(path.join(t.vault, 'Plans'));
    fs.renameSync(path.join(t.vault, file), path.join(t.vault, 'Plans/Bluebird.md'));
    await noticed(file, 'Plans/Bluebird.md');
    fs.rmSync(path.join(t.vault, 'Plans/Bluebird.md'));
    await noticed('Plans/Bluebird.md');
    fs.writeFileSync(
      path.join(t.vault, 'mnemo/bluebird-again.md'),
      `---\nmemory_id: ${memory_id}\n---\nLaunch codename Bluebird\n`,
    );
    await noticed('mnemo/bluebird-again.md');
    // A note that cannot be read (a link to itself).
    fs.symlinkSync('bluebird-loop.md', path.join(t.vault, 'mnemo/bluebird-loop.md'));
    await noticed('mnemo/bluebird-loop.md');

    const said = (msg: string) => log.lines.filter((l) => l.msg === msg);
    for (const msg of [
      'note moved: promoted_to follows it',
      'note deleted from the vault: the memory is active again',
      'note in the vault: memory promoted',
    ]) {
      assert.deepEqual(
        said(msg).map((l) => l.memory_id),
        [memory_id],
        msg,
      );
    }
    assert.equal(said('note skipped').length, 1);
    for (const line of log.lines) assert.doesNotMatch(JSON.stringify(line), /bluebird/i);
  });

  it('a note that names an active memory promotes it (a crash between note and record)', async () => {
    const { memory_id } = await t.memory.writing.save({ content: 'Kitten' });
    fs.mkdirSync(path.join(t.vault, 'mnemo'), { recursive: true });
    fs.writeFileSync(
      path.join(t.vault, 'mnemo/kitten.md'),
      `---\nmemory_id: ${memory_id}\n---\nKitten\n`,
    );
    await noticed('mnemo/kitten.md');
    const record = t.store.memories.get(memory_id);
    assert.equal(record?.status, 'promoted');
    assert.equal(record?.promoted_to, 'mnemo/kitten.md');
  });

  it('a deleted promoted memory comes back promoted when its note is still there, relinked', async () => {
    const { memory_id } = await t.memory.writing.save({ content: 'The kitten sleeps on the rug' });
    const { promoted } = await t.memory.promotion.promote({ memory_id, force: true });
    const file = promoted[0]?.path ?? '';
    await noticed(file);
    await t.memory.forgetting.delete({ memory_id: memory_id });
    // The person moves and edits the note while the memory is away.
    fs.mkdirSync(path.join(t.vault, 'Pets'));
    fs.writeFileSync(
      path.join(t.vault, 'Pets/Kitten.md'),
      read(file).replaceAll('sleeps on the rug', 'naps by the fireplace'),
    );
    fs.rmSync(path.join(t.vault, file));
    await noticed(file, 'Pets/Kitten.md');
    assert.equal(t.store.memories.get(memory_id), undefined);

    assert.deepEqual(await t.memory.forgetting.restore({ memory_id: memory_id }), {
      memory_id,
      status: 'promoted',
    });
    const record = t.store.memories.get(memory_id);
    assert.equal(record?.status, 'promoted');
    assert.equal(record?.promoted_to, 'Pets/Kitten.md');
    // Searched by its note as the person left it.
    const found = await t.memory.recall.search({ query: 'fireplace' });
    assert.deepEqual(
      found.results.map((r) => r.memory_id),
      [memory_id],
    );
    assert.equal((await t.memory.recall.search({ query: 'rug' })).total, 0);
  });

  it('a deleted promoted memory whose note is gone comes back active, promoted_to cleared', async () => {
    const { memory_id } = await t.memory.writing.save({ content: 'The kitten sleeps on the rug' });
    const { promoted } = await t.memory.promotion.promote({ memory_id, force: true });
    const file = promoted[0]?.path ?? '';
    await noticed(file);
    // The same for an archived one: restoring it checks its note too.
    const other = await t.memory.writing.save({ content: 'Milo likes tuna' });
    const second = await t.memory.promotion.promote({ memory_id: other.memory_id, force: true });
    const otherFile = second.promoted[0]?.path ?? '';
    await noticed(otherFile);
    await t.memory.forgetting.delete({ memory_id: memory_id });
    await t.memory.forgetting.archive({ memory_id: other.memory_id });
    fs.rmSync(path.join(t.vault, file));
    fs.rmSync(path.join(t.vault, otherFile));
    await noticed(file, otherFile);

    assert.deepEqual(await t.memory.forgetting.restore({ memory_id: memory_id }), {
      memory_id,
      status: 'active',
    });
    assert.deepEqual(await t.memory.forgetting.restore({ memory_id: other.memory_id }), {
      memory_id: other.memory_id,
      status: 'active',
    });
    for (const id of [memory_id, other.memory_id]) {
      const record = t.store.memories.get(id);
      assert.equal(record?.status, 'active');
      assert.equal(record?.promoted_to, null);
    }
    assert.equal((await t.memory.recall.search({ query: 'rug' })).results[0]?.memory_id, memory_id);
    // It can be promoted again: a new note.
    const again = await t.memory.promotion.promote({ memory_id, force: true });
    assert.equal(again.promoted[0]?.path, file);
  });

  it('a second promotion does not overwrite a note a person edited', async () => {
    const { memory_id } = await t.memory.writing.save({ content: 'Kitten' });
    const { promoted } = await t.memory.promotion.promote({ memory_id, force: true });
    const file = path.join(t.vault, promoted[0]?.path ?? '');
    const edited = `${fs.readFileSync(file, 'utf8')}\nA line the person added.\n`;
    fs.writeFileSync(file, edited);
    await t.memory.writing.touch({ memory_id: memory_id });
    t.clock.advanceDays(2);
    await t.memory.promotion.promote({ memory_id, force: true });
    const text = fs.readFileSync(file, 'utf8');
    assert.match(text, /A line the person added\.\n$/);
    assert.equal(parseNote(text).properties.use_count, 1);
    assert.equal(text.replace(/use_count: 1/, 'use_count: 0'), edited);
  });

  it('update_memory never writes through a link planted at the temp name of its note (the name was <note>.<pid>.tmp)', async () => {
    const { memory_id } = await t.memory.writing.save({ content: 'Kitten asleep' });
    const { promoted } = await t.memory.promotion.promote({ memory_id, force: true });
    const relative = promoted[0]?.path ?? '';
    const victim = path.join(t.dir, 'authorized_keys');
    fs.writeFileSync(victim, 'ssh-ed25519 the owner\n');
    const folder = path.dirname(path.join(t.vault, relative));
    const name = path.basename(relative);
    for (const planted of [`.${name}.${process.pid}.tmp`, `${name}.${process.pid}.tmp`]) {
      fs.symlinkSync(victim, path.join(folder, planted));
    }
    await t.memory.editing.update({ memory_id, content: 'ssh-ed25519 the attacker' });
    assert.equal(fs.readFileSync(victim, 'utf8'), 'ssh-ed25519 the owner\n');
    assert.match(read(relative), /ssh-ed25519 the attacker/);
  });

  it('update_memory leaves a note that a person made a link alone: the memory changes, the link and its target do not', async () => {
    const { memory_id } = await t.memory.writing.save({ content: 'Kitten asleep' });
    const { promoted } = await t.memory.promotion.promote({ memory_id, force: true });
    const relative = promoted[0]?.path ?? '';
    const note = path.join(t.vault, relative);
    const elsewhere = path.join(t.vault, 'elsewhere.md');
    fs.renameSync(note, elsewhere);
    fs.symlinkSync(elsewhere, note);
    const before = fs.readFileSync(elsewhere, 'utf8');
    const names = () => fs.readdirSync(path.dirname(note)).sort();
    const listed = names();
    await t.memory.editing.update({ memory_id, content: 'Puppy awake' });
    assert.equal(t.store.memories.get(memory_id)?.content, 'Puppy awake');
    assert.equal(fs.lstatSync(note).isSymbolicLink(), true);
    assert.equal(fs.readFileSync(elsewhere, 'utf8'), before);
    assert.deepEqual(names(), listed, 'a file was made beside the link');
  });

  it('an unwritable vault gives a clear error and leaves the memory active', async () => {
    const { memory_id } = await t.memory.writing.save({ content: 'Kitten' });
    // A file where the vault's folder should be: no user, root included, can write there.
    fs.mkdirSync(t.vault, { recursive: true });
    fs.writeFileSync(path.join(t.vault, 'mnemo'), 'not a folder');
    await assert.rejects(
      t.memory.promotion.promote({ memory_id, force: true }),
      /cannot write to the vault at .*(a file is in the way|permission denied).*MNEMO_VAULT_DIR.*the memories stay active/,
    );
    const record = t.store.memories.get(memory_id);
    assert.equal(record?.status, 'active');
    assert.equal(record?.promoted_to, null);
  });

  it('a vault folder that a link leads out of the vault fails the promotion, naming the setting', async () => {
    const linked = await openTestMemory({ MNEMO_VAULT_FOLDER: 'notes/mnemo' });
    try {
      const outside = path.join(linked.dir, 'outside');
      fs.mkdirSync(outside);
      fs.mkdirSync(linked.vault, { recursive: true });
      fs.writeFileSync(path.join(linked.vault, 'Home.md'), "A person's vault.");
      fs.symlinkSync(outside, path.join(linked.vault, 'notes'));
      const { memory_id } = await linked.memory.writing.save({ content: 'Kitten' });
      await assert.rejects(
        linked.memory.promotion.promote({ memory_id, force: true }),
        /MNEMO_VAULT_FOLDER "notes\/mnemo" leads out of the vault .*"notes" is a link to .*outside.*set MNEMO_VAULT_FOLDER to a folder inside the vault.*the memories stay active/,
      );
      assert.deepEqual(fs.readdirSync(outside), [], 'nothing was made outside the vault');
      assert.equal(linked.store.memories.get(memory_id)?.status, 'active');
    } finally {
      await linked.close();
    }
  });

  it('search_unified ranks memories and every vault note together, once each', async () => {
    const kept = await t.memory.writing.save({ content: 'The kitten sleeps on the rug' });
    await t.memory.writing.save({ content: 'A kitten chased the red ball' });
    const { promoted } = await t.memory.promotion.promote({
      memory_id: kept.memory_id,
      force: true,
    });
    fs.writeFileSync(path.join(t.vault, 'Vet visits.md'), 'The kitten had her shots today.');
    await noticed('Vet visits.md', promoted[0]?.path ?? '');
    const found = await t.memory.recall.searchUnified({ query: 'kitten' });
    assert.equal(found.results.length, 3);
    assert.equal(new Set(found.results.map((r) => r.memory_id ?? r.path)).size, 3);
    const note = found.results.find((r) => r.path === 'Vet visits.md');
    assert.equal(note?.source, 'ltm');
    assert.equal(note?.title, 'Vet visits');
    const own = found.results.find((r) => r.memory_id === kept.memory_id);
    assert.equal(own?.path, promoted[0]?.path);
    const stmOnly = await t.memory.recall.searchUnified({ query: 'kitten', ltm_weight: 0 });
    assert.ok(stmOnly.results.every((r) => r.source === 'stm'));
    const ltmOnly = await t.memory.recall.searchUnified({ query: 'kitten', stm_weight: 0 });
    assert.deepEqual(
      ltmOnly.results.map((r) => r.source),
      ['ltm', 'ltm'],
    );
    const heavy = await t.memory.recall.searchUnified({ query: 'shots kitten', ltm_weight: 10 });
    assert.equal(heavy.results[0]?.path, 'Vet visits.md');
  });

  it('a fading memory ranks below a fresh one in search_unified', async () => {
    const old = await t.memory.writing.save({ content: 'kitten facts one' });
    t.clock.advanceDays(30);
    const fresh = await t.memory.writing.save({ content: 'kitten facts two' });
    const found = await t.memory.recall.searchUnified({ query: 'kitten facts', ltm_weight: 0 });
    assert.deepEqual(
      found.results.map((r) => r.memory_id),
      [fresh.memory_id, old.memory_id],
    );
    assert.ok(DAY > 0);
  });
});

describe('a cortexgraph data dir beside the vault', () => {
  const FIXTURES = fileURLToPath(new URL('../fixtures/cortexgraph/', import.meta.url));
  const TABS = '0b6f2d4e-5c1a-4f3b-9e2d-7a8c9d0e1f20';
  const NOTE = 'STM/prefers-tabs-over-spaces.md';
  // The note cortexgraph wrote for it: marked by stm_id, at promoted_to relative to its vault.
  const CORTEXGRAPH_NOTE = [
    '---',
    'title: Prefers tabs over spaces',
    "created: '2024-12-24T00:26:40'",
    "modified: '2024-12-30T23:06:40'",
    'tags:',
    '- preferences',
    `stm_id: ${TABS}`,
    'use_count: 6',
    '---',
    'Prefers tabs over spaces; 100 columns.',
    '',
  ].join('\n');
  let t: TestMemory;
  let log: ReturnType<typeof capturingLogger>;
  afterEach(() => t.close());

  /** Their data files in a fresh data dir, with `extra` records appended. */
  function cortexgraphDir(extra: object[] = []): string {
    const dir = tempDir();
    for (const name of fs.readdirSync(FIXTURES)) {
      fs.copyFileSync(path.join(FIXTURES, name), path.join(dir, name));
    }
    for (const record of extra) {
      fs.appendFileSync(path.join(dir, 'memories.jsonl'), `${JSON.stringify(record)}\n`);
    }
    return dir;
  }

  async function open(dir: string) {
    log = capturingLogger();
    t = await openTestMemory({}, dir, { watchVault: true, logger: log.logger, noteSettleMs: 50 });
    await t.opened.readiness.wait('vault');
    await t.opened.noteSync.flush();
  }

  it('never demotes a memory whose note is in a vault mnemo was not pointed at', async () => {
    // Never made: only named, as a record from another machine would.
    const elsewhere = path.resolve(os.tmpdir(), 'no-such-vault-for-mnemo/STM/deploys.md');
    const dir = cortexgraphDir([
      {
        id: 'abs-1',
        content: 'Deploys happen on Tuesdays.',
        meta: { tags: [], source: null, context: null, extra: {} },
        created_at: 1735000000,
        last_used: 1735500000,
        use_count: 4,
        strength: 1,
        status: 'promoted',
        promoted_at: 1735600000,
        promoted_to: elsewhere,
      },
    ]);
    // mnemo's own vault, which does not hold their notes.
    initVault(path.join(dir, 'vault'), 'mnemo');
    fs.writeFileSync(path.join(dir, 'vault/Garden.md'), 'Tomatoes.');
    await open(dir);
    assert.equal(t.opened.notes.size, 2, 'the vault was indexed');
    assert.equal(t.store.memories.get(TABS)?.status, 'promoted');
    assert.equal(t.store.memories.get(TABS)?.promoted_to, NOTE);
    assert.equal(t.store.memories.get('abs-1')?.status, 'promoted');
    assert.equal(t.store.memories.get('abs-1')?.promoted_to, elsewhere);
    assert.deepEqual(
      log.lines.filter((l) => /note deleted/.test(String(l.msg))),
      [],
      'nothing was deleted by the person',
    );
  });

  it('reads their notes (stm_id, a promoted_to relative to the vault) and follows them', async () => {
    const dir = cortexgraphDir();
    fs.mkdirSync(path.join(dir, 'vault/STM'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'vault', NOTE), CORTEXGRAPH_NOTE);
    await open(dir);
    const record = () => t.store.memories.get(TABS);
    assert.equal(record()?.status, 'promoted');
    assert.equal(t.opened.notes.get(NOTE)?.memoryId, TABS, 'stm_id names the memory');
    const unified = await t.memory.recall.searchUnified({ query: 'tabs columns' });
    assert.deepEqual(
      unified.results.map((r) => [r.memory_id, r.path]),
      [[TABS, NOTE]],
      'the memory and its note are one result',
    );

    // Edited by a person: searched as edited.
    const file = path.join(t.vault, NOTE);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('100 columns', '120 columns'));
    await eventually(
      async () =>
        (await t.memory.recall.search({ query: '120' })).results.some((r) => r.memory_id === TABS),
      'the edit to be searched',
    );
    // Promoted again by mnemo: their note is updated in place, not written twice.
    await t.memory.promotion.promote({ memory_id: TABS, force: true });
    assert.equal(record()?.promoted_to, NOTE);
    assert.deepEqual(fs.readdirSync(path.join(t.vault, 'mnemo')), []);
    assert.match(fs.readFileSync(file, 'utf8'), /120 columns/);

    // Deleted by a person while mnemo watches: the memory is active again.
    fs.rmSync(file);
    await eventually(() => record()?.status === 'active', 'the memory to be active again');
    assert.equal(record()?.promoted_to, null);
  });
});
