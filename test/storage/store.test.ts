import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { LockLostError, LockTimeoutError } from '../../src/platform/dir-lock.js';
import { LockAsk } from '../../src/platform/dir-lock-ask.js';
import type { StoreListener } from '../../src/storage/engine.js';
import { StoreError } from '../../src/storage/errors.js';
import { FILES, JsonlStore, type StoreOptions } from '../../src/storage/jsonl/store.js';
import {
  type MemoryRecord,
  newMemoryRecord,
  OTHER_FIELDS,
  type RelationRecord,
} from '../../src/storage/records.js';
import { nodeScript } from '../node-script.js';
import { recordingLogger, testDir } from '../support.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const FIXTURES = fileURLToPath(new URL('../fixtures/cortexgraph/', import.meta.url));

async function openStore(
  t: TestContext,
  dataDir: string,
  options: Partial<StoreOptions> = {},
  listeners: StoreListener[] = [],
): Promise<JsonlStore> {
  const store = await JsonlStore.open(
    { dataDir, logger: pino({ level: 'silent' }), clock: () => T0, ...options },
    listeners,
  );
  t.after(() => store.close());
  return store;
}

function memory(id: string, content: string, fields: Partial<MemoryRecord> = {}): MemoryRecord {
  return newMemoryRecord(id, content, T0, fields);
}

function relation(id: string, from: string, to: string): RelationRecord {
  return {
    id,
    from_memory_id: from,
    to_memory_id: to,
    relation_type: 'supports',
    strength: 0.8,
    created_at: T0,
    metadata: {},
  };
}

const jsonl = (...values: unknown[]) => values.map((v) => `${JSON.stringify(v)}\n`).join('');
const linesOf = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
const parsedLines = (file: string) => linesOf(file).map((l) => JSON.parse(l) as unknown);
const contents = (store: JsonlStore) =>
  new Map([...store.memories].map(([id, r]) => [id, r.content]));

describe('JsonlStore: the log', () => {
  it('keeps the last line for an id', async (t) => {
    const dir = testDir(t);
    fs.writeFileSync(
      path.join(dir, FILES.memories),
      jsonl(
        memory('a', 'first words'),
        memory('b', 'other memory'),
        memory('a', 'second words', { use_count: 1 }),
        memory('a', 'third words', { use_count: 2 }),
      ),
    );
    const store = await openStore(t, dir);
    assert.equal(store.memories.size, 2);
    assert.deepEqual(store.memories.get('a'), memory('a', 'third words', { use_count: 2 }));
    assert.equal(store.memories.get('b')?.content, 'other memory');

    await store.transact(() => ({
      result: null,
      memories: [memory('b', 'other memory, edited', { use_count: 7 })],
    }));
    store.close();
    const again = await openStore(t, dir);
    assert.equal(again.memories.get('b')?.content, 'other memory, edited');
    assert.equal(again.memories.get('b')?.use_count, 7);
  });

  it('deletes on a tombstone, and a later line brings the id back', async (t) => {
    const dir = testDir(t);
    fs.writeFileSync(
      path.join(dir, FILES.memories),
      jsonl(
        memory('a', 'to be deleted'),
        memory('b', 'stays'),
        memory('c', 'deleted then saved again'),
        { id: 'a', _deleted: true },
        { id: 'c', _deleted: true },
        memory('c', 'back again'),
        { id: 'never-existed', _deleted: true },
      ),
    );
    const store = await openStore(t, dir);
    assert.deepEqual(
      contents(store),
      new Map([
        ['b', 'stays'],
        ['c', 'back again'],
      ]),
    );

    await store.transact(() => ({ result: null, deletes: ['b'] }));
    assert.equal(store.memories.has('b'), false);
    assert.deepEqual(parsedLines(path.join(dir, FILES.memories)).at(-1), {
      id: 'b',
      _deleted: true,
    });
    store.close();
    const again = await openStore(t, dir);
    assert.deepEqual([...again.memories.keys()], ['c']);
  });

  it('keeps a whole last record that lacks its newline (a hand edit) and ends it', async (t) => {
    const dir = testDir(t);
    const file = path.join(dir, FILES.memories);
    const good = jsonl(memory('a', 'alpha'));
    fs.writeFileSync(file, good + JSON.stringify(memory('b', 'beta')));
    const store = await openStore(t, dir);
    assert.deepEqual([...store.memories.keys()].sort(), ['a', 'b']);
    assert.equal(fs.existsSync(path.join(dir, FILES.quarantine)), false);
    await store.transact(() => ({ result: null, memories: [memory('c', 'gamma')] }));
    assert.equal(linesOf(file).length, 3);
    for (const line of linesOf(file)) JSON.parse(line);
  });

  it('ignores a torn last line, keeps it in quarantine and cuts the file back', async (t) => {
    const dir = testDir(t);
    const file = path.join(dir, FILES.memories);
    const good = jsonl(memory('a', 'alpha'), memory('b', 'beta'));
    const torn = JSON.stringify(memory('c', 'gamma, cut short')).slice(0, 40);
    fs.writeFileSync(file, good + torn);
    const log = recordingLogger();

    const store = await openStore(t, dir, { logger: log.logger });
    assert.deepEqual([...store.memories.keys()].sort(), ['a', 'b']);
    assert.equal(fs.readFileSync(file, 'utf8'), good, 'the torn bytes are cut off');
    const quarantined = parsedLines(path.join(dir, FILES.quarantine)) as Record<string, unknown>[];
    assert.equal(quarantined.length, 1);
    assert.equal(quarantined[0]?.line, torn);
    assert.equal(quarantined[0]?.file, FILES.memories);
    assert.equal(quarantined[0]?.offset, Buffer.byteLength(good));
    assert.equal(log.warnings().length, 1);

    await store.transact(() => ({ result: null, memories: [memory('d', 'delta')] }));
    for (const line of linesOf(file)) JSON.parse(line); // every line whole again
    store.close();

    const again = await openStore(t, dir, { logger: log.logger });
    assert.deepEqual([...again.memories.keys()].sort(), ['a', 'b', 'd']);
    assert.equal(linesOf(path.join(dir, FILES.quarantine)).length, 1);
    assert.equal(log.warnings().length, 1, 'nothing new to warn about');
  });

  it('quarantines an unparsable line in the middle once, and loads the lines around it', async (t) => {
    const dir = testDir(t);
    const file = path.join(dir, FILES.memories);
    fs.writeFileSync(
      file,
      `${jsonl(memory('a', 'before the damage'))}{"id":"x","content":"brok\u0000en\n${jsonl(memory('b', 'after the damage'))}`,
    );
    const log = recordingLogger();
    const store = await openStore(t, dir, { logger: log.logger });
    assert.deepEqual(
      contents(store),
      new Map([
        ['a', 'before the damage'],
        ['b', 'after the damage'],
      ]),
    );
    const warnings = log.warnings();
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]?.msg ?? '', /quarantine\.jsonl/);
    assert.equal(warnings[0]?.reason, 'unparsable JSON');
    const quarantine = path.join(dir, FILES.quarantine);
    const kept = parsedLines(quarantine) as Record<string, unknown>[];
    assert.equal(kept.length, 1);
    assert.equal(kept[0]?.line, '{"id":"x","content":"brok\u0000en');
    assert.equal(kept[0]?.reason, 'unparsable JSON');
    store.close();

    const again = await openStore(t, dir, { logger: log.logger });
    assert.equal(again.memories.size, 2);
    assert.equal(linesOf(quarantine).length, 1, 'kept exactly once');
    assert.equal(log.warnings().length, 1, 'no second warning on the next start');
  });

  // A line changed in place, its length kept (every offset stays), in the middle of its content.
  for (const [how, from, to, breaksAt] of [
    ['a quote that ends its content early', 'PIN', 'P"N', 2],
    ["a token V8's message quotes with the words around it", 'PIN ', '",""', undefined],
  ] as const) {
    it(`a memory's line changed on disk after the sidecar was written (${how}): reading it names the file, the byte and the fix, never its words`, async (t) => {
      const dir = testDir(t);
      const file = path.join(dir, FILES.memories);
      const secret = memory('secret', 'My bank PIN is 4242, the safe code 9911');
      // Lines after it: the secret's is not in the 4 KB the sidecar checks (it is still used).
      const filler = (i: number) => memory(`m${i}`, `filler memory ${i}, words to take some room`);
      const store = await openStore(t, dir, { sidecarMinLines: 0 });
      await store.transact(() => ({
        result: null,
        memories: [filler(0), secret, ...Array.from({ length: 40 }, (_, i) => filler(i + 1))],
      }));
      await store.close();
      const text = fs.readFileSync(file, 'utf8');
      const line = Buffer.byteLength(text.slice(0, text.indexOf('{"id":"secret"')));
      const at = Buffer.byteLength(text.slice(0, text.indexOf(from)));
      const fd = fs.openSync(file, 'r+');
      fs.writeSync(fd, to, at);
      fs.closeSync(fd);

      const log = recordingLogger();
      const again = await openStore(t, dir, { logger: log.logger, sidecarMinLines: 0 });
      assert.ok(
        log.entries().some((e) => /started from memories\.idx/.test(e.msg)),
        'a start from the sidecar: the line is read only when asked for',
      );
      const words = /bank|PIN|4242|safe|9911/;
      assert.throws(
        () => again.memories.get('secret'),
        (error: Error) => {
          assert.ok(!words.test(`${error.message}\n${error.stack}`), error.message);
          assert.ok(error instanceof StoreError, `a StoreError, not ${error.name}`);
          const where = breaksAt === undefined ? '' : ` (it breaks at byte ${at + breaksAt})`;
          assert.equal(
            error.message,
            `a memory's line in ${file} (at byte ${line}, ${Buffer.byteLength(JSON.stringify(secret))} bytes) ` +
              `is not valid JSON${where}: the file was changed since mnemo read it. Fix that line ` +
              '(one JSON object), or delete memories.idx beside it and start mnemo again: the start ' +
              'reads the log whole and moves the bad line to quarantine.jsonl',
          );
          return true;
        },
      );
      assert.equal(again.memories.get('m1')?.content, filler(1).content, 'the others read');
      assert.ok(!words.test(JSON.stringify(log.entries())), 'nor in the log');
    });
  }

  it('quarantines a bad line once when two stores read it', async (t) => {
    const dir = testDir(t);
    const file = path.join(dir, FILES.memories);
    const one = await openStore(t, dir);
    const two = await openStore(t, dir);
    await one.transact(() => ({ result: null, memories: [memory('a', 'alpha')] }));
    fs.appendFileSync(file, `{"id":"b","content":\n${jsonl(memory('c', 'gamma'))}`);
    two.refresh(); // sees the bad line without the lock: it can only note it for later
    one.refresh();
    await one.transact(() => ({ result: null, memories: [memory('d', 'delta')] }));
    await two.transact(() => ({ result: null, memories: [memory('e', 'epsilon')] }));
    one.refresh();
    assert.deepEqual([...one.memories.keys()].sort(), ['a', 'c', 'd', 'e']);
    assert.deepEqual([...two.memories.keys()].sort(), ['a', 'c', 'd', 'e']);
    assert.equal(linesOf(path.join(dir, FILES.quarantine)).length, 1);
  });

  it('quarantines valid JSON that is not a memory or a relation', async (t) => {
    const dir = testDir(t);
    const notMemories = [
      [1, 2, 3],
      'just a string',
      null,
      { foo: 'bar' },
      { id: 'no-content' },
      { id: 42, content: 'numeric id' },
    ];
    fs.writeFileSync(
      path.join(dir, FILES.memories),
      jsonl(memory('a', 'real memory'), ...notMemories, memory('b', 'another real one')),
    );
    fs.writeFileSync(
      path.join(dir, FILES.relations),
      jsonl(relation('r1', 'a', 'b'), { id: 'r2', from_memory_id: 'a' }),
    );
    const log = recordingLogger();
    const store = await openStore(t, dir, { logger: log.logger });
    assert.deepEqual([...store.memories.keys()], ['a', 'b']);
    assert.deepEqual([...store.relations.keys()], ['r1']);
    const kept = parsedLines(path.join(dir, FILES.quarantine)) as Record<string, unknown>[];
    assert.deepEqual(
      kept.map((k) => JSON.parse(k.line as string)),
      [...notMemories, { id: 'r2', from_memory_id: 'a' }],
    );
    assert.deepEqual(
      kept.map((k) => k.file),
      [...notMemories.map(() => FILES.memories), FILES.relations],
    );
    for (const k of kept) assert.match(k.reason as string, /^invalid record/);
    assert.equal(log.warnings().length, notMemories.length + 1);
    store.close();

    const again = await openStore(t, dir, { logger: log.logger });
    assert.equal(again.memories.size, 2);
    assert.equal(linesOf(path.join(dir, FILES.quarantine)).length, notMemories.length + 1);
  });
});

describe('JsonlStore: compaction', () => {
  it('rewrites the log when stale lines outnumber live ones, and another store follows', async (t) => {
    const dir = testDir(t);
    const file = path.join(dir, FILES.memories);
    const options = { compactMinLines: 20 };
    const writer = await openStore(t, dir, options);
    const ids = ['a', 'b', 'c', 'd', 'e'];
    await writer.transact(() => ({
      result: null,
      memories: ids.map((id) => memory(id, `${id} version 0`)),
      relations: [relation('r1', 'a', 'b')],
    }));
    const inodeBefore = fs.statSync(file).ino;
    const sizeSeenByReader = fs.statSync(file).size;

    let resets = 0;
    const reader = await openStore(t, dir, options, [
      { upsert() {}, remove() {}, reset: () => void resets++ },
    ]);
    assert.equal(reader.memories.size, 5);

    let appended = 5;
    let compacted = false;
    for (let version = 1; !compacted; version++) {
      for (const id of ids) {
        await writer.transact(() => ({
          result: null,
          memories: [memory(id, `${id} version ${version}`, { use_count: version })],
        }));
        appended++;
        if (fs.statSync(file).ino !== inodeBefore) {
          compacted = true;
          break;
        }
      }
      assert.ok(version < 10, 'compacted once stale lines outnumbered live ones');
    }
    assert.ok(linesOf(file).length < appended, 'the rewritten file is shorter');
    // A few more updates after the rewrite, so the new file grows past the reader's old offset
    // and only the inode tells the reader that it must start over.
    for (let i = 0; fs.statSync(file).size <= sizeSeenByReader + 200; i++) {
      await writer.transact(() => ({
        result: null,
        memories: [memory('e', `e after compaction ${i}`)],
      }));
    }
    assert.notEqual(fs.statSync(file).ino, inodeBefore);

    reader.refresh();
    assert.equal(resets, 1, 'the reader noticed the new file');
    assert.deepEqual([...reader.memories.entries()].sort(), [...writer.memories.entries()].sort());
    assert.deepEqual(reader.relations.get('r1'), relation('r1', 'a', 'b'));

    writer.close();
    reader.close();
    const fresh = await openStore(t, dir, options);
    assert.deepEqual([...fresh.memories.entries()].sort(), [...writer.memories.entries()].sort());
    assert.equal(fresh.relations.size, 1);
  });

  it('does not compact while another process holds the lock, and waits for it to write', async (t) => {
    const dir = testDir(t);
    // Not kept after the write: another process can take it (see DirLock for a kept one).
    const store = await openStore(t, dir, { lockWaitMs: 200, lockKeepMs: 0 });
    await store.transact(() => ({ result: null, memories: [memory('a', 'x')] }));
    // Another live process's lock (this test runner's parent stands in for it).
    const lockPath = path.join(dir, FILES.lock);
    fs.mkdirSync(lockPath);
    fs.writeFileSync(
      path.join(lockPath, 'owner'),
      JSON.stringify({ pid: process.ppid, host: os.hostname() }),
    );
    const release = () => fs.rmSync(lockPath, { recursive: true, force: true });
    try {
      const inode = fs.statSync(path.join(dir, FILES.memories)).ino;
      assert.equal(store.compactNow(), false);
      assert.equal(fs.statSync(path.join(dir, FILES.memories)).ino, inode);
      await assert.rejects(
        store.transact(() => ({ result: null, memories: [memory('b', 'y')] })),
        (error: Error) => error instanceof LockTimeoutError && error.message.includes(dir),
      );
      assert.equal(store.memories.has('b'), false);
    } finally {
      release();
    }
    assert.equal(store.compactNow(), true);
  });

  it('takes over at once a lock whose owner process is gone', async (t) => {
    const dir = testDir(t);
    const lockPath = path.join(dir, FILES.lock);
    fs.mkdirSync(lockPath);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    const pid = Number(dead.stdout.toString());
    fs.writeFileSync(path.join(lockPath, 'owner'), JSON.stringify({ pid, host: os.hostname() }));
    // No wait at all: the lock must be taken at the first try, or it is a LockTimeoutError.
    const store = await openStore(t, dir, { lockWaitMs: 0 });
    await store.transact(() => ({ result: null, memories: [memory('a', 'after a crash')] }));
    assert.equal(store.memories.get('a')?.content, 'after a crash');
  });

  it('takes over an unsigned lock (its maker died before signing) once it is old', async (t) => {
    const dir = testDir(t);
    const lockPath = path.join(dir, FILES.lock);
    fs.mkdirSync(lockPath);
    const longAgo = new Date(Date.now() - 60_000);
    fs.utimesSync(lockPath, longAgo, longAgo);
    const store = await openStore(t, dir, { lockWaitMs: 2_000 });
    await store.transact(() => ({ result: null, memories: [memory('a', 'x')] }));
    assert.equal(store.memories.size, 1);
    const owner = JSON.parse(fs.readFileSync(path.join(lockPath, 'owner'), 'utf8'));
    assert.equal(owner.pid, process.pid, 'kept after the write, for the next one');
    await store.close();
    assert.equal(fs.existsSync(lockPath), false, 'released on close');
  });
});

/** Signs `lockPath` (made by the caller) as held by another process on this host that runs. */
function signForLiveProcess(lockPath: string, token = 'theirs'): void {
  // The test runner's parent stands in for the other mnemo process.
  fs.writeFileSync(
    path.join(lockPath, 'owner'),
    JSON.stringify({ pid: process.ppid, host: os.hostname(), token }),
  );
}

function deadPid(): number {
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(dead.stdout.toString());
}

describe('JsonlStore: a data dir locked at start', () => {
  it('tells callers the data dir is busy, by whom, to retry, and loads once the lock is free', async (t) => {
    const dir = testDir(t);
    fs.writeFileSync(path.join(dir, FILES.memories), jsonl(memory('a', 'saved before')));
    const lockPath = path.join(dir, FILES.lock);
    fs.mkdirSync(lockPath);
    signForLiveProcess(lockPath);
    // The holder is compacting: its temp file is not a leftover.
    const holderTemp = path.join(dir, `${FILES.memories}.${process.ppid}.tmp`);
    fs.writeFileSync(holderTemp, jsonl(memory('a', 'saved before')));
    const store = JsonlStore.start({
      dataDir: dir,
      logger: pino({ level: 'silent' }),
      clock: () => T0,
      lockWaitMs: 100,
    });
    t.after(() => store.close());
    const busy = (error: Error) =>
      error instanceof LockTimeoutError &&
      error.message.includes(`the data dir ${dir} is busy`) &&
      error.message.includes(`pid ${process.ppid}`) &&
      error.message.includes('retry');
    await assert.rejects(store.ready, busy);
    // Not for good: a later call waits again, and hears it again while the lock is held.
    await assert.rejects(store.ready, busy);
    await assert.rejects(
      store.transact(() => ({ result: null, memories: [memory('b', 'y')] })),
      busy,
    );
    assert.ok(fs.existsSync(holderTemp), "the holder's temp file is left alone");
    assert.equal(fs.existsSync(lockPath), true, 'the lock of a live process is not taken over');

    fs.rmSync(lockPath, { recursive: true });
    await store.ready;
    assert.equal(store.memories.get('a')?.content, 'saved before');
    await store.transact(() => ({ result: null, memories: [memory('b', 'after')] }));
    assert.equal(store.memories.get('b')?.content, 'after');
    assert.equal(fs.existsSync(holderTemp), false, 'a leftover once the lock is ours');
  });

  it('stops waiting for the lock at once when closed', { timeout: 60_000 }, async (t) => {
    const dir = testDir(t);
    const lockPath = path.join(dir, FILES.lock);
    fs.mkdirSync(lockPath);
    signForLiveProcess(lockPath);
    const store = JsonlStore.start({
      dataDir: dir,
      logger: pino({ level: 'silent' }),
      clock: () => T0,
      // Longer than any test runs: only close() can end this wait before the test's timeout.
      lockWaitMs: 3_600_000,
    });
    const ready = store.ready;
    await new Promise((resolve) => setImmediate(resolve));
    store.close();
    await assert.rejects(ready, /closed/);
    fs.rmSync(lockPath, { recursive: true });
  });
});

describe('JsonlStore: a lock taken over in the middle of a transaction', () => {
  it('writes nothing from its stale view, and leaves the new owner its lock', async (t) => {
    const dir = testDir(t);
    const store = await openStore(t, dir);
    await store.transact(() => ({ result: null, memories: [memory('a', 'touched elsewhere')] }));
    const file = path.join(dir, FILES.memories);
    const before = fs.readFileSync(file);
    const lockPath = path.join(dir, FILES.lock);
    await assert.rejects(
      store.transact(() => {
        // As a gc stalled in its critical section: another process takes over and writes.
        fs.rmSync(lockPath, { recursive: true });
        fs.mkdirSync(lockPath);
        signForLiveProcess(lockPath, 'new owner');
        const stale = store.memories.get('a') as MemoryRecord;
        return { result: null, deletes: ['a'], forgotten: [stale] };
      }),
      (error: Error) =>
        error instanceof LockLostError &&
        error.message.includes(lockPath) &&
        error.message.includes(`pid ${process.ppid}`),
    );
    assert.ok(fs.readFileSync(file).equals(before), 'no tombstone written');
    assert.equal(fs.existsSync(path.join(dir, FILES.forgotten)), false, 'nothing forgotten');
    assert.equal(store.memories.get('a')?.content, 'touched elsewhere');
    assert.equal(
      JSON.parse(fs.readFileSync(path.join(lockPath, 'owner'), 'utf8')).token,
      'new owner',
      'its lock is not removed',
    );
  });
});

describe('JsonlStore: a log that is a link', () => {
  it('is refused (ELOOP), and the file it points to is never written', async (t) => {
    const dir = testDir(t);
    const victim = path.join(testDir(t), 'authorized_keys');
    fs.writeFileSync(victim, 'ssh-ed25519 the owner\n');
    fs.symlinkSync(victim, path.join(dir, FILES.memories));
    await assert.rejects(
      (async () => {
        const store = await openStore(t, dir);
        await store.transact(() => ({ result: null, memories: [memory('a', 'ssh-ed25519 x')] }));
      })(),
      (error: Error) => /ELOOP/.test(`${error.message} ${(error as NodeJS.ErrnoException).code}`),
    );
    assert.equal(fs.readFileSync(victim, 'utf8'), 'ssh-ed25519 the owner\n');
  });
});

describe('JsonlStore: leftovers of a compaction cut short', () => {
  it("removes its temp files at start, and nobody else's", async (t) => {
    const dir = testDir(t);
    fs.writeFileSync(path.join(dir, FILES.memories), jsonl(memory('a', 'x')));
    const dead = deadPid();
    const leftovers = [
      `${FILES.memories}.${dead}.tmp`,
      `${FILES.memories}.${dead}.0123456789abcdef.tmp`,
      `${FILES.relations}.${process.ppid}.fedcba9876543210.tmp`,
      // The sidecar is compacted without the lock: its temp file goes once its writer is gone.
      `vectors.jsonl.${dead}.tmp`,
      `vectors.jsonl.${dead}.0123456789abcdef.tmp`,
    ];
    const others = [
      `vectors.jsonl.${process.ppid}.tmp`,
      `vectors.jsonl.${process.ppid}.0123456789abcdef.tmp`,
      `.vectors.jsonl.${dead}.0123456789abcdef.tmp`,
      `${FILES.memories}.tmp`,
      'notes.tmp',
      `${FILES.memories}.bak`,
    ];
    for (const name of [...leftovers, ...others]) {
      fs.writeFileSync(path.join(dir, name), jsonl(memory('a', 'half a compaction')));
    }
    fs.mkdirSync(path.join(dir, `${FILES.relations}.1.tmp`));
    const store = await openStore(t, dir);
    assert.equal(store.memories.get('a')?.content, 'x');
    for (const name of leftovers) assert.equal(fs.existsSync(path.join(dir, name)), false, name);
    for (const name of others) assert.equal(fs.existsSync(path.join(dir, name)), true, name);
    assert.equal(fs.existsSync(path.join(dir, `${FILES.relations}.1.tmp`)), true, 'a folder');
  });
});

describe('JsonlStore: two stores on one data dir', () => {
  it("each sees the other's writes after refresh()", async (t) => {
    const dir = testDir(t);
    const one = await openStore(t, dir);
    const two = await openStore(t, dir);
    await one.transact(() => ({ result: null, memories: [memory('a', 'written by one')] }));
    assert.equal(two.memories.has('a'), false);
    two.refresh();
    assert.equal(two.memories.get('a')?.content, 'written by one');

    await two.transact(() => ({
      result: null,
      memories: [memory('b', 'written by two')],
      relations: [relation('r1', 'a', 'b')],
    }));
    one.refresh();
    assert.equal(one.memories.get('b')?.content, 'written by two');
    assert.deepEqual(one.relationsOf('a'), [relation('r1', 'a', 'b')]);

    await one.transact(() => ({ result: null, deletes: ['a'], relationDeletes: ['r1'] }));
    two.refresh();
    assert.deepEqual([...two.memories.keys()], ['b']);
    assert.deepEqual(two.relationsOf('b'), []);
  });

  it('loses nothing when both transact at once', async (t) => {
    const dir = testDir(t);
    const options = { compactMinLines: 50 };
    const stores = [await openStore(t, dir, options), await openStore(t, dir, options)];
    await stores[0]?.transact(() => ({ result: null, memories: [memory('counter', 'count')] }));
    const n = 150;
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) => {
        const store = stores[i % 2] as JsonlStore;
        return Promise.all([
          store.transact(() => ({ result: i, memories: [memory(`m${i}`, `memory ${i}`)] })),
          // Read-modify-write: each transact must see every earlier one, whichever store made it.
          store.transact(() => {
            const current = store.memories.get('counter');
            assert.ok(current);
            return {
              result: current.use_count,
              memories: [{ ...current, use_count: current.use_count + 1 }],
            };
          }),
        ]);
      }),
    );
    assert.deepEqual(
      results.map(([i]) => i),
      Array.from({ length: n }, (_, i) => i),
    );
    assert.deepEqual(
      results.map(([, seen]) => seen).sort((a, b) => a - b),
      Array.from({ length: n }, (_, i) => i),
      'every increment saw the one before it',
    );
    for (const store of stores) {
      store.refresh();
      assert.equal(store.memories.size, n + 1);
      assert.equal(store.memories.get('counter')?.use_count, n);
    }
    const fresh = await openStore(t, dir);
    assert.equal(fresh.memories.size, n + 1);
    assert.equal(fresh.memories.get('counter')?.use_count, n);
    for (let i = 0; i < n; i++) assert.equal(fresh.memories.get(`m${i}`)?.content, `memory ${i}`);
  });
});

describe('JsonlStore: forgetting', () => {
  it('writes forgotten records to forgotten.jsonl before the tombstone', async (t) => {
    const dir = testDir(t);
    let now = T0;
    const store = await openStore(t, dir, { clock: () => now });
    const a = memory('a', 'first life', {
      meta: { tags: ['x'], source: 's', context: null, extra: {} },
    });
    await store.transact(() => ({ result: null, memories: [a, memory('b', 'kept')] }));

    now = T0 + 100;
    await store.transact(() => ({ result: null, forgotten: [a], deletes: ['a'] }));
    assert.equal(store.memories.has('a'), false);
    const forgottenFile = path.join(dir, FILES.forgotten);
    assert.deepEqual(parsedLines(forgottenFile), [{ ...a, forgotten_at: T0 + 100 }]);
    assert.deepEqual(await store.findForgotten('a'), a);
    assert.equal(await store.findForgotten('b'), undefined);

    // Restored, changed, forgotten again: the last copy is the one that comes back.
    const a2 = { ...a, content: 'second life', use_count: 3 };
    await store.transact(() => ({ result: null, memories: [a2] }));
    now = T0 + 200;
    await store.transact(() => ({ result: null, forgotten: [a2], deletes: ['a'] }));
    assert.equal(linesOf(forgottenFile).length, 2);
    assert.deepEqual(await store.findForgotten('a'), a2);

    // If the tombstone cannot be written, the forgotten copy is already safe on disk.
    const unwritable = { ...memory('b', 'kept'), meta: { ...a.meta, extra: { n: 1n } } };
    await assert.rejects(
      store.transact(() => ({
        result: null,
        forgotten: [memory('b', 'kept')],
        deletes: ['b'],
        memories: [unwritable as unknown as MemoryRecord],
      })),
      TypeError,
    );
    assert.equal((await store.findForgotten('b'))?.content, 'kept');
    assert.equal(store.memories.has('b'), true);
    const tombstones = parsedLines(path.join(dir, FILES.memories)).filter(
      (l) => (l as { _deleted?: boolean })._deleted === true,
    );
    assert.deepEqual(tombstones, [
      { id: 'a', _deleted: true },
      { id: 'a', _deleted: true },
    ]);
  });
});

describe('JsonlStore: the data dir', () => {
  it('creates the folder 0700 and every file 0600', async (t) => {
    const root = testDir(t);
    const dir = path.join(root, 'new', 'mnemo');
    const store = await openStore(t, dir);
    await store.transact(() => ({
      result: null,
      memories: [memory('a', 'one'), memory('b', 'two')],
      relations: [relation('r1', 'a', 'b')],
    }));
    await store.transact(() => ({
      result: null,
      forgotten: [memory('b', 'two')],
      deletes: ['b'],
    }));
    store.close();
    fs.appendFileSync(path.join(dir, FILES.memories), 'not json\n');
    (await openStore(t, dir)).close(); // quarantines the line and rewrites memories.jsonl

    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    for (const name of [FILES.memories, FILES.relations, FILES.forgotten, FILES.quarantine]) {
      assert.equal(fs.statSync(path.join(dir, name)).mode & 0o777, 0o600, name);
    }
    assert.deepEqual(
      fs.readdirSync(dir).sort(),
      [FILES.forgotten, FILES.memories, FILES.quarantine, FILES.relations].sort(),
      'no temp files or lock left behind',
    );
  });

  for (const [what, below] of [
    ['is a file', ''],
    ['is below a file', 'mnemo'],
  ] as const) {
    it(`explains what to do when the path ${what}`, async (t) => {
      const file = path.join(testDir(t), 'in-the-way');
      fs.writeFileSync(file, 'a file, not a folder');
      const dataDir = path.join(file, below);
      await assert.rejects(
        JsonlStore.open({ dataDir, logger: pino({ level: 'silent' }), clock: () => T0 }),
        (error: Error) => {
          assert.ok(error instanceof StoreError, `a StoreError, not ${error.name}`);
          assert.ok(error.message.includes(dataDir), error.message);
          assert.match(error.message, /--data-dir or MNEMO_DATA_DIR/);
          return true;
        },
      );
    });
  }
});

describe('JsonlStore: a cortexgraph data dir', () => {
  it('opens as it is, every record with its values and the defaults', async (t) => {
    const dir = testDir(t);
    for (const name of fs.readdirSync(FIXTURES)) {
      fs.copyFileSync(path.join(FIXTURES, name), path.join(dir, name));
    }
    const original = fs.readFileSync(path.join(dir, FILES.memories), 'utf8');
    const log = recordingLogger();
    const store = await openStore(t, dir, { logger: log.logger });
    assert.deepEqual(log.warnings(), []);
    assert.equal(fs.existsSync(path.join(dir, FILES.quarantine)), false);
    assert.equal(
      fs.readFileSync(path.join(dir, FILES.memories), 'utf8'),
      original,
      'opening does not rewrite their file',
    );

    assert.deepEqual([...store.memories.keys()].sort(), [
      '0b6f2d4e-5c1a-4f3b-9e2d-7a8c9d0e1f20',
      '3f9c1a2b-8d7e-4c6f-a5b4-1e2d3c4b5a60',
      '7e6d5c4b-3a29-4b18-9c07-f6e5d4c3b2a1',
      '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c60',
    ]);
    assert.deepEqual(store.memories.get('3f9c1a2b-8d7e-4c6f-a5b4-1e2d3c4b5a60'), {
      id: '3f9c1a2b-8d7e-4c6f-a5b4-1e2d3c4b5a60',
      content: 'The staging database is Postgres 16 on db-staging.internal, port 5433.',
      meta: {
        tags: ['infra', 'database'],
        source: 'slack #ops',
        context: 'Debugging the nightly migration',
        extra: { confidence: 0.9 },
      },
      entities: ['Postgres', 'db-staging'],
      created_at: 1736275200,
      last_used: 1736448000,
      use_count: 3,
      strength: 1.2,
      status: 'active',
      promoted_at: null,
      promoted_to: null,
      review_priority: 0.42,
      review_count: 2,
      last_review_at: 1736448000,
      cross_domain_count: 1,
      [OTHER_FIELDS]: { embed: [0.0132, -0.0871, 0.2245, 0.0419] },
    });
    assert.deepEqual(store.memories.get('0b6f2d4e-5c1a-4f3b-9e2d-7a8c9d0e1f20'), {
      id: '0b6f2d4e-5c1a-4f3b-9e2d-7a8c9d0e1f20',
      content: 'Prefers tabs over spaces; 100 columns.',
      meta: { tags: ['preferences'], source: null, context: null, extra: {} },
      entities: [],
      created_at: 1735000000,
      last_used: 1735500000,
      use_count: 6,
      strength: 2,
      status: 'promoted',
      promoted_at: 1735600000,
      promoted_to: 'STM/prefers-tabs-over-spaces.md',
      review_priority: 0,
      review_count: 0,
      last_review_at: null,
      cross_domain_count: 0,
      [OTHER_FIELDS]: { embed: null },
    });
    // A strength under 1, which cortexgraph allows, is kept as it is.
    assert.deepEqual(store.memories.get('7e6d5c4b-3a29-4b18-9c07-f6e5d4c3b2a1'), {
      id: '7e6d5c4b-3a29-4b18-9c07-f6e5d4c3b2a1',
      content: 'The build cache lives on the NFS share; a guess, not verified.',
      meta: { tags: ['infra'], source: null, context: null, extra: {} },
      entities: [],
      created_at: 1736400000,
      last_used: 1736400000,
      use_count: 0,
      strength: 0.8,
      status: 'active',
      promoted_at: null,
      promoted_to: null,
      review_priority: 0,
      review_count: 0,
      last_review_at: null,
      cross_domain_count: 0,
      [OTHER_FIELDS]: { embed: [0.101, 0, -0.05, 0.3] },
    });
    // Written before cortexgraph had entities, embeddings and review fields.
    assert.deepEqual(store.memories.get('9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c60'), {
      id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c60',
      content: 'Old mnemex memory: the cat is called Ralph.',
      meta: { tags: ['home'], source: null, context: null, extra: {} },
      entities: [],
      created_at: 1730000000,
      last_used: 1730086400,
      use_count: 1,
      strength: 1,
      status: 'archived',
      promoted_at: null,
      promoted_to: null,
      review_priority: 0,
      review_count: 0,
      last_review_at: null,
      cross_domain_count: 0,
    });
    for (const record of store.memories.values()) {
      assert.equal('embed' in record, false, 'embeddings are not among the fields mnemo uses');
      assert.equal(JSON.stringify(record).includes('embed'), false, 'nor in its JSON');
    }

    assert.deepEqual(
      [...store.relations.values()].sort((a, b) => a.id.localeCompare(b.id)),
      [
        {
          id: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e50',
          from_memory_id: '3f9c1a2b-8d7e-4c6f-a5b4-1e2d3c4b5a60',
          to_memory_id: '0b6f2d4e-5c1a-4f3b-9e2d-7a8c9d0e1f20',
          relation_type: 'supports',
          strength: 0.7,
          created_at: 1736300000,
          metadata: { note: 'same team' },
        },
        {
          id: 'd4e5f6a7-b8c9-4d0e-9f1a-2b3c4d5e6f70',
          from_memory_id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c60',
          to_memory_id: '3f9c1a2b-8d7e-4c6f-a5b4-1e2d3c4b5a60',
          relation_type: 'related',
          strength: 1,
          created_at: 1736300100,
          metadata: {},
        },
      ],
    );
  });

  it('writes back the fields mnemo does not use: updates, compaction, forgetting, restoring', async (t) => {
    const dir = testDir(t);
    for (const name of fs.readdirSync(FIXTURES)) {
      fs.copyFileSync(path.join(FIXTURES, name), path.join(dir, name));
    }
    const memoriesFile = path.join(dir, FILES.memories);
    const relationsFile = path.join(dir, FILES.relations);
    // A field a newer writer added to a relation.
    fs.appendFileSync(
      relationsFile,
      jsonl({ ...relation('r-new', 'a', 'b'), provenance: { by: 'cortexgraph', run: 7 } }),
    );
    const store = await openStore(t, dir);
    const id = '3f9c1a2b-8d7e-4c6f-a5b4-1e2d3c4b5a60';
    const weak = '7e6d5c4b-3a29-4b18-9c07-f6e5d4c3b2a1';
    const embed = [0.0132, -0.0871, 0.2245, 0.0419];
    const lastLineOf = (file: string, of: string) =>
      parsedLines(file).findLast((l) => (l as { id: string }).id === of) as Record<string, unknown>;

    // An update (as touch makes it: the record spread, some fields changed) keeps `embed`.
    const record = store.memories.get(id) as MemoryRecord;
    await store.transact(() => ({
      result: null,
      memories: [{ ...record, use_count: record.use_count + 1 }],
    }));
    assert.deepEqual(lastLineOf(memoriesFile, id).embed, embed);
    assert.equal(lastLineOf(memoriesFile, id).use_count, 4);
    assert.equal(store.memories.get(id)?.use_count, 4);

    // Compaction writes every record from memory, with what mnemo does not use.
    assert.equal(store.compactNow(), true);
    const compacted = new Map(
      parsedLines(memoriesFile).map((l) => [
        (l as { id: string }).id,
        l as Record<string, unknown>,
      ]),
    );
    assert.equal(compacted.size, 4);
    assert.deepEqual(compacted.get(id)?.embed, embed);
    assert.equal(compacted.get('0b6f2d4e-5c1a-4f3b-9e2d-7a8c9d0e1f20')?.embed, null);
    assert.equal('embed' in (compacted.get('9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c60') ?? {}), false);
    assert.deepEqual(compacted.get(weak)?.embed, [0.101, 0, -0.05, 0.3]);
    assert.equal(compacted.get(weak)?.strength, 0.8, 'a stored strength stays as it is');
    assert.deepEqual(lastLineOf(relationsFile, 'r-new').provenance, {
      by: 'cortexgraph',
      run: 7,
    });

    // Forgotten with it, and restored with it.
    const current = store.memories.get(id) as MemoryRecord;
    await store.transact(() => ({ result: null, forgotten: [current], deletes: [id] }));
    assert.deepEqual(lastLineOf(path.join(dir, FILES.forgotten), id).embed, embed);
    const back = (await store.findForgotten(id)) as MemoryRecord;
    await store.transact(() => ({
      result: null,
      memories: [{ ...back, status: 'active' as const, last_used: T0 }],
    }));
    assert.deepEqual(lastLineOf(memoriesFile, id).embed, embed);
    assert.equal(lastLineOf(memoriesFile, id).last_used, T0);

    // The record mnemo hands out has none of it: tool results keep their shape.
    assert.equal(JSON.stringify(store.memories.get(id)).includes('embed'), false);
    assert.equal(JSON.stringify(store.relations.get('r-new')).includes('provenance'), false);
    store.close();

    // And cortexgraph reads back what it wrote.
    const again = await openStore(t, dir);
    assert.deepEqual(again.memories.get(id)?.[OTHER_FIELDS], { embed });
    assert.equal(again.memories.get(weak)?.strength, 0.8);
  });
});

describe('JsonlStore: closed while loading', () => {
  it('never writes from a partial load, and the file keeps every record', async (t) => {
    const dir = testDir(t);
    const file = path.join(dir, FILES.memories);
    // Stale lines outnumber live ones, so a write would compact: from a partial view that would
    // drop records. About 6 MB, so the load takes several slices.
    const lines: MemoryRecord[] = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 6000; i++)
        lines.push(memory(`m${i}`, `memory ${i} ${'x'.repeat(300)}`, { use_count: round }));
    }
    fs.writeFileSync(file, jsonl(...lines));
    const before = fs.readFileSync(file);
    const store = JsonlStore.start({
      dataDir: dir,
      logger: pino({ level: 'silent' }),
      clock: () => T0,
    });
    const write = store.transact(() => ({ result: null, memories: [memory('new', 'new')] }));
    store.close();
    await assert.rejects(write, /closed/);
    await assert.rejects(store.ready, /closed/);
    assert.ok(fs.readFileSync(file).equals(before), 'the log is untouched');
    const again = await openStore(t, dir);
    assert.equal(again.memories.size, 6000);
  });
});

describe('JsonlStore: hand-edited numbers', () => {
  it('keeps numbers finite and strength within 0..2', async (t) => {
    const dir = testDir(t);
    const line = JSON.stringify(memory('n', 'numbers'))
      .replace('"use_count":0', '"use_count":1e400')
      .replace('"strength":1', '"strength":7');
    fs.writeFileSync(path.join(dir, FILES.memories), `${line}\n`);
    const store = await openStore(t, dir);
    const record = store.memories.get('n');
    assert.equal(record?.use_count, 0);
    assert.equal(record?.strength, 2);
  });
});

const SAVER = fileURLToPath(new URL('./store-saver-child.ts', import.meta.url));

describe('JsonlStore: another process saving in a row', () => {
  it('lets this one in after the save under way of the other, and loses no write', async (t) => {
    const dir = testDir(t);
    const child = spawn(process.execPath, [...nodeScript(SAVER), dir], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    t.after(() => child.kill('SIGKILL'));
    let out = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', () => {
        if (out.includes('saving')) resolve();
      });
      void exited.then((code) => reject(new Error(`the saver exited (${code}): ${stderr}`)));
    });

    // Its saves keep coming, each under the lock it keeps: without asking, this store would wait
    // the whole lockWaitMs for it (its load too), and fail. Asked, it lets go at the end of the
    // save under way, and leaves the lock to this one while it asks: so after this store first
    // asks, the other makes one save at most, however slowly either runs. Counted in the log:
    // its size when this store first asked for a save, and the other's lines past it once this
    // one holds the lock.
    const store = await openStore(t, dir, { lockWaitMs: 5_000 });
    const log = path.join(dir, FILES.memories);
    let askedAt: number | undefined;
    const ask = LockAsk.prototype.ask;
    t.mock.method(LockAsk.prototype, 'ask', function (this: LockAsk) {
      const first = askedAt === undefined;
      ask.call(this);
      // Once asked: a save of the other that ended between a size read first and the ask (the
      // process descheduled there, under load) was not yet asked to stop.
      if (first) askedAt = fs.statSync(log).size;
    });
    const theirsAfterAsking: number[] = [];
    for (let i = 0; i < 20; i++) {
      await store.transact(() => {
        if (askedAt !== undefined) {
          const since = fs.readFileSync(log).subarray(askedAt).toString();
          theirsAfterAsking.push(since.split('"id":"child-').length - 1);
          askedAt = undefined;
        }
        return { result: null, memories: [memory(`here-${i}`, `saved here ${i}`)] };
      });
    }
    t.diagnostic(`saves of the other after this one asked: ${theirsAfterAsking.join(' ')}`);
    // The first save had to ask: the other keeps the lock between its saves.
    assert.ok(theirsAfterAsking.length >= 1, 'this store asked for the lock');
    assert.ok(
      theirsAfterAsking.every((n) => n <= 1),
      `the other let go after the save under way: ${theirsAfterAsking.join(' ')}`,
    );

    child.stdin.end();
    assert.equal(await exited, 0, stderr);
    const childIds = JSON.parse(
      out.slice(out.indexOf('saving') + 'saving'.length).trim(),
    ) as string[];
    assert.ok(childIds.length >= 2, 'the other process saved on meanwhile');
    await store.close();
    const fresh = await openStore(t, dir);
    for (const id of childIds) assert.ok(fresh.memories.has(id), `${id} of the other process`);
    for (let i = 0; i < 20; i++)
      assert.ok(fresh.memories.has(`here-${i}`), `here-${i} of this one`);
    assert.equal(fresh.memories.size, childIds.length + 20);
  });
});
