import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import pino from 'pino';
import { type NoteEvent, VaultIndex } from '../../src/vault/note-index.js';
import { initVault } from '../../src/vault/template.js';
import {
  eventually,
  openTestClient,
  openTestMemory,
  type TestMemory,
  tempDir,
} from '../support.js';

const silent = pino({ level: 'silent' });

function writeNotes(vault: string, count: number): void {
  for (let i = 0; i < count; i++) {
    const dir = path.join(vault, `folder-${i % 20}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, `note-${i}.md`),
      `---\ntitle: Note ${i}\ntags: [bulk]\n---\nNote number ${i} talks about topic${i % 97} and more words.\n`,
    );
  }
}

describe('VaultIndex', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('indexes Markdown notes and skips hidden folders, the trash and other files', async () => {
    const vault = tempDir();
    dirs.push(vault);
    fs.mkdirSync(path.join(vault, '.obsidian'));
    fs.mkdirSync(path.join(vault, '.trash'));
    fs.mkdirSync(path.join(vault, 'sub/deeper'), { recursive: true });
    fs.writeFileSync(path.join(vault, '.obsidian/x.md'), 'settings');
    fs.writeFileSync(path.join(vault, '.trash/old.md'), 'trashed words');
    fs.writeFileSync(path.join(vault, 'image.png'), 'png');
    fs.writeFileSync(path.join(vault, 'sub/deeper/Deep thought.md'), 'About the ocean.');
    fs.writeFileSync(
      path.join(vault, 'top.md'),
      '---\ntitle: Top\nmemory_id: m-1\ntags: ["#sea"]\n---\nSurf report.',
    );
    const events: NoteEvent[] = [];
    const index = new VaultIndex({ vault, logger: silent, onEvent: (e) => events.push(e) });
    await index.start({ watch: false });
    assert.equal(index.size, 2);
    assert.deepEqual(index.get('top.md'), {
      path: 'top.md',
      title: 'Top',
      memoryId: 'm-1',
      tags: ['sea'],
      body: 'Surf report.',
    });
    assert.equal(index.get('sub/deeper/Deep thought.md')?.title, 'Deep thought');
    assert.deepEqual(index.search('ocean').ids, ['sub/deeper/Deep thought.md']);
    assert.deepEqual(index.search('sea').ids, ['top.md']);
    assert.equal(index.search('trashed').ids.length, 0);
    assert.deepEqual(
      index.notesOf('m-1').map((n) => n.path),
      ['top.md'],
    );
    assert.equal(events.length, 2);
    fs.rmSync(path.join(vault, 'top.md'));
    await index.refresh('top.md');
    assert.equal(index.size, 1);
    assert.deepEqual(index.notesOf('m-1'), []);
    assert.equal(events.at(-1)?.kind, 'remove');
    await index.close();
  });

  it('indexes a vault of 5,000 notes without holding up the first tool answer', async () => {
    const dir = tempDir();
    dirs.push(dir);
    writeNotes(path.join(dir, 'vault'), 5000);
    const t = await openTestClient(
      { MNEMO_VAULT_DIR: path.join(dir, 'vault') },
      { watchVault: true },
    );
    try {
      let indexed = false;
      void t.opened.readiness.wait('vault').then(() => {
        indexed = true;
      });
      const saved = await t.ok<{ memory_id: string }>('save_memory', { content: 'first call' });
      assert.ok(saved.memory_id);
      assert.equal(indexed, false, 'the first answer came before the vault was indexed');
      await t.opened.readiness.wait('vault');
      assert.equal(t.opened.notes.size, 5000);
      const found = await t.ok<{ results: { path?: string }[] }>('search_unified', {
        query: 'topic42',
        top_k: 100,
      });
      assert.ok(found.results.length > 40);
      assert.ok(found.results.every((r) => r.path?.endsWith('.md')));
    } finally {
      await t.close();
    }
  });
});

describe('the vault watcher (chokidar) keeps memories in step with notes', () => {
  let t: TestMemory;
  afterEach(() => t.close());

  it('follows edits, renames and deletes made by a person', async () => {
    t = await openTestMemory({}, undefined, { watchVault: true, noteSettleMs: 200 });
    const { memory_id } = await t.memory.writing.save({ content: 'The kitten sleeps on the rug' });
    const { promoted } = await t.memory.promotion.promote({ memory_id, force: true });
    const first = promoted[0]?.path ?? '';
    const file = path.join(t.vault, first);
    await eventually(
      async () => (await t.memory.recall.search({ query: 'kitten' })).total === 1,
      'index',
    );
    // Give the watcher its start (it begins once the vault exists).
    await t.opened.readiness.wait('vault');

    fs.writeFileSync(
      file,
      fs.readFileSync(file, 'utf8').replace(/rug\n$/, 'rug by the fireplace\n'),
    );
    await eventually(
      async () => (await t.memory.recall.search({ query: 'fireplace' })).total === 1,
      'the edit to reach search',
    );

    const renamed = path.join(t.vault, 'Our kitten.md');
    fs.renameSync(file, renamed);
    await eventually(
      () => t.store.memories.get(memory_id)?.promoted_to === 'Our kitten.md',
      'promoted_to to follow the rename',
    );
    assert.equal(t.store.memories.get(memory_id)?.status, 'promoted');

    fs.rmSync(renamed);
    await eventually(
      () => t.store.memories.get(memory_id)?.status === 'active',
      'the memory to be active again',
    );
  });
});

describe('no note falls between the first scan and the watch', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a note written while the vault is being scanned is indexed', async () => {
    const vault = tempDir();
    dirs.push(vault);
    fs.writeFileSync(path.join(vault, 'first.md'), 'The first note.');
    let written = false;
    const index = new VaultIndex({
      vault,
      logger: silent,
      onEvent: () => {
        // The scan has listed the vault and reads its first note: a person writes another.
        if (written) return;
        written = true;
        fs.writeFileSync(path.join(vault, 'second.md'), 'Written during the scan.');
      },
    });
    try {
      await index.start({ watch: true });
      assert.ok(written);
      await eventually(() => index.get('second.md') !== undefined, 'the second note indexed');
    } finally {
      await index.close();
    }
  });

  it('a note written as soon as a promotion made the vault is found by search_unified', async () => {
    const t = await openTestMemory({}, undefined, { watchVault: true });
    try {
      await t.opened.readiness.wait('vault');
      const { memory_id } = await t.memory.writing.save({ content: 'Deploys happen on Tuesdays' });
      await t.memory.promotion.promote({ memory_id, force: true });
      // The client searches at once (the vault's notes are read by then), then a person writes.
      assert.equal((await t.memory.recall.searchUnified({ query: 'tomatoes' })).total, 0);
      fs.writeFileSync(path.join(t.vault, 'Garden.md'), 'The tomatoes need water daily.');
      await eventually(
        async () =>
          (await t.memory.recall.searchUnified({ query: 'tomatoes' })).results.some(
            (r) => r.path === 'Garden.md',
          ),
        'the note to be found',
      );
    } finally {
      await t.close();
    }
  });

  it('a vault made folders deep, while saves change the data dir, is indexed and watched', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const vault = path.join(dir, 'a', 'b', 'vault');
    const t = await openTestClient({ MNEMO_VAULT_DIR: vault }, { watchVault: true });
    try {
      // Saves change the folders watched on the way (the data dir's log): none makes the vault.
      await t.ok('save_memory', { content: 'before the folders' });
      fs.mkdirSync(path.join(dir, 'a'));
      await t.ok('save_memory', { content: 'between the folders' });
      fs.mkdirSync(path.join(dir, 'a', 'b'));
      initVault(vault, 'mnemo');
      fs.writeFileSync(path.join(vault, 'Garden.md'), 'The tomatoes need water daily.');
      await eventually(async () => {
        const found = await t.ok<{ results: { path?: string }[] }>('search_unified', {
          query: 'tomatoes',
        });
        return found.results.some((r) => r.path === 'Garden.md');
      }, 'the note to be found');
    } finally {
      await t.close();
    }
  });

  it('a vault made by another process while mnemo runs is indexed and watched', async () => {
    const t = await openTestMemory({}, undefined, { watchVault: true });
    try {
      await t.opened.readiness.wait('vault');
      // `mnemo vault init` in a terminal, or another mnemo promoting.
      initVault(t.vault, 'mnemo');
      fs.writeFileSync(path.join(t.vault, 'Garden.md'), 'The tomatoes need water daily.');
      await eventually(
        async () =>
          (await t.memory.recall.searchUnified({ query: 'tomatoes' })).results.some(
            (r) => r.path === 'Garden.md',
          ),
        'the note to be found',
      );
      fs.writeFileSync(path.join(t.vault, 'Later.md'), 'The cucumbers too.');
      await eventually(
        async () => (await t.memory.recall.searchUnified({ query: 'cucumbers' })).total === 1,
        'a later note to be found',
      );
    } finally {
      await t.close();
    }
  });
});
