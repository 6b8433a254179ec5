import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { newMemoryRecord } from '../../src/storage/records.js';
import { parseNote } from '../../src/vault/note.js';
import { resolveInVault } from '../../src/vault/paths.js';
import { initVault, TEMPLATE_DIR } from '../../src/vault/template.js';
import { VaultWriter } from '../../src/vault/writer.js';
import { T0, tempDir } from '../support.js';

const promoted = (id: string, content: string) => ({
  ...newMemoryRecord(id, content, T0),
  status: 'promoted' as const,
  promoted_at: T0 + 60,
});

describe('VaultWriter', () => {
  let dir: string;
  let vault: string;
  let writer: VaultWriter;
  beforeEach(() => {
    dir = tempDir();
    vault = path.join(dir, 'vault');
    writer = new VaultWriter({ vault, folder: 'mnemo' });
  });
  afterEach(() => {
    fs.chmodSync(dir, 0o700);
    if (fs.existsSync(vault)) fs.chmodSync(vault, 0o700);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('makes a new vault from the template at the first note', () => {
    const note = writer.write(promoted('m1', 'A kitten sleeping on the rug'), []);
    assert.equal(note.path, 'mnemo/a-kitten-sleeping-on-the-rug.md');
    assert.equal(note.created, true);
    for (const file of ['.obsidian/app.json', '.obsidian/types.json', 'Start here.md']) {
      assert.ok(fs.existsSync(path.join(vault, file)), file);
    }
    assert.ok(!fs.existsSync(path.join(vault, 'mnemo/.gitkeep')));
    JSON.parse(fs.readFileSync(path.join(vault, '.obsidian/app.json'), 'utf8'));
    const parsed = parseNote(fs.readFileSync(path.join(vault, note.path), 'utf8'));
    assert.equal(parsed.properties.memory_id, 'm1');
    assert.equal(parsed.properties.title, 'A kitten sleeping on the rug');
  });

  it('uses an existing vault as it is and writes only in its folder', () => {
    fs.mkdirSync(path.join(vault, 'Daily'), { recursive: true });
    fs.writeFileSync(path.join(vault, 'Daily/today.md'), 'mine');
    const before = fs.readdirSync(vault).sort();
    writer.write(promoted('m1', 'note'), []);
    assert.deepEqual(fs.readdirSync(vault).sort(), [...before, 'mnemo'].sort());
    assert.equal(fs.readFileSync(path.join(vault, 'Daily/today.md'), 'utf8'), 'mine');
  });

  it('never writes over a file it did not write: the next free name', () => {
    initVault(vault, 'mnemo');
    fs.writeFileSync(path.join(vault, 'mnemo/meeting-notes.md'), 'a person wrote this');
    const note = writer.write(promoted('m1', 'Meeting notes'), []);
    assert.equal(note.path, 'mnemo/meeting-notes-2.md');
    assert.equal(
      fs.readFileSync(path.join(vault, 'mnemo/meeting-notes.md'), 'utf8'),
      'a person wrote this',
    );
    const other = writer.write(promoted('m2', 'Meeting notes'), []);
    assert.equal(other.path, 'mnemo/meeting-notes-3.md');
  });

  it('keeps hostile first lines inside the folder', () => {
    const cases = ['../../x', '/etc/passwd', 'CON', 'aux.txt', '..\\..\\win', '.hidden'];
    for (const [i, content] of cases.entries()) {
      const note = writer.write(promoted(`m${i}`, content), []);
      const absolute = path.join(vault, note.path);
      assert.equal(path.dirname(absolute), path.join(vault, 'mnemo'), content);
      assert.ok(fs.existsSync(absolute));
      assert.ok(!path.basename(absolute).startsWith('.'), content);
    }
    assert.ok(!fs.existsSync(path.join(dir, 'x.md')));
  });

  it('refuses paths that lead out of the vault, by .. or through a link', () => {
    initVault(vault, 'mnemo');
    assert.throws(() => resolveInVault(vault, '../outside.md'), /outside the vault/);
    assert.throws(() => resolveInVault(vault, '/etc/passwd'), /absolute path/);
    fs.symlinkSync(dir, path.join(vault, 'escape'));
    assert.throws(() => resolveInVault(vault, 'escape/x.md'), /through a link/);
    // A record whose promoted_to was edited to point outside is not followed.
    const record = { ...promoted('m1', 'Hello'), promoted_to: '../../../etc/hosts' };
    assert.equal(writer.write(record, []).path, 'mnemo/hello.md');
  });

  it('on a second promotion updates only its own properties; the edit stays', () => {
    const first = writer.write(promoted('m1', 'Kitten'), []);
    const file = path.join(vault, first.path);
    const edited = fs
      .readFileSync(file, 'utf8')
      .replace('title: Kitten', 'title: My cat\nrating: 5')
      .replace(/\n---\n[\s\S]*$/, '\n---\nRewritten by a person.\n');
    fs.writeFileSync(file, edited);
    const again = writer.write(
      { ...promoted('m1', 'Kitten (agent changed it)'), use_count: 9, promoted_to: first.path },
      [],
    );
    assert.equal(again.path, first.path);
    assert.equal(again.created, false);
    const text = fs.readFileSync(file, 'utf8');
    const parsed = parseNote(text);
    assert.equal(parsed.body, 'Rewritten by a person.\n');
    assert.equal(parsed.properties.title, 'My cat');
    assert.equal(parsed.properties.rating, 5);
    assert.equal(parsed.properties.use_count, 9);
    assert.equal(fs.readdirSync(path.join(vault, 'mnemo')).length, 1);
  });

  it('leaves a note whose properties a person broke as it is', () => {
    const first = writer.write(promoted('m1', 'Kitten'), []);
    const file = path.join(vault, first.path);
    const broken = fs.readFileSync(file, 'utf8').replace('use_count: 0', 'use_count: [oops');
    fs.writeFileSync(file, broken);
    // Its memory_id no longer reads, so it is not found as this memory's note: a new note is
    // written beside it, and the broken one is not touched.
    const again = writer.write({ ...promoted('m1', 'Kitten'), promoted_to: first.path }, []);
    assert.notEqual(again.path, first.path);
    assert.equal(fs.readFileSync(file, 'utf8'), broken);
  });

  it('says clearly when the vault cannot be written, and writes nothing', {
    skip: process.getuid?.() === 0 && 'root ignores file modes',
  }, () => {
    fs.mkdirSync(vault, { recursive: true });
    fs.writeFileSync(path.join(vault, 'mine.md'), 'x');
    fs.chmodSync(vault, 0o500);
    assert.throws(
      () => writer.write(promoted('m1', 'Kitten'), []),
      /cannot write to the vault .*permission denied.*MNEMO_VAULT_DIR/,
    );
  });

  it('template: a vault made from it has no files the template lacks', () => {
    const made = initVault(path.join(dir, 'fresh'), 'notes/mnemo');
    assert.equal(made.created, true);
    assert.ok(fs.existsSync(path.join(dir, 'fresh/notes/mnemo')));
    assert.ok(fs.existsSync(path.join(TEMPLATE_DIR, '.obsidian/app.json')));
    assert.throws(() => initVault(path.join(dir, 'x'), '../out'), /MNEMO_VAULT_FOLDER/);
    const again = initVault(path.join(dir, 'fresh'), 'notes/mnemo');
    assert.equal(again.created, false);
  });

  it('a folder swapped for a link out of the vault after its check: nothing is made or replaced out there', (t) => {
    if (!fs.existsSync('/proc/self/fd')) return t.skip('needs /proc');
    const outside = path.join(dir, 'outside');
    fs.mkdirSync(outside);
    const record = promoted('m1', 'Kiln notes');
    const first = writer.write(record, []);
    // Out there, a file of the name the rewrite will give: it must stay as it is.
    fs.writeFileSync(path.join(outside, path.basename(first.path)), 'NOT A NOTE');
    const swapBeforeNextOpen = () => {
      const open = fs.openSync;
      const mock = t.mock.method(fs, 'openSync', (...args: Parameters<typeof fs.openSync>) => {
        // The first open of a new file (the note, or the rewrite's temp): the folder was checked.
        if (typeof args[1] === 'number' && args[1] & fs.constants.O_CREAT) {
          mock.mock.restore();
          fs.renameSync(path.join(vault, 'mnemo'), path.join(dir, 'kept'));
          fs.symlinkSync(outside, path.join(vault, 'mnemo'));
        }
        return open(...args);
      });
    };
    const unswap = () => {
      fs.rmSync(path.join(vault, 'mnemo'));
      fs.renameSync(path.join(dir, 'kept'), path.join(vault, 'mnemo'));
    };

    // The messages name the memory, not its note: the note's name is a slug of its words.
    const namesMemoryNotNote = (id: string, words: RegExp) => (error: Error) => {
      assert.match(error.message, new RegExp(`^the note of memory ${id} in .* left the vault`));
      assert.ok(!words.test(error.message), error.message);
      return true;
    };
    swapBeforeNextOpen();
    assert.throws(
      () => writer.write(promoted('m2', 'Glaze recipes'), []),
      namesMemoryNotNote('m2', /glaze/i),
    );
    assert.deepEqual(fs.readdirSync(outside), [path.basename(first.path)]);
    unswap();

    swapBeforeNextOpen();
    assert.throws(
      () => writer.write({ ...record, use_count: 9, promoted_to: first.path }, []),
      namesMemoryNotNote('m1', /kiln/i),
    );
    assert.deepEqual(fs.readdirSync(outside), [path.basename(first.path)]);
    assert.equal(
      fs.readFileSync(path.join(outside, path.basename(first.path)), 'utf8'),
      'NOT A NOTE',
    );
  });

  it('every name of a note taken: the error names the memory and its folder, not the name (its words)', (t) => {
    initVault(vault, 'mnemo');
    const open = fs.openSync;
    t.mock.method(fs, 'openSync', (...args: Parameters<typeof fs.openSync>) => {
      const [file, flags] = args;
      if (String(file).includes('my-bank-pin') && typeof flags === 'number') {
        throw Object.assign(new Error(`EEXIST: file already exists, open '${String(file)}'`), {
          code: 'EEXIST',
        });
      }
      return open(...args);
    });
    assert.throws(
      () => writer.write(promoted('m1', 'My bank PIN is 4242'), []),
      (error: Error) => {
        assert.match(
          error.message,
          /^no free note name for memory m1 in .*mnemo: the 10000 names made from its first words are taken; move or rename some of those notes/,
        );
        assert.ok(!/my-bank-pin|4242/i.test(error.message), error.message);
        return true;
      },
    );
  });

  it('refuses a folder that a link leads out of the vault, before creating anything', () => {
    const outside = path.join(dir, 'outside');
    fs.mkdirSync(outside);
    initVault(vault, 'mnemo');
    fs.symlinkSync(outside, path.join(vault, 'notes'));
    const linked = new VaultWriter({ vault, folder: 'notes/mnemo' });
    const refusal =
      /MNEMO_VAULT_FOLDER "notes\/mnemo" leads out of the vault .*"notes" is a link to .*outside.*set MNEMO_VAULT_FOLDER to a folder inside the vault/;
    assert.throws(() => linked.write(promoted('m1', 'Kitten'), []), refusal);
    assert.throws(() => initVault(vault, 'notes/mnemo'), refusal);
    assert.throws(() => initVault(vault, 'notes'), /MNEMO_VAULT_FOLDER "notes" leads out of/);
    // A link to a folder that does not exist (yet) is judged by where it points.
    fs.symlinkSync(path.join(outside, 'later'), path.join(vault, 'soon'));
    assert.throws(() => initVault(vault, 'soon/mnemo'), /"soon" is a link to .*later/);
    assert.deepEqual(fs.readdirSync(outside), [], 'nothing was made outside the vault');
    // A link that stays inside the vault is a folder of the vault like any other.
    fs.mkdirSync(path.join(vault, 'real'));
    fs.symlinkSync(path.join(vault, 'real'), path.join(vault, 'inner'));
    const inner = new VaultWriter({ vault, folder: 'inner/mnemo' });
    assert.equal(inner.write(promoted('m2', 'Puppy'), []).path, 'inner/mnemo/puppy.md');
    assert.ok(fs.existsSync(path.join(vault, 'real/mnemo/puppy.md')));
  });
});
