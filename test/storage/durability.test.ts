// Faults under a write: a torn tail in any log, a failed fdatasync or rename, a kill -9 between
// the appends of one transaction. Faults are injected by replacing fs functions (the storage code
// calls them through the `fs` module object) or by a child process that kills itself.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { JOURNAL_FILE } from '../../src/storage/jsonl/journal.js';
import { JsonlFile } from '../../src/storage/jsonl/jsonl-file.js';
import { FILES, JsonlStore, type StoreOptions } from '../../src/storage/jsonl/store.js';
import type { BadLine } from '../../src/storage/jsonl-lines.js';
import { type MemoryRecord, newMemoryRecord } from '../../src/storage/records.js';
import { nodeScript } from '../node-script.js';
import { recordingLogger, testDir } from '../support.js';

const T0 = 1_767_225_600;
const CHILD = fileURLToPath(new URL('./transact-crash-child.ts', import.meta.url));

async function openStore(
  t: TestContext,
  dataDir: string,
  options: Partial<StoreOptions> = {},
): Promise<JsonlStore> {
  const store = await JsonlStore.open({
    dataDir,
    logger: pino({ level: 'silent' }),
    clock: () => T0,
    ...options,
  });
  t.after(() => store.close());
  return store;
}

const memory = (id: string, content: string, fields: Partial<MemoryRecord> = {}) =>
  newMemoryRecord(id, content, T0, fields);
const jsonl = (...values: unknown[]) => values.map((v) => `${JSON.stringify(v)}\n`).join('');
const linesOf = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
const parsedLines = (file: string) => linesOf(file).map((l) => JSON.parse(l) as unknown);

/** An I/O error as the kernel reports it. */
function eio(syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EIO: i/o error, ${syscall}`), { code: 'EIO', syscall });
}

/** Whether `fd` is open on `file` (same inode). */
function isOn(fd: number, file: string): boolean {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  return stat !== undefined && fs.fstatSync(fd).ino === stat.ino;
}

describe('a torn last line in any log', () => {
  it('forgotten.jsonl: kept in quarantine and cut off, so the next delete stays restorable', async (t) => {
    const dir = testDir(t);
    const forgotten = path.join(dir, FILES.forgotten);
    const earlier = memory('x', 'forgotten earlier');
    // A delete whose write was cut short (a full disk, `ulimit -f`).
    const torn = JSON.stringify({ ...earlier, forgotten_at: T0 }).slice(0, 50);
    fs.writeFileSync(forgotten, torn);
    const log = recordingLogger();
    const store = await openStore(t, dir, { logger: log.logger });
    const a = memory('a', 'the memory deleted next');
    await store.transact(() => ({ result: null, memories: [a] }));

    await store.transact(() => ({ result: null, forgotten: [a], deletes: ['a'] }));
    assert.deepEqual(await store.findForgotten('a'), a, 'restorable');
    assert.deepEqual(parsedLines(forgotten), [{ ...a, forgotten_at: T0 }]);
    const kept = parsedLines(path.join(dir, FILES.quarantine)) as Record<string, unknown>[];
    assert.equal(kept.length, 1);
    assert.equal(kept[0]?.file, FILES.forgotten);
    assert.equal(kept[0]?.line, torn);
    assert.equal(kept[0]?.offset, 0);
    assert.match(String(kept[0]?.reason), /torn last line/);
    const warnings = log.warnings();
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]?.msg ?? '', /forgotten\.jsonl.*quarantine\.jsonl/);
  });

  it('quarantine.jsonl: the fragment stays on a line of its own, the next entry is whole', async (t) => {
    const dir = testDir(t);
    const quarantine = path.join(dir, FILES.quarantine);
    const fragment = '{"file":"memories.jsonl","offset":12,"reas';
    fs.writeFileSync(quarantine, fragment);
    fs.writeFileSync(
      path.join(dir, FILES.memories),
      `${jsonl(memory('a', 'alpha'))}{"id":"b","content":\n`,
    );
    const store = await openStore(t, dir);
    assert.deepEqual([...store.memories.keys()], ['a']);
    const lines = linesOf(quarantine);
    assert.deepEqual(lines[0], fragment, 'not dropped');
    assert.equal(lines.length, 2);
    const entry = JSON.parse(lines[1] as string) as Record<string, unknown>;
    assert.equal(entry.line, '{"id":"b","content":');
    assert.equal(entry.file, FILES.memories);
  });

  it('a file written without the lock (vectors.jsonl): the fragment is ended, not glued to', (t) => {
    const dir = testDir(t);
    const file = path.join(dir, 'vectors.jsonl');
    fs.writeFileSync(file, `${jsonl({ id: 'a', v: 'AQ==' })}{"id":"b","v":"AQ`);
    const sidecar = new JsonlFile(file);
    t.after(() => sidecar.close());
    sidecar.append([{ id: 'c', v: 'Ag==' }], { sync: false });
    assert.deepEqual(linesOf(file), [
      '{"id":"a","v":"AQ=="}',
      '{"id":"b","v":"AQ',
      '{"id":"c","v":"Ag=="}',
    ]);
    const read = new JsonlFile(file).readNew();
    assert.deepEqual(read.values, [
      { id: 'a', v: 'AQ==' },
      { id: 'c', v: 'Ag==' },
    ]);
    assert.deepEqual(
      read.corrupt.map((c) => c.text),
      ['{"id":"b","v":"AQ'],
      'reported to its reader',
    );
  });

  it('a file with a keeper: the fragment is handed over before it is cut off', (t) => {
    const dir = testDir(t);
    const file = path.join(dir, 'log.jsonl');
    fs.writeFileSync(file, `${jsonl({ id: 'a' })}{"id":"b`);
    const kept: BadLine[] = [];
    const log = new JsonlFile(file, { keepTorn: (line) => void kept.push(line) });
    t.after(() => log.close());
    log.append([{ id: 'c' }]);
    assert.deepEqual(kept, [{ offset: 11, text: '{"id":"b' }]);
    assert.equal(fs.readFileSync(file, 'utf8'), jsonl({ id: 'a' }, { id: 'c' }));
  });

  it('reports a line of forgotten.jsonl it cannot read, and finds a record glued after a fragment', async (t) => {
    const dir = testDir(t);
    const a = memory('a', 'deleted after a torn write');
    const c = memory('c', 'fine');
    // What an older mnemo left: an append glued onto the fragment of a write cut short.
    fs.writeFileSync(
      path.join(dir, FILES.forgotten),
      `{"id":"x","content":"cut sh${JSON.stringify({ ...a, forgotten_at: T0 })}\n` +
        `{"id":"y","cont\n${jsonl({ ...c, forgotten_at: T0 })}`,
    );
    const log = recordingLogger();
    const store = await openStore(t, dir, { logger: log.logger });
    assert.deepEqual(await store.findForgotten('a'), a);
    assert.deepEqual(await store.findForgotten('c'), c);
    assert.equal(await store.findForgotten('y'), undefined);
    const warnings = log.warnings().slice(-2);
    assert.match(warnings[0]?.msg ?? '', /forgotten\.jsonl .*byte 0.*\(a\) can still be restored/);
    assert.match(warnings[1]?.msg ?? '', /forgotten\.jsonl .*cannot be restored/);
  });
});

describe('a write that fails is not on disk, and one that is on disk does not fail', () => {
  it('an fdatasync error: the lines are cut off again, the error says nothing was written', async (t) => {
    const dir = testDir(t);
    const file = path.join(dir, FILES.memories);
    const store = await openStore(t, dir);
    await store.transact(() => ({ result: null, memories: [memory('a', 'alpha')] }));
    const before = fs.readFileSync(file);
    const fdatasync = fs.fdatasyncSync;
    let failures = 0;
    t.mock.method(fs, 'fdatasyncSync', (fd: number) => {
      if (failures === 0 && isOn(fd, file)) {
        failures++;
        throw eio('fdatasync');
      }
      fdatasync(fd);
    });

    await assert.rejects(
      store.transact(() => ({ result: null, memories: [memory('b', 'beta')] })),
      (error: Error) => {
        assert.match(error.message, /could not write to .*memories\.jsonl \(EIO\)/);
        assert.match(error.message, /nothing was written/);
        return true;
      },
    );
    assert.equal(failures, 1);
    assert.ok(fs.readFileSync(file).equals(before), 'the file is as it was');
    assert.equal(store.memories.has('b'), false);

    // So a retry writes it once.
    await store.transact(() => ({ result: null, memories: [memory('b', 'beta')] }));
    assert.deepEqual(
      linesOf(file).map((l) => (JSON.parse(l) as { id: string }).id),
      ['a', 'b'],
    );
  });

  it('when the lines cannot be cut off either, the error says the change may be there', async (t) => {
    const dir = testDir(t);
    const file = path.join(dir, FILES.memories);
    const store = await openStore(t, dir);
    await store.transact(() => ({ result: null, memories: [memory('a', 'alpha')] }));
    const fdatasync = fs.fdatasyncSync;
    let failing = true;
    t.mock.method(fs, 'fdatasyncSync', (fd: number) => {
      if (failing && isOn(fd, file)) throw eio('fdatasync');
      fdatasync(fd);
    });
    const ftruncate = fs.ftruncateSync;
    t.mock.method(fs, 'ftruncateSync', (fd: number, len?: number) => {
      if (failing && isOn(fd, file)) throw eio('ftruncate');
      ftruncate(fd, len);
    });

    await assert.rejects(
      store.transact(() => ({ result: null, memories: [memory('b', 'beta')] })),
      /memories\.jsonl failed \(EIO\).*could not be cut off \(EIO\): the change may be on disk/,
    );
    failing = false;
    // It is: the next write reads it from the file, once.
    await store.transact(() => ({ result: null, memories: [memory('c', 'gamma')] }));
    assert.deepEqual([...store.memories.keys()], ['a', 'b', 'c']);
    assert.equal(linesOf(file).length, 3);
  });

  it('a compaction that fails after the append is logged; the write answers done', async (t) => {
    const dir = testDir(t);
    const file = path.join(dir, FILES.memories);
    const log = recordingLogger();
    const store = await openStore(t, dir, { logger: log.logger, compactMinLines: 4 });
    for (let i = 0; i < 3; i++) {
      await store.transact(() => ({ result: null, memories: [memory('a', `alpha ${i}`)] }));
    }
    const renames = t.mock.method(fs, 'renameSync', () => {
      throw eio('rename');
    });

    // The fourth line makes stale lines outnumber live ones: this write compacts.
    const result = await store.transact(() => ({
      result: 'saved',
      memories: [memory('a', 'alpha 3')],
    }));
    assert.equal(result, 'saved');
    assert.equal(renames.mock.callCount(), 1, 'compaction was tried');
    assert.equal(store.memories.get('a')?.content, 'alpha 3');
    assert.equal(linesOf(file).length, 4, 'appended, not compacted');
    assert.equal(JSON.parse(linesOf(file)[3] as string).content, 'alpha 3');
    assert.deepEqual(
      fs.readdirSync(dir).filter((n) => n.endsWith('.tmp')),
      [],
      'no temp file left',
    );
    const warning = log.warnings().at(-1);
    assert.match(warning?.msg ?? '', /could not compact memories\.jsonl/);

    renames.mock.restore();
    await store.transact(() => ({ result: null, memories: [memory('b', 'beta')] }));
    assert.equal(linesOf(file).length, 2, 'compacted at the next write');
  });

  it('a transaction over two files: when the second append fails, the first is taken back', async (t) => {
    const dir = testDir(t);
    const memories = path.join(dir, FILES.memories);
    const relations = path.join(dir, FILES.relations);
    const store = await openStore(t, dir);
    await store.transact(() => ({
      result: null,
      memories: [memory('a', 'alpha'), memory('b', 'beta')],
      relations: [relation('r0', 'a', 'b')],
    }));
    const before = [fs.readFileSync(memories), fs.readFileSync(relations)];
    const fdatasync = fs.fdatasyncSync;
    let failures = 0;
    t.mock.method(fs, 'fdatasyncSync', (fd: number) => {
      if (failures === 0 && isOn(fd, relations)) {
        failures++;
        throw eio('fdatasync');
      }
      fdatasync(fd);
    });

    await assert.rejects(
      store.transact(() => ({
        result: null,
        memories: [memory('m', 'merged'), memory('a', 'alpha', { status: 'archived' })],
        relations: [relation('r1', 'm', 'a')],
      })),
      /relations\.jsonl \(EIO\): nothing was written/,
    );
    assert.equal(failures, 1);
    assert.ok(fs.readFileSync(memories).equals(before[0] as Buffer), 'memories as they were');
    assert.ok(fs.readFileSync(relations).equals(before[1] as Buffer), 'relations as they were');
    assert.equal(fs.existsSync(path.join(dir, JOURNAL_FILE)), false);
    assert.equal(store.memories.has('m'), false);
    assert.equal(store.memories.get('a')?.status, 'active');

    await store.transact(() => ({ result: null, memories: [memory('c', 'gamma')] }));
    assert.deepEqual([...store.memories.keys()], ['a', 'b', 'c'], 'read again, nothing extra');
  });

  it('a transaction over two files that cannot be taken back is finished by the next write', async (t) => {
    const dir = testDir(t);
    const memories = path.join(dir, FILES.memories);
    const relations = path.join(dir, FILES.relations);
    const store = await openStore(t, dir, { logger: recordingLogger().logger });
    await store.transact(() => ({ result: null, memories: [memory('a', 'alpha')] }));
    const fdatasync = fs.fdatasyncSync;
    const ftruncate = fs.ftruncateSync;
    let failing = true;
    t.mock.method(fs, 'fdatasyncSync', (fd: number) => {
      if (failing && isOn(fd, relations)) throw eio('fdatasync');
      fdatasync(fd);
    });
    t.mock.method(fs, 'ftruncateSync', (fd: number, len?: number) => {
      if (failing) throw eio('ftruncate');
      ftruncate(fd, len);
    });

    await assert.rejects(
      store.transact(() => ({
        result: null,
        memories: [memory('m', 'merged'), memory('a', 'alpha', { status: 'archived' })],
        relations: [relation('r1', 'm', 'a')],
      })),
      (error: Error) => {
        assert.match(error.message, /relations\.jsonl failed \(EIO\) and could not be taken back/);
        assert.match(error.message, /completed by the next write or start\. Do not make it again/);
        return true;
      },
    );
    assert.equal(fs.existsSync(path.join(dir, JOURNAL_FILE)), true);
    failing = false;

    await store.transact(() => ({ result: null, memories: [memory('c', 'gamma')] }));
    assert.deepEqual([...store.memories.keys()].sort(), ['a', 'c', 'm']);
    assert.equal(store.memories.get('a')?.status, 'archived');
    assert.deepEqual([...store.relations.keys()], ['r1']);
    assert.equal(linesOf(memories).length, 4, 'each line once');
    assert.equal(linesOf(relations).length, 1);
    assert.equal(fs.existsSync(path.join(dir, JOURNAL_FILE)), false);
  });
});

function relation(id: string, from: string, to: string) {
  return {
    id,
    from_memory_id: from,
    to_memory_id: to,
    relation_type: 'consolidated_from' as const,
    strength: 1,
    created_at: T0,
    metadata: {},
  };
}

/** Runs the crash child; resolves with how it ended. */
function crashChild(
  dir: string,
  point: string,
): Promise<{ signal: string | null; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeScript(CHILD), dir, point], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal, stderr }));
  });
}

describe('a transaction over two files killed with SIGKILL at a chosen instant', () => {
  const cases: { point: string; kept: boolean }[] = [
    { point: 'journal-torn', kept: false },
    { point: 'memories-torn', kept: true },
    { point: 'relations-before', kept: true },
    { point: 'relations-torn', kept: true },
    { point: 'journal-end', kept: true },
  ];
  for (const { point, kept } of cases) {
    it(`${point}: the next start has ${kept ? 'all' : 'none'} of it`, async (t) => {
      const dir = testDir(t);
      const crash = await crashChild(dir, point);
      assert.equal(crash.signal, 'SIGKILL', `killed at ${point}: ${crash.stderr}`);
      const recordLeft = fs.existsSync(path.join(dir, JOURNAL_FILE));

      const log = recordingLogger();
      const store = await openStore(t, dir, { logger: log.logger });
      const memories = path.join(dir, FILES.memories);
      const relations = path.join(dir, FILES.relations);
      if (kept) {
        assert.equal(
          store.memories.get('merged')?.content,
          'Staging Postgres listens on port 5433.',
        );
        assert.equal(store.memories.get('a')?.status, 'archived');
        assert.equal(store.memories.get('b')?.status, 'archived');
        assert.deepEqual(
          store
            .relationsOf('merged')
            .map((r) => [r.relation_type, r.to_memory_id])
            .sort(),
          [
            ['consolidated_from', 'a'],
            ['consolidated_from', 'b'],
          ],
        );
        // Finished, not written twice.
        assert.equal(linesOf(memories).length, 5);
        assert.equal(linesOf(relations).length, 2);
        assert.match(log.warnings()[0]?.msg ?? '', /finished a write that a crash interrupted/);
      } else {
        assert.deepEqual([...store.memories.keys()].sort(), ['a', 'b']);
        assert.equal(store.memories.get('a')?.status, 'active');
        assert.equal(store.relations.size, 0);
        assert.equal(linesOf(memories).length, 2);
        assert.equal(fs.existsSync(relations) ? linesOf(relations).length : 0, 0);
      }
      for (const file of [memories, relations]) {
        if (fs.existsSync(file)) for (const line of linesOf(file)) JSON.parse(line);
      }
      assert.equal(recordLeft, true, 'the crash left the record of the transaction');
      assert.equal(fs.existsSync(path.join(dir, JOURNAL_FILE)), false, 'the record is gone');
      assert.equal(fs.existsSync(path.join(dir, FILES.quarantine)), false, 'nothing was torn');
    });
  }

  it('none: with no crash, no record is left and nothing is logged', async (t) => {
    const dir = testDir(t);
    const run = await crashChild(dir, 'none');
    assert.equal(run.code, 0, run.stderr);
    assert.equal(fs.existsSync(path.join(dir, JOURNAL_FILE)), false);
    const log = recordingLogger();
    const store = await openStore(t, dir, { logger: log.logger });
    assert.equal(store.relations.size, 2);
    assert.deepEqual(log.warnings(), []);
  });
});
