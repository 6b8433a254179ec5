// Faults are injected by replacing fs functions with t.mock.method: the module calls them through
// the `fs` module object.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import {
  createFile,
  makeDirs,
  overwriteFile,
  readIfExists,
  readRegularFile,
  replaceFile,
  syncDir,
  writeAll,
} from '../../src/platform/durable-file.js';

function tempDir(t: TestContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-durable-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function eio(syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EIO: i/o error, ${syscall}`), { code: 'EIO', syscall });
}

const mode = (file: string) => fs.statSync(file).mode & 0o777;

/** Records which folders are fsynced, by inode, in order. */
function recordFolderSyncs(t: TestContext): { synced: () => number[] } {
  const fsync = fs.fsyncSync;
  const folders: number[] = [];
  t.mock.method(fs, 'fsyncSync', (fd: number) => {
    const stat = fs.fstatSync(fd);
    if (stat.isDirectory()) folders.push(stat.ino);
    fsync(fd);
  });
  return { synced: () => folders };
}

const inode = (p: string) => fs.statSync(p).ino;

describe('replaceFile', () => {
  it('replaces a file whole through <file>.<pid>.<random>.tmp (the name the store cleans up), mode 0600, the folder synced after the rename', (t) => {
    const dir = tempDir(t);
    const file = path.join(dir, 'memories.jsonl');
    fs.writeFileSync(file, 'old\n', { mode: 0o644 });
    const order: string[] = [];
    const rename = fs.renameSync;
    t.mock.method(fs, 'renameSync', (from: fs.PathLike, to: fs.PathLike) => {
      order.push(`rename ${path.basename(String(from))}`);
      rename(from, to);
    });
    const fsync = fs.fsyncSync;
    t.mock.method(fs, 'fsyncSync', (fd: number) => {
      order.push(fs.fstatSync(fd).isDirectory() ? 'fsync folder' : 'fsync file');
      fsync(fd);
    });

    replaceFile(file, 'new\n');

    assert.equal(fs.readFileSync(file, 'utf8'), 'new\n');
    assert.equal(mode(file), 0o600);
    assert.equal(order.length, 3);
    assert.equal(order[0], 'fsync file');
    assert.match(
      order[1] ?? '',
      new RegExp(`^rename memories\\.jsonl\\.${process.pid}\\.[0-9a-f]{16}\\.tmp$`),
    );
    assert.equal(order[2], 'fsync folder');
    assert.deepEqual(fs.readdirSync(dir), ['memories.jsonl'], 'no temp file left');
  });

  it('writes chunks as they come, and makes a file that was not there', (t) => {
    const dir = tempDir(t);
    const file = path.join(dir, 'gateway.json');
    function* chunks() {
      for (let i = 0; i < 3; i++) yield `line ${i}\n`;
    }
    replaceFile(file, chunks());
    assert.equal(fs.readFileSync(file, 'utf8'), 'line 0\nline 1\nline 2\n');
    assert.equal(mode(file), 0o600);
  });

  for (const [fault, syscall] of [
    ['a failed write', 'writeSync'],
    ['a failed fsync', 'fsyncSync'],
    ['a failed rename', 'renameSync'],
  ] as const) {
    it(`${fault} leaves the old file as it was and no temp file`, (t) => {
      const dir = tempDir(t);
      const file = path.join(dir, 'note.md');
      fs.writeFileSync(file, 'the old text');
      t.mock.method(fs, syscall, () => {
        throw eio(syscall);
      });
      assert.throws(() => replaceFile(file, 'the new text'), /EIO/);
      t.mock.restoreAll();
      assert.equal(fs.readFileSync(file, 'utf8'), 'the old text');
      assert.deepEqual(fs.readdirSync(dir), ['note.md']);
    });
  }

  it('a failure while the chunks are made leaves no temp file either', (t) => {
    const dir = tempDir(t);
    const file = path.join(dir, 'relations.jsonl');
    fs.writeFileSync(file, 'kept\n');
    function* chunks(): Iterable<string> {
      yield 'half\n';
      throw new Error('a record that cannot be serialized');
    }
    assert.throws(() => replaceFile(file, chunks()), /cannot be serialized/);
    assert.equal(fs.readFileSync(file, 'utf8'), 'kept\n');
    assert.deepEqual(fs.readdirSync(dir), ['relations.jsonl']);
  });

  it('hidden: the temp file is a dot file beside the target', (t) => {
    const dir = tempDir(t);
    const file = path.join(dir, 'kitten.md');
    const temps: string[] = [];
    const rename = fs.renameSync;
    t.mock.method(fs, 'renameSync', (from: fs.PathLike, to: fs.PathLike) => {
      temps.push(String(from));
      rename(from, to);
    });
    replaceFile(file, '# kitten\n', { hidden: true });
    assert.equal(temps.length, 1);
    assert.equal(path.dirname(temps[0] ?? ''), dir);
    assert.match(
      path.basename(temps[0] ?? ''),
      new RegExp(`^\\.kitten\\.md\\.${process.pid}\\.[0-9a-f]{16}\\.tmp$`),
    );
    assert.equal(fs.readFileSync(file, 'utf8'), '# kitten\n');
  });
});

describe('replaceFile: a link planted where it writes', () => {
  it('the old predictable temp names are not followed: the victim a link there points to is left as it was', (t) => {
    const dir = tempDir(t);
    const victim = path.join(tempDir(t), 'authorized_keys');
    fs.writeFileSync(victim, 'ssh-ed25519 the owner\n');
    const file = path.join(dir, 'kitten.md');
    fs.writeFileSync(file, 'old');
    for (const name of [`kitten.md.${process.pid}.tmp`, `.kitten.md.${process.pid}.tmp`]) {
      fs.symlinkSync(victim, path.join(dir, name));
    }
    replaceFile(file, 'attacker text', { hidden: true });
    replaceFile(file, 'attacker text');
    assert.equal(fs.readFileSync(victim, 'utf8'), 'ssh-ed25519 the owner\n');
    assert.equal(fs.readFileSync(file, 'utf8'), 'attacker text');
  });

  it('a link at the very temp name it picks (its random part guessed) is refused, not written through, and left in place', (t) => {
    const dir = tempDir(t);
    const victim = path.join(tempDir(t), 'authorized_keys');
    fs.writeFileSync(victim, 'ssh-ed25519 the owner\n');
    const file = path.join(dir, 'kitten.md');
    fs.writeFileSync(file, 'old');
    const guessed = Buffer.from('0011223344556677', 'hex');
    t.mock.method(crypto, 'randomBytes', () => guessed);
    const planted = path.join(dir, `.kitten.md.${process.pid}.0011223344556677.tmp`);
    fs.symlinkSync(victim, planted);
    assert.throws(() => replaceFile(file, 'attacker text', { hidden: true }), { code: 'EEXIST' });
    assert.equal(fs.readFileSync(victim, 'utf8'), 'ssh-ed25519 the owner\n');
    assert.equal(fs.readFileSync(file, 'utf8'), 'old');
    assert.equal(fs.lstatSync(planted).isSymbolicLink(), true, 'not ours to remove');
    // A link to nowhere is refused too (O_EXCL): it would make the file where it points.
    const nowhere = path.join(tempDir(t), 'made-through-a-link');
    fs.rmSync(planted);
    fs.symlinkSync(nowhere, planted);
    assert.throws(() => replaceFile(file, 'attacker text', { hidden: true }), { code: 'EEXIST' });
    assert.equal(fs.existsSync(nowhere), false);
  });

  it('each call picks a new temp name', (t) => {
    const dir = tempDir(t);
    const file = path.join(dir, 'note.md');
    const temps = new Set<string>();
    const rename = fs.renameSync;
    t.mock.method(fs, 'renameSync', (from: fs.PathLike, to: fs.PathLike) => {
      temps.add(String(from));
      rename(from, to);
    });
    for (let i = 0; i < 20; i++) replaceFile(file, `text ${i}`);
    assert.equal(temps.size, 20);
  });
});

describe('readRegularFile', () => {
  it('reads a regular file; refuses a FIFO at once (ENOTREG, no hang), a folder, and a file past the cap (EFBIG)', {
    skip: process.platform === 'win32' && 'no mkfifo',
  }, (t) => {
    const dir = tempDir(t);
    const file = path.join(dir, 'tokens');
    fs.writeFileSync(file, 'abc');
    assert.equal(readRegularFile(file, 3), 'abc');
    assert.throws(() => readRegularFile(file, 2), { code: 'EFBIG' });
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    assert.throws(() => readRegularFile(fifo, 100), { code: 'ENOTREG' });
    assert.throws(() => readRegularFile(dir, 100), { code: 'ENOTREG' });
    assert.throws(() => readRegularFile(path.join(dir, 'none'), 100), { code: 'ENOENT' });
  });
});

describe('createFile', () => {
  it('makes a new file, mode 0600, synced with its folder', (t) => {
    const dir = tempDir(t);
    const file = path.join(dir, 'kitten.md');
    const syncs = recordFolderSyncs(t);
    createFile(file, 'A kitten\n');
    assert.equal(fs.readFileSync(file, 'utf8'), 'A kitten\n');
    assert.equal(mode(file), 0o600);
    assert.deepEqual(syncs.synced(), [inode(dir)]);
  });

  it('never writes over a file that is there (EEXIST)', (t) => {
    const dir = tempDir(t);
    const file = path.join(dir, 'kitten.md');
    fs.writeFileSync(file, "a person's note");
    assert.throws(() => createFile(file, 'mnemo'), { code: 'EEXIST' });
    assert.equal(fs.readFileSync(file, 'utf8'), "a person's note");
  });

  it('a file it could not write whole is removed again', (t) => {
    const dir = tempDir(t);
    const file = path.join(dir, 'kitten.md');
    t.mock.method(fs, 'fdatasyncSync', () => {
      throw eio('fdatasync');
    });
    assert.throws(() => createFile(file, 'A kitten\n'), /EIO/);
    assert.deepEqual(fs.readdirSync(dir), []);
  });
});

describe('overwriteFile', () => {
  it('refuses a link at its name (ELOOP), and the file the link points to is left as it was', (t) => {
    const dir = tempDir(t);
    const victim = path.join(tempDir(t), 'victim');
    fs.writeFileSync(victim, 'kept');
    const file = path.join(dir, 'transaction.json');
    fs.symlinkSync(victim, file);
    assert.throws(() => overwriteFile(file, '{}'), { code: 'ELOOP' });
    assert.equal(fs.readFileSync(victim, 'utf8'), 'kept');
  });

  it('writes in place over what was there, mode 0600, synced with its folder', (t) => {
    const dir = tempDir(t);
    const file = path.join(dir, 'transaction.json');
    fs.writeFileSync(file, '{"parts": ["an older and longer record"]}');
    const syncs = recordFolderSyncs(t);
    overwriteFile(file, '{"parts":[]}');
    assert.equal(fs.readFileSync(file, 'utf8'), '{"parts":[]}');
    assert.deepEqual(syncs.synced(), [inode(dir)]);
    fs.rmSync(file);
    overwriteFile(file, '{}');
    assert.equal(mode(file), 0o600);
  });
});

describe('makeDirs', () => {
  it('makes the missing folders, mode 0700, and syncs the parent of each', (t) => {
    const dir = tempDir(t);
    const deep = path.join(dir, 'a', 'b', 'c');
    const syncs = recordFolderSyncs(t);
    assert.equal(makeDirs(deep), path.join(dir, 'a'));
    for (const folder of ['a', 'a/b', 'a/b/c']) {
      assert.equal(mode(path.join(dir, folder)), 0o700, folder);
    }
    assert.deepEqual(
      [...syncs.synced()].sort(),
      [dir, path.join(dir, 'a'), path.join(dir, 'a', 'b')].map(inode).sort(),
    );
  });

  it('does nothing to a folder that is there', (t) => {
    const dir = tempDir(t);
    const syncs = recordFolderSyncs(t);
    assert.equal(makeDirs(dir), undefined);
    assert.deepEqual(syncs.synced(), []);
  });

  it('throws when a file is in the way', (t) => {
    const dir = tempDir(t);
    fs.writeFileSync(path.join(dir, 'file'), '');
    assert.throws(() => makeDirs(path.join(dir, 'file', 'sub')), { code: 'ENOTDIR' });
  });
});

describe('writeAll, syncDir, readIfExists', () => {
  it('writeAll goes on after short writes', (t) => {
    const dir = tempDir(t);
    const file = path.join(dir, 'f');
    const fd = fs.openSync(file, 'w');
    const write = fs.writeSync as (...args: unknown[]) => number;
    t.mock.method(fs, 'writeSync', (f: number, buf: Buffer, at: number, length: number) =>
      write(f, buf, at, Math.min(3, length)),
    );
    try {
      writeAll(fd, 'twelve bytes');
    } finally {
      fs.closeSync(fd);
    }
    assert.equal(fs.readFileSync(file, 'utf8'), 'twelve bytes');
  });

  it('writeAll at a position writes there', (t) => {
    const dir = tempDir(t);
    const file = path.join(dir, 'f');
    fs.writeFileSync(file, 'abcdef');
    const fd = fs.openSync(file, 'r+');
    try {
      writeAll(fd, 'XY', 2);
    } finally {
      fs.closeSync(fd);
    }
    assert.equal(fs.readFileSync(file, 'utf8'), 'abXYef');
  });

  it('syncDir of a folder that cannot be opened does not throw', (t) => {
    const dir = tempDir(t);
    assert.doesNotThrow(() => syncDir(path.join(dir, 'missing')));
  });

  it('readIfExists: the text, undefined for no file, any other failure thrown', (t) => {
    const dir = tempDir(t);
    fs.writeFileSync(path.join(dir, 'f'), 'text');
    assert.equal(readIfExists(path.join(dir, 'f')), 'text');
    assert.equal(readIfExists(path.join(dir, 'missing')), undefined);
    assert.throws(() => readIfExists(dir), { code: 'EISDIR' });
  });
});
