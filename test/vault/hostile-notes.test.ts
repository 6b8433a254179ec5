// A vault's notes come from other devices and other people: each test here is a break an
// attacker tried through a note (issue 21), and what must hold instead.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { loadConfig } from '../../src/config/index.js';
import { createServer } from '../../src/server.js';
import {
  markdownSource,
  readNote as readMarkdownNote,
} from '../../src/transfer/sources/markdown.js';
import {
  MAX_FRONT_MATTER_CHARS,
  MAX_NOTE_ALIASES,
  MAX_NOTE_DEPTH,
  parseNote,
  replaceNoteBody,
  updateOwnedProperties,
} from '../../src/vault/note.js';
import { MAX_NOTE_BYTES, readNoteFile } from '../../src/vault/note-file.js';
import { capturingLogger, eventually, openTestMemory, testDir } from '../support.js';
import { recordYamlInput } from './yaml-input.js';

/** A `---js` note whose front matter, run as JavaScript, writes `file`. */
function jsNote(file: string): string {
  return `---js\n{ title: (require("fs").writeFileSync(${JSON.stringify(file)}, "x"), "t") }\n---\nbody\n`;
}

/** The 612-byte alias bomb: nine levels of nine aliases (9^9 leaves once expanded). */
function aliasBomb(): string {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  const names = 'abcdefghi';
  for (let i = 1; i < names.length; i++) {
    const prev = `*${names[i - 1]}`;
    lines.push(`${names[i]}: &${names[i]} [${Array(9).fill(prev).join(',')}]`);
  }
  return lines.join('\n');
}

/** Resolves with `promise`, or rejects once `ms` passed: a hang fails the test, never stalls it. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe('a note is data: no front matter runs as code', () => {
  it('parseNote reads ---js as no front matter and runs nothing', (t) => {
    const pwned = path.join(testDir(t), 'pwned');
    const parsed = parseNote(jsNote(pwned));
    assert.equal(fs.existsSync(pwned), false, 'the note ran');
    assert.equal(parsed.valid, false);
    assert.deepEqual(parsed.properties, {});
    for (const lang of ['---javascript', '---coffee', '---json', '--- js']) {
      assert.equal(parseNote(`${lang}\n{"a": 1}\n---\nb`).valid, false, lang);
    }
  });

  it('a !!js tag is a string or an error, never a function', () => {
    const parsed = parseNote(
      '---\nf: !!js/function "function () { return 1 }"\nr: !!js/regexp /x/\n---\nb',
    );
    for (const value of Object.values(parsed.properties)) {
      assert.notEqual(typeof value, 'function');
      assert.ok(!(value instanceof RegExp));
    }
  });

  it('the watcher and the start scan index a ---js note without running it', async (t) => {
    const dir = testDir(t);
    const vault = path.join(dir, 'vault');
    fs.mkdirSync(vault, { recursive: true });
    const atStart = path.join(dir, 'pwned-by-scan');
    const whileRunning = path.join(dir, 'pwned-by-watcher');
    fs.writeFileSync(path.join(vault, 'scan.md'), jsNote(atStart));
    const m = await openTestMemory({}, dir, { watchVault: true });
    t.after(() => m.close());
    await m.opened.readiness.wait('vault');
    assert.ok(m.opened.notes.get('scan.md'), 'the scan read the note');
    fs.writeFileSync(path.join(vault, 'watched.md'), jsNote(whileRunning));
    await eventually(
      () => m.opened.notes.get('watched.md') !== undefined,
      'the watcher to read it',
    );
    assert.equal(fs.existsSync(atStart), false, 'the scan ran the note');
    assert.equal(fs.existsSync(whileRunning), false, 'the watcher ran the note');
  });

  it('mnemo import --from markdown (its dry run reads the same) runs nothing', async (t) => {
    const dir = testDir(t);
    const folder = path.join(dir, 'notes');
    fs.mkdirSync(folder);
    const pwned = path.join(dir, 'pwned-by-import');
    fs.writeFileSync(path.join(folder, 'evil.md'), jsNote(pwned));
    const entries = [];
    for await (const entry of markdownSource.entries(folder)) entries.push(entry);
    assert.equal(fs.existsSync(pwned), false, 'the import ran the note');
    assert.deepEqual(
      entries.map((e) => e.kind),
      ['refused'],
    );
  });

  it('mnemo import --from markdown refuses a note over 1 MB by name, and imports the rest', async (t) => {
    const folder = testDir(t);
    fs.writeFileSync(path.join(folder, 'dump.md'), 'x'.repeat(MAX_NOTE_BYTES + 1));
    fs.writeFileSync(path.join(folder, 'fine.md'), 'A fine note\n');
    const entries = [];
    for await (const entry of markdownSource.entries(folder)) entries.push(entry);
    assert.deepEqual(
      entries.map((e) => [e.kind, 'where' in e ? e.where : 'key' in e ? e.key : '']),
      [
        ['refused', 'dump.md'],
        ['memory', 'markdown:fine.md'],
      ],
    );
  });
});

describe('the note reader never follows a link, opens a FIFO or reads a dump', () => {
  it('refuses a link, a link out of the root through a folder, a FIFO and a file over 1 MB', (t) => {
    const dir = testDir(t);
    const vault = path.join(dir, 'vault');
    const outside = path.join(dir, 'outside');
    fs.mkdirSync(vault);
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'credentials.md'), 'SECRET');
    fs.writeFileSync(path.join(vault, 'inside.md'), 'inside');
    fs.symlinkSync(path.join(outside, 'credentials.md'), path.join(vault, 'leak.md'));
    fs.symlinkSync(path.join(vault, 'inside.md'), path.join(vault, 'alias.md'));
    fs.symlinkSync(outside, path.join(vault, 'elsewhere'));
    // A hard link is the file itself under a second name: where it really lives is unknown.
    fs.linkSync(path.join(outside, 'credentials.md'), path.join(vault, 'hard.md'));
    fs.writeFileSync(path.join(vault, 'big.md'), Buffer.alloc(MAX_NOTE_BYTES + 1, 'a'));
    fs.writeFileSync(path.join(vault, 'full.md'), Buffer.alloc(MAX_NOTE_BYTES, 'a'));
    execFileSync('mkfifo', [path.join(vault, 'fifo.md')]);
    const why = (relative: string) => {
      const file = readNoteFile(vault, relative);
      return file.ok ? 'ok' : file.why;
    };
    assert.equal(why('inside.md'), 'ok');
    assert.equal(why('full.md'), 'ok');
    assert.equal(why('leak.md'), 'link');
    assert.equal(why('alias.md'), 'link');
    assert.equal(why('elsewhere/credentials.md'), 'link');
    assert.equal(why('hard.md'), 'hard-link');
    assert.equal(why('../outside/credentials.md'), 'link');
    assert.equal(why(path.join(outside, 'credentials.md')), 'link');
    assert.equal(why('big.md'), 'too-large');
    assert.equal(why('fifo.md'), 'not-a-file');
    assert.equal(why('missing.md'), 'missing');
  });

  it('a folder swapped for a link between the check and the open is caught at the open', (t) => {
    if (!fs.existsSync('/proc/self/fd')) return t.skip('needs /proc');
    const dir = testDir(t);
    const vault = path.join(dir, 'vault');
    fs.mkdirSync(path.join(dir, 'outside'), { recursive: true });
    fs.mkdirSync(vault);
    fs.writeFileSync(path.join(dir, 'outside', 'x.md'), 'SECRET');
    fs.symlinkSync(path.join(dir, 'outside'), path.join(vault, 'mnemo'));
    // The check saw `mnemo` as the folder it was a moment before: inside the vault.
    const asBefore = (p: string) => p;
    const file = readNoteFile(vault, 'mnemo/x.md', asBefore);
    assert.deepEqual(file, { ok: false, why: 'link' });
  });

  it('a link planted while mnemo runs is never indexed, searched or completed', async (t) => {
    const dir = testDir(t);
    const vault = path.join(dir, 'vault');
    const outside = path.join(dir, 'home');
    fs.mkdirSync(vault, { recursive: true });
    fs.mkdirSync(path.join(outside, 'aws'), { recursive: true });
    fs.writeFileSync(path.join(outside, 'credentials'), 'aws_secret_access_key PLANTEDSECRET\n');
    fs.writeFileSync(path.join(outside, 'aws', 'keys.md'), 'PLANTEDSECRET in a folder\n');
    const m = await openTestMemory({}, dir, { watchVault: true });
    t.after(() => m.close());
    await m.opened.readiness.wait('vault');
    fs.symlinkSync(path.join(outside, 'credentials'), path.join(vault, 'leak.md'));
    fs.symlinkSync(path.join(outside, 'aws'), path.join(vault, 'linked'));
    fs.linkSync(path.join(outside, 'credentials'), path.join(vault, 'hard.md'));
    // A note written after the links: once it is indexed, the watcher has seen them too.
    fs.writeFileSync(path.join(vault, 'after.md'), 'written after the links\n');
    await eventually(() => m.opened.notes.get('after.md') !== undefined, 'the watcher');
    // What the watcher would do on any event of theirs, done here so the test does not depend
    // on which events the platform's watcher reports for a link.
    await m.opened.notes.refresh('leak.md');
    await m.opened.notes.refresh('linked/keys.md');
    await m.opened.notes.refresh('hard.md');
    assert.deepEqual([...m.opened.notes.paths()].sort(), ['after.md']);
    const unified = await m.memory.recall.searchUnified({ query: 'PLANTEDSECRET' });
    assert.deepEqual(unified.results, []);
    assert.deepEqual(m.memory.overview.notePaths('', 100), ['after.md']);
  });

  it("still watches a vault whose own path is a link (MNEMO_VAULT_DIR is the person's)", async (t) => {
    const dir = testDir(t);
    const real = path.join(dir, 'real-vault');
    fs.mkdirSync(real);
    fs.writeFileSync(path.join(real, 'a.md'), 'alpha\n');
    fs.symlinkSync(real, path.join(dir, 'linked'));
    const m = await openTestMemory({ MNEMO_VAULT_DIR: path.join(dir, 'linked') }, dir, {
      watchVault: true,
    });
    t.after(() => m.close());
    await m.opened.readiness.wait('vault');
    assert.ok(m.opened.notes.get('a.md'));
    fs.writeFileSync(path.join(real, 'b.md'), 'beta\n');
    await eventually(() => m.opened.notes.get('b.md') !== undefined, 'the watcher to read it');
  });

  it('FIFOs named *.md neither hang the index nor the reads behind it', async (t) => {
    const dir = testDir(t);
    const vault = path.join(dir, 'vault');
    fs.mkdirSync(vault, { recursive: true });
    execFileSync('mkfifo', [path.join(vault, 'at-start.md')]);
    const m = await openTestMemory({}, dir, { watchVault: true });
    t.after(() => m.close());
    await within(m.opened.readiness.wait('vault'), 5000, 'the scan');
    // More FIFOs than libuv has threads: a blocking open of each held every thread for good.
    for (let i = 0; i < 6; i++) execFileSync('mkfifo', [path.join(vault, `fifo-${i}.md`)]);
    await within(
      Promise.all(Array.from({ length: 6 }, (_, i) => m.opened.notes.refresh(`fifo-${i}.md`))),
      5000,
      'reading the FIFOs',
    );
    await within(fs.promises.readdir(vault), 5000, 'a file system call after them');
    assert.throws(() => m.memory.overview.readNote('fifo-0.md'), /no note/);
    assert.equal(m.opened.notes.size, 0);
    await within(m.close(), 5000, 'close');
  });

  it('a note over 1 MB is skipped with one log line that names no path', async (t) => {
    const dir = testDir(t);
    const vault = path.join(dir, 'vault');
    fs.mkdirSync(vault, { recursive: true });
    fs.writeFileSync(path.join(vault, 'huge-secret-plans.md'), 'x'.repeat(MAX_NOTE_BYTES + 10));
    const log = capturingLogger();
    const m = await openTestMemory({}, dir, { watchVault: true, logger: log.logger });
    t.after(() => m.close());
    await m.opened.readiness.wait('vault');
    assert.equal(m.opened.notes.size, 0);
    const skipped = log.lines.filter((l) => l.msg === 'note skipped');
    assert.equal(skipped.length, 1);
    assert.equal(skipped[0]?.why, 'too-large');
    assert.match(String(skipped[0]?.note), /^[0-9a-f]{12}$/);
    for (const line of log.lines) assert.doesNotMatch(JSON.stringify(line), /huge|secret|plans/);
  });
});

// A parse's cost grows with the text the YAML parser is handed, and every regex in src is linear
// (test/security/regex-linear.test.ts): what is checked here is that no hostile note hands it
// more than MAX_FRONT_MATTER_CHARS, nor makes it compare keys pairwise or expand aliases without
// bound, and that each still answers.
describe('linear time on a note', () => {
  const MB = 1024 * 1024;
  const worst = {
    spaces: ' '.repeat(MB),
    brackets: '['.repeat(MB),
    hashes: '#'.repeat(MB),
    dashes: '-'.repeat(MB),
    related: `t\n## Related\n- [[a]]${' '.repeat(49_000)}x`,
    relatedMB: `t\n## Related\n- [[a]]${' '.repeat(MB)}x`,
    links: `t\n## Related\n${'- [['.repeat(MB / 4)}`,
    newlines: `---\n${'\n'.repeat(MB)}`,
    unclosed: `---\n${'a: b\n'.repeat(MB / 5)}`,
  };
  for (const [name, text] of Object.entries(worst)) {
    it(`${name}: parseNote, replaceNoteBody and updateOwnedProperties hand the YAML parser no more than the cap`, (t) => {
      const yaml = recordYamlInput(t);
      for (const note of [text, `---\ntitle: t\n---\n${text}`]) {
        assert.equal(typeof parseNote(note).valid, 'boolean');
        replaceNoteBody(note, 't', 'u');
        updateOwnedProperties(note, { use_count: 2 });
      }
      assert.ok(yaml.most <= MAX_FRONT_MATTER_CHARS, `${name}: ${yaml.most} characters of YAML`);
    });
  }

  it('the Markdown import reads each worst note, handing the YAML parser no more than the cap', (t) => {
    const notes = {
      ...worst,
      heading: `# ${' '.repeat(MB)}x`,
      headingHashes: `# a${' #'.repeat(MB / 2)}x`,
      fences: '```\n'.repeat(MB / 4),
      unclosedFence: `\`\`\`\n${'~~~x\n'.repeat(MB / 5)}`,
      openLinks: `${'[['.repeat(MB / 2)}x`,
      slashes: `#a${'/'.repeat(MB)}x`,
    };
    const yaml = recordYamlInput(t);
    for (const text of Object.values(notes)) readMarkdownNote('n.md', text, 0);
    assert.ok(yaml.most <= MAX_FRONT_MATTER_CHARS, `${yaml.most} characters of YAML`);
  });

  it('front matter: the worst shapes up to the cap are parsed without comparing keys pairwise; past it, never parsed', (t) => {
    const fill = (unit: string) =>
      unit.repeat(Math.floor((MAX_FRONT_MATTER_CHARS - 8) / unit.length));
    const shapes = {
      keys: Array.from({ length: MAX_FRONT_MATTER_CHARS / 10 }, (_, i) => `k${i}: v`).join('\n'),
      duplicateKeys: fill('a: b\n'),
      nestedFlow: `${fill('[').slice(0, MAX_FRONT_MATTER_CHARS / 2 - 4)}${fill(']').slice(0, MAX_FRONT_MATTER_CHARS / 2 - 4)}`,
      longFlow: `a: [${fill('x,')}]`,
      nestedBlock: fill('- '),
      braces: fill('{'),
    };
    const yaml = recordYamlInput(t);
    for (const [name, yamlText] of Object.entries(shapes)) {
      assert.ok(yamlText.length <= MAX_FRONT_MATTER_CHARS, name);
      const parses = yaml.parses;
      parseNote(`---\n${yamlText}\n---\nbody`);
      assert.equal(yaml.parses, parses + 1, `${name} is parsed`);
      const over = `---\n${yamlText}${' '.repeat(MAX_FRONT_MATTER_CHARS)}\nx: 1\n---\nbody`;
      assert.equal(parseNote(over).valid, false);
      assert.equal(yaml.parses, parses + 1, `${name} past the cap is refused before the parser`);
    }
    // The check of unique keys compares every key with every other: 1,600 keys took seconds.
    assert.ok(yaml.composers.length > 0);
    for (const options of yaml.composers) assert.equal(options.uniqueKeys, false);
  });

  it('nesting past MAX_NOTE_DEPTH never reaches the YAML composer (it ran out of stack)', () => {
    const deep = (n: number) => ({
      flow: `a: ${'['.repeat(n)}${']'.repeat(n)}`,
      flowMaps: `a: ${'{a: '.repeat(n)}1${'}'.repeat(n)}`,
      compactSeq: `a:\n${'- '.repeat(n)}x`,
      explicitKeys: `${'? '.repeat(n)}x`,
    });
    // Several times over: the second note that overflowed the stack aborted the process.
    for (let round = 0; round < 3; round++) {
      for (const [name, yaml] of Object.entries(deep(8000))) {
        const note = `---\n${yaml.slice(0, MAX_FRONT_MATTER_CHARS - 20)}\nmemory_id: m\n---\nbody`;
        assert.equal(parseNote(note).valid, false, name);
        assert.equal(updateOwnedProperties(note, { use_count: 1 }), undefined, name);
        assert.equal(replaceNoteBody(note, 'body', 'x'), undefined, name);
      }
    }
    for (const [name, yaml] of Object.entries(deep(MAX_NOTE_DEPTH - 1))) {
      if (name === 'explicitKeys') continue;
      assert.equal(parseNote(`---\n${yaml}\n---\nbody`).valid, true, name);
    }
  });

  it('the alias bomb is refused at once, as invalid properties: aliases are expanded 50 at most', (t) => {
    const note = `---\n${aliasBomb()}\nmemory_id: m1\n---\nbody\n`;
    assert.ok(Buffer.byteLength(note) < 700);
    const yaml = recordYamlInput(t);
    assert.equal(parseNote(note).valid, false);
    updateOwnedProperties(note, { use_count: 2 });
    assert.ok(yaml.aliasCounts.length > 0);
    // 9^9 leaves once expanded: only a bound on the aliases followed stops it.
    for (const count of yaml.aliasCounts) assert.equal(count, MAX_NOTE_ALIASES);
  });

  it('touch_memory and update_memory of a promoted memory stay bounded on hostile text', async (t) => {
    const m = await openTestMemory({}, testDir(t), { watchVault: true });
    t.after(() => m.close());
    await m.opened.readiness.wait('vault');
    const content = `t\n## Related\n- [[a]]${' '.repeat(49_000)}x`;
    const { memory_id } = await m.memory.writing.save({ content });
    const { promoted } = await m.memory.promotion.promote({ memory_id, force: true });
    const file = path.join(m.vault, promoted[0]?.path ?? '');
    await eventually(() => m.opened.notes.notesOf(memory_id).length > 0, 'the note indexed');
    const yaml = recordYamlInput(t);
    await m.memory.writing.touch({ memory_id });

    // A person (or a synced device) puts an alias bomb in the note's properties.
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.replace('---\n', `---\n${aliasBomb()}\n`));
    await m.memory.editing.update({ memory_id, content: 'new text' });
    assert.ok(yaml.parses > 0, 'the note was read');
    assert.ok(yaml.most <= MAX_FRONT_MATTER_CHARS, `${yaml.most} characters of YAML`);
    for (const count of yaml.aliasCounts) assert.equal(count, MAX_NOTE_ALIASES);
    assert.match(fs.readFileSync(file, 'utf8'), /&a \[/, 'the note is left as the person made it');
  });
});

describe('namespaces in the vault', () => {
  it('each namespace has its own anchor; bob never sees the root one', async (t) => {
    const dir = testDir(t);
    const vault = path.join(dir, 'vault');
    fs.mkdirSync(path.join(vault, 'mnemo', 'bob'), { recursive: true });
    fs.writeFileSync(path.join(vault, 'anchor.md'), 'ROOT ANCHOR of the default namespace\n');
    const m = await openTestMemory({}, dir);
    t.after(() => m.close());
    const bob = m.opened.memoryFor('bob');
    assert.equal(bob.overview.anchor(undefined), undefined);
    assert.equal(bob.overview.anchor(path.join(vault, 'anchor.md')), undefined);
    fs.writeFileSync(path.join(vault, 'mnemo', 'bob', 'anchor.md'), "Bob's own anchor\n");
    assert.deepEqual(bob.overview.anchor(undefined), {
      source: 'mnemo/bob/anchor.md',
      text: "Bob's own anchor\n",
    });
    assert.deepEqual(m.memory.overview.anchor(undefined), {
      source: 'anchor.md',
      text: 'ROOT ANCHOR of the default namespace\n',
    });

    // What bob's token reads over MCP: mnemo://anchor, mnemo://context and the recall prompt,
    // with MNEMO_ANCHOR_FILE set to the root anchor (it is the default namespace's only).
    const server = createServer({
      memory: bob,
      logger: m.logger,
      anchorFile: path.join(vault, 'anchor.md'),
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'bob', version: '0' });
    await client.connect(clientSide);
    t.after(() => client.close());
    const read = async (uri: string) =>
      JSON.stringify((await client.readResource({ uri })).contents);
    assert.match(await read('mnemo://anchor'), /Bob's own anchor/);
    const context = await read('mnemo://context');
    const prompt = JSON.stringify(await client.getPrompt({ name: 'recall', arguments: {} }));
    for (const seen of [await read('mnemo://anchor'), context, prompt]) {
      assert.doesNotMatch(seen, /ROOT ANCHOR/);
    }
    assert.match(context, /Bob's own anchor/);
  });

  it("a folder link inside the vault never leads a namespace's mnemo://vault read into another's folder", async (t) => {
    const dir = testDir(t);
    const vault = path.join(dir, 'vault');
    for (const folder of ['alice', 'bob']) {
      fs.mkdirSync(path.join(vault, 'mnemo', folder), { recursive: true });
    }
    fs.mkdirSync(path.join(vault, '.obsidian'));
    fs.writeFileSync(path.join(vault, 'mnemo', 'alice', 'secret.md'), 'ALICE SECRET\n');
    fs.writeFileSync(path.join(vault, '.obsidian', 'plugin.md'), 'PLUGIN SETTINGS\n');
    fs.writeFileSync(path.join(vault, 'mnemo', 'bob', 'own.md'), "Bob's note\n");
    // Links a person (or bob's synced device: Syncthing carries links) made inside the vault.
    fs.symlinkSync('../..', path.join(vault, 'mnemo', 'bob', 'up'));
    fs.symlinkSync('../alice', path.join(vault, 'mnemo', 'bob', 'a'));
    fs.symlinkSync('mnemo/alice', path.join(vault, 'work'));
    fs.symlinkSync('.', path.join(vault, 'mnemo', 'bob', 'here'));
    const m = await openTestMemory({}, dir);
    t.after(() => m.close());
    const bob = m.opened.memoryFor('bob');
    for (const through of [
      'mnemo/bob/up/mnemo/alice/secret.md',
      'mnemo/bob/a/secret.md',
      'mnemo/bob/up/.obsidian/plugin.md',
    ]) {
      assert.throws(() => bob.overview.readNote(through), /no note|hidden|link/, through);
    }
    assert.throws(() => m.memory.overview.readNote('work/secret.md'), /no note|link/);
    // A link that stays in the namespace's own folder is read as the note it leads to.
    assert.equal(bob.overview.readNote('mnemo/bob/here/own.md'), "Bob's note\n");
    assert.equal(
      m.opened.memoryFor('alice').overview.readNote('mnemo/alice/secret.md'),
      'ALICE SECRET\n',
    );
  });

  it("a namespace's folder that is a link to another's: its promotion writes nothing there", async (t) => {
    const dir = testDir(t);
    const vault = path.join(dir, 'vault');
    fs.mkdirSync(path.join(vault, 'mnemo', 'alice'), { recursive: true });
    fs.symlinkSync('alice', path.join(vault, 'mnemo', 'bob'));
    const m = await openTestMemory({}, dir);
    t.after(() => m.close());
    const bob = m.opened.memoryFor('bob');
    fs.writeFileSync(path.join(vault, 'mnemo', 'alice', 'anchor.md'), "ALICE'S ANCHOR\n");
    assert.equal(bob.overview.anchor(undefined), undefined);
    fs.rmSync(path.join(vault, 'mnemo', 'alice', 'anchor.md'));
    const { memory_id } = await bob.writing.save({ content: 'Bob keeps the BLUEPRINT here' });
    await assert.rejects(bob.promotion.promote({ memory_id, force: true }), /link/);
    assert.deepEqual(fs.readdirSync(path.join(vault, 'mnemo', 'alice')), []);
    const record = (await bob.recall.open({ memory_ids: [memory_id] })).memories[0];
    assert.equal(record?.status, 'active');
  });

  it('MNEMO_VAULT_FOLDER=mnemo/ is mnemo: the default namespace does not read bob’s notes', async (t) => {
    const m = await openTestMemory({ MNEMO_VAULT_FOLDER: 'mnemo/' }, testDir(t), {
      watchVault: true,
    });
    t.after(() => m.close());
    assert.equal(m.config.vaultFolder, 'mnemo');
    await m.opened.readiness.wait('vault');
    const bob = m.opened.memoryFor('bob');
    const { memory_id } = await bob.writing.save({ content: 'Bob keeps the BLUEPRINT here' });
    const { promoted } = await bob.promotion.promote({ memory_id, force: true });
    const notePath = promoted[0]?.path ?? '';
    assert.match(notePath, /^mnemo\/bob\/[^/]+\.md$/);
    await eventually(() => m.opened.notes.get(notePath) !== undefined, 'the note indexed');
    assert.deepEqual((await m.memory.recall.searchUnified({ query: 'blueprint' })).results, []);
    assert.deepEqual(m.memory.overview.notePaths('mnemo/', 100), []);
    assert.throws(() => m.memory.overview.readNote(notePath), /no note/);
    assert.equal((await bob.recall.searchUnified({ query: 'blueprint' })).results.length, 1);
  });

  it('MNEMO_VAULT_FOLDER is normalised, or refused by name', () => {
    const folder = (value: string) =>
      loadConfig({ env: { MNEMO_VAULT_FOLDER: value, MNEMO_DATA_DIR: '/tmp/x' }, home: '/tmp/x' })
        .vaultFolder;
    assert.equal(folder('mnemo/'), 'mnemo');
    assert.equal(folder('notes//mnemo/'), 'notes/mnemo');
    for (const bad of [
      './mnemo',
      'mnemo/../x',
      '/abs',
      'mnemo\\x',
      'a\u0000b',
      'C:mnemo',
      '.hidden',
      '/',
    ]) {
      assert.throws(() => folder(bad), /MNEMO_VAULT_FOLDER/, JSON.stringify(bad));
    }
  });
});
