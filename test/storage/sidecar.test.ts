import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import zlib from 'node:zlib';
import type { JsonlStore } from '../../src/storage/jsonl/store.js';
import { SIDECAR_FILE } from '../../src/storage/sidecar.js';
import { openTestMemory, recordingLogger, type TestMemory, testDir } from './../support.js';
import { columnsOf, type HeaderJson, withColumn, withHeader } from './sidecar-craft.js';

const WORDS = [
  'kitten sleeps on the rug after lunch',
  'the deploy of the billing service failed on friday',
  'Ralph prefers tea over coffee in the morning',
  'the tunnel to the gateway needs a new token',
  'remember to water the basil and the tomatoes',
  'the billing team moved the meeting to tuesday',
  'coffee beans from the market near the station',
];

const QUERIES = ['kitten rug', 'billing', 'coffee morning', 'token gateway', 'tuesday meeting'];

/** Memories whose words overlap, some touched, one archived: a corpus search ranks with care. */
async function seed(t: TestMemory, count: number, from = 0): Promise<string[]> {
  const ids: string[] = [];
  for (let i = from; i < from + count; i++) {
    const content = `${WORDS[i % WORDS.length]} (note ${i})`;
    const { memory_id } = await t.memory.writing.save({ content, tags: [`t${i % 3}`] });
    ids.push(memory_id);
    t.clock.advanceDays(0.3);
  }
  for (const id of ids.filter((_, i) => i % 4 === 0)) {
    await t.memory.writing.touch({ memory_id: id });
  }
  return ids;
}

async function answers(t: TestMemory, topK = 10) {
  const out = [];
  for (const query of QUERIES) out.push(await t.memory.recall.search({ query, top_k: topK }));
  out.push(await t.memory.recall.search({ query: 'note', tags: ['t1'], top_k: topK / 2 }));
  return out;
}

/** Opens the data dir `dir` again (a new process would), with its logger's lines. */
async function reopen(dir: string, sidecarMinLines = 0) {
  const log = recordingLogger();
  const t = await openTestMemory({}, dir, { logger: log.logger, sidecarMinLines });
  await t.opened.memory.recall.search({ query: 'warm up' });
  return { t, log };
}

/** A data dir with a sidecar written at close, and the answers a start from the log gives. */
async function prepared(dir: string, count = 60, topK = 10) {
  const first = await openTestMemory({}, dir, { sidecarMinLines: 0 });
  await seed(first, count);
  const expected = await answers(first, topK);
  await first.opened.close();
  assert.ok(fs.existsSync(path.join(dir, SIDECAR_FILE)), 'close wrote the sidecar');
  return { expected, now: first.clock.now };
}

const sidecarLines = (log: ReturnType<typeof recordingLogger>) =>
  log.entries().filter((e) => e.file === SIDECAR_FILE);

/**
 * Prepares `dir`, starts again from its sidecar (the words index too) and checks that the
 * answers are those of the start from the log; answers the new start, at the first's clock.
 */
async function answersFromSidecar(dir: string): Promise<TestMemory> {
  const { expected, now } = await prepared(dir);
  const { t: again, log } = await reopen(dir, 1_000_000);
  again.clock.now = now;
  const start = log.entries().find((e) => /started from memories.idx/.test(e.msg));
  assert.equal((start as { indexes?: number } | undefined)?.indexes, 1, 'the words index too');
  assert.deepEqual(await answers(again), expected);
  return again;
}

/**
 * A memory a search finds is opened by its id, and saving its words again is a repeat of it (found
 * by its content's hash): what the id and content tables answer.
 */
async function assertKnownByIdAndContent(t: TestMemory): Promise<void> {
  const [found] = (await t.memory.recall.search({ query: 'note 12' })).results;
  assert.ok(found);
  const opened = await t.memory.recall.open({ memory_ids: [found.memory_id] });
  assert.equal(opened.memories[0]?.id, found.memory_id, 'found by its id');
  const repeat = await t.memory.writing.save({ content: opened.memories[0]?.content ?? '' });
  assert.deepEqual([repeat.memory_id, repeat.deduplicated], [found.memory_id, true]);
}

describe('the sidecar (memories.idx)', () => {
  it('a start from it answers as a start from the log, and reads only the lines after it', async (t) => {
    const dir = testDir(t);
    const again = await answersFromSidecar(dir);
    // Written after the sidecar: found after the next start, which reads them from the log.
    const [late] = await seed(again, 1, 500);
    await again.opened.close();
    const { t: third, log: log3 } = await reopen(dir, 1_000_000);
    assert.ok(log3.entries().some((e) => /started from memories.idx/.test(e.msg)));
    const found = await third.memory.recall.search({ query: 'note 500' });
    assert.equal(found.results[0]?.memory_id, late);
    const opened = await third.memory.recall.open({ memory_ids: [late as string] });
    assert.match(opened.memories[0]?.content ?? '', /note 500/);
    await third.opened.close();
  });

  it('a start from it knows each memory by its id and its content at once (tables kept)', async (t) => {
    const dir = testDir(t);
    const again = await answersFromSidecar(dir);
    await assertKnownByIdAndContent(again);
    await again.opened.close();
  });

  it('tables in it that cannot be theirs are built again: the same answers, each memory found by id and content', async (t) => {
    const dir = testDir(t);
    const { expected, now } = await prepared(dir);
    const file = path.join(dir, SIDECAR_FILE);
    // Whole (the checksum made right) but every bucket naming the first value: each value twice.
    let header: HeaderJson = null;
    withHeader(file, (h) => {
      header = h;
      return h;
    });
    const columns = ((header as HeaderJson)?.columns ?? []) as { name: string; count: number }[];
    const counts = new Map(columns.map((c) => [c.name, c.count]));
    const spoil = (name: string) =>
      withColumn(file, name, (c) => {
        // The bytes given run on to the file's end: only the column's own buckets change.
        const count = counts.get(name) ?? 0;
        assert.ok(count >= 2048, `${name} is in the sidecar`);
        for (let j = 0; j < count; j += 2) c.writeInt32LE(1, 4 * j);
      });
    for (const name of ['store.slotTable1', 'l0.idTable1', 'l0.contentTable1']) spoil(name);
    const { t: again, log } = await reopen(dir);
    again.clock.now = now;
    assert.ok(
      log.entries().some((e) => /started from memories.idx/.test(e.msg)),
      'still used',
    );
    assert.deepEqual(await answers(again), expected);
    await assertKnownByIdAndContent(again);
    await again.opened.close();
  });

  for (const [fault, damage, why] of [
    ['deleted', (file: string) => fs.rmSync(file), /no memories\.idx/],
    [
      'truncated',
      (file: string) => fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2)),
      /bytes where its header says/,
    ],
    [
      'of another format',
      (file: string) => {
        const buf = fs.readFileSync(file);
        const at = buf.indexOf('"format":1');
        buf.write('"format":7', at);
        fs.writeFileSync(file, buf);
      },
      /format 7/,
    ],
    [
      'damaged inside',
      (file: string) => {
        const buf = fs.readFileSync(file);
        const at = buf.length - 9;
        buf[at] = (buf[at] as number) ^ 0xff;
        fs.writeFileSync(file, buf);
      },
      /checksum/,
    ],
    ['not a sidecar', (file: string) => fs.writeFileSync(file, 'hello\n'), /not a mnemo sidecar/],
    // A data dir synced from elsewhere may hold any header: the checksum covers the body only.
    ['a header that is null', (file: string) => withHeader(file, () => null), /header/],
    [
      'a column at an offset its type cannot start at',
      (file: string) => withHeader(file, (h) => columnsOf(h, (c) => ({ ...c, offset: 1 }))),
      /column/,
    ],
    [
      // Each column is read into a buffer of its own: two may not claim the same bytes.
      'columns that overlap',
      (file: string) => withHeader(file, (h) => columnsOf(h, (c) => ({ ...c, offset: 0 }))),
      /overlaps/,
    ],
    [
      'a column of a negative count',
      (file: string) => withHeader(file, (h) => columnsOf(h, (c) => ({ ...c, count: -1 }))),
      /column/,
    ],
    [
      'a point in the log of a negative size',
      (file: string) =>
        withHeader(file, (h) => ({ ...h, log: { ...(h?.log as object), size: -5 } })),
      /size/,
    ],
    [
      'columns that are no list',
      (file: string) => withHeader(file, (h) => ({ ...(h as object), columns: 5 })),
      /column/,
    ],
    [
      // A sidecar mnemo writes starts each column at the next multiple of 8 after the one before.
      'bytes left after its columns (checksum made right)',
      (file: string) => {
        const buf = fs.readFileSync(file);
        const start = (12 + buf.readUInt32LE(8) + 7) & ~7;
        const out = Buffer.concat([buf, Buffer.alloc(64)]);
        fs.writeFileSync(file, out);
        withHeader(file, (h) => ({ ...h, crc: zlib.crc32(out.subarray(start)) }));
      },
      /not laid out as written/,
    ],
    [
      'a memory whose line ends past the log',
      (file: string) => withColumn(file, 'store.lengths', (c) => c.writeInt32LE(2 ** 31 - 1, 0)),
      /could not be used/,
    ],
    [
      'a memory said to be kept whole (no line)',
      (file: string) => withColumn(file, 'store.lengths', (c) => c.writeInt32LE(-1, 4)),
      /could not be used/,
    ],
    [
      'a memory of a namespace it does not name',
      (file: string) => withColumn(file, 'store.ns', (c) => c.writeUInt8(9, 0)),
      /could not be used/,
    ],
    [
      'a term whose postings run past the index',
      (file: string) =>
        withColumn(file, 'l0.starts', (c) => {
          for (let i = 1; i < 40; i++) c.writeInt32LE(2 ** 31 - 2, 4 * i);
        }),
      /could not be used/,
    ],
    [
      'a posting of a document the index does not have',
      (file: string) => withColumn(file, 'l0.ordinals', (c) => c.writeInt32LE(1_000_000, 0)),
      /could not be used/,
    ],
    [
      'a posting that holds its term no time',
      (file: string) => withColumn(file, 'l0.tfs', (c) => c.writeUInt16LE(0, 2)),
      /could not be used/,
    ],
    [
      'a document of a memory the sidecar does not list',
      (file: string) => withColumn(file, 'l0.keys', (c) => c.writeInt32LE(1_000_000, 0)),
      /could not be used/,
    ],
  ] as const) {
    it(`${fault}: said in one line, the log read whole, the same answers, and it is written again`, async (t) => {
      const dir = testDir(t);
      const { expected, now } = await prepared(dir);
      const file = path.join(dir, SIDECAR_FILE);
      damage(file);
      const { t: again, log } = await reopen(dir);
      again.clock.now = now;
      const said = sidecarLines(log).filter((e) => why.test(e.msg));
      assert.equal(said.length, 1, `one line says why: ${JSON.stringify(sidecarLines(log))}`);
      assert.deepEqual(await answers(again), expected);
      await again.opened.close();
      const { log: log3 } = await reopen(dir);
      assert.ok(
        log3.entries().some((e) => /started from memories.idx/.test(e.msg)),
        'the next start uses the sidecar written again',
      );
    });
  }

  it('from another data dir: not used, and the answers are this dir’s', async (t) => {
    const dir = testDir(t);
    const other = testDir(t);
    const { expected, now } = await prepared(dir, 40);
    await prepared(other, 41);
    fs.copyFileSync(path.join(other, SIDECAR_FILE), path.join(dir, SIDECAR_FILE));
    const { t: again, log } = await reopen(dir);
    again.clock.now = now;
    assert.equal(
      sidecarLines(log).filter((e) => /not the log it was made from/.test(e.msg)).length,
      1,
    );
    assert.deepEqual(await answers(again), expected);
    await again.opened.close();
  });

  it('after a compaction by another process: not used', async (t) => {
    const dir = testDir(t);
    const { expected, now } = await prepared(dir, 60, 100);
    // Another process compacts: the same records, other offsets (here: the lines reversed).
    const log = path.join(dir, 'memories.jsonl');
    const lines = fs.readFileSync(log, 'utf8').trimEnd().split('\n');
    const live = new Map<string, string>();
    for (const line of lines) live.set(JSON.parse(line).id, line);
    fs.writeFileSync(`${log}.new`, `${[...live.values()].reverse().join('\n')}\n`);
    fs.renameSync(`${log}.new`, log);
    const { t: again, log: rec } = await reopen(dir);
    again.clock.now = now;
    assert.equal(sidecarLines(rec).filter((e) => /not the log/.test(e.msg)).length, 1);
    // Every match (no cut among equals): ties may order differently, the log's order changed.
    const hits = (a: typeof expected) =>
      a.map((r) => r.results.map((h) => `${h.memory_id} ${h.score}`).sort());
    assert.deepEqual(hits(await answers(again, 100)), hits(expected));
    await again.opened.close();
  });

  it("two processes started from it see each other's saves, touches and compaction", async (t) => {
    const dir = testDir(t);
    const { now } = await prepared(dir);
    const { t: a, log: logA } = await reopen(dir, 1_000_000);
    const { t: b } = await reopen(dir, 1_000_000);
    assert.ok(logA.entries().some((e) => /started from memories.idx/.test(e.msg)));
    a.clock.now = now;
    b.clock.now = now;
    const { memory_id: saved } = await b.memory.writing.save({ content: 'zebra crossing at noon' });
    assert.equal((await a.memory.recall.search({ query: 'zebra' })).results[0]?.memory_id, saved);
    await a.memory.writing.touch({ memory_id: saved });
    // B compacts: the log is replaced, every line moves; A reads the new one whole.
    assert.ok((b.store as JsonlStore).compactNow());
    const opened = await a.memory.recall.open({ memory_ids: [saved] });
    assert.equal(opened.memories[0]?.use_count, 1, "A's touch survived B's compaction");
    assert.equal(opened.memories[0]?.content, 'zebra crossing at noon');
    const kitten = await a.memory.recall.search({ query: 'kitten' });
    assert.ok(kitten.total > 0);
    await b.memory.writing.touch({ memory_id: saved });
    const again = await a.memory.recall.open({ memory_ids: [saved] });
    assert.equal(again.memories[0]?.use_count, 2);
    await a.opened.close();
    await b.opened.close();
  });

  it('with embeddings: a start from it keeps every vector (none computed again) and answers the same', async (t) => {
    const dir = testDir(t);
    const env = { MNEMO_EMBEDDINGS: 'static' };
    const first = await openTestMemory(env, dir, { sidecarMinLines: 0 });
    await seed(first, 40);
    await first.opened.semantic.reindex();
    const now = first.clock.now;
    await first.opened.close();
    // What a start from the log answers (the vectors read back from vectors.jsonl, as int8).
    const fromLog = testDir(t);
    for (const name of fs.readdirSync(dir)) {
      if (name !== SIDECAR_FILE)
        fs.cpSync(path.join(dir, name), path.join(fromLog, name), { recursive: true });
    }
    const reference = await openTestMemory(env, fromLog, { sidecarMinLines: 1_000_000 });
    reference.clock.now = now;
    await reference.opened.semantic.reindex();
    const expected = await answers(reference);
    await reference.opened.close();
    const log = recordingLogger();
    const again = await openTestMemory(env, dir, {
      logger: log.logger,
      sidecarMinLines: 1_000_000,
    });
    again.clock.now = now;
    await again.memory.recall.search({ query: 'warm up' });
    const start = log.entries().find((e) => /started from memories.idx/.test(e.msg));
    assert.equal((start as { indexes?: number } | undefined)?.indexes, 1);
    const { embedded } = await again.opened.semantic.reindex();
    assert.equal(embedded, 0, 'every vector was found by its text hash');
    assert.equal(again.opened.semantic.size, 40);
    assert.deepEqual(await answers(again), expected);
    // A memory saved now is embedded, its text read from its record.
    await again.memory.writing.save({ content: 'an owl hoots at midnight' });
    assert.equal((await again.opened.semantic.reindex()).embedded, 0, 'save embedded it');
    assert.equal(again.opened.semantic.size, 41);
    await again.opened.close();
  });

  it('is written after a load without close(), and another start uses it meanwhile', async (t) => {
    const dir = testDir(t);
    const { expected, now } = await prepared(dir);
    const file = path.join(dir, SIDECAR_FILE);
    fs.rmSync(file);
    const { t: first, log } = await reopen(dir, 0);
    await (first.store as JsonlStore).sidecarWritten();
    assert.ok(fs.existsSync(file), 'on disk with the store still open');
    assert.ok(log.entries().some((e) => /wrote memories.idx/.test(e.msg)));
    assert.deepEqual(
      fs.readdirSync(dir).filter((name) => name.endsWith('.tmp')),
      [],
      'no temp file left',
    );
    const { t: again, log: againLog } = await reopen(dir, 1_000_000);
    again.clock.now = now;
    assert.ok(againLog.entries().some((e) => /started from memories.idx/.test(e.msg)));
    assert.deepEqual(await answers(again), expected);
    await again.opened.close();
    await first.opened.close();
  });

  it('a write of it cut short leaves the one before, which is still used', async (t) => {
    const dir = testDir(t);
    const { expected, now } = await prepared(dir);
    const file = path.join(dir, SIDECAR_FILE);
    const before = fs.readFileSync(file);
    // Another start writes a new one and is killed before the rename: its temp file is left.
    fs.writeFileSync(`${file}.999999.tmp`, before.subarray(0, 100));
    const { t: again, log } = await reopen(dir, 1_000_000);
    again.clock.now = now;
    assert.ok(log.entries().some((e) => /started from memories.idx/.test(e.msg)));
    assert.deepEqual(await answers(again), expected);
    assert.ok(!fs.existsSync(`${file}.999999.tmp`), 'the temp file of a dead process is removed');
    await again.opened.close();
  });
  it("holds a promoted memory another process changed by its words now, not its note's old ones", async (t) => {
    const dir = testDir(t);
    // A process that promoted a memory: it searches it by its note (read when it promoted it).
    const a = await openTestMemory({}, dir, { watchVault: false, sidecarMinLines: 0 });
    const { memory_id } = await a.memory.writing.save({ content: 'the kitten sleeps on the rug' });
    await a.memory.promotion.promote({ memory_id, force: true });
    // Searched by its note from now on (what the vault index tells, a moment after).
    await a.opened.noteSync.flush();
    const ids = async (m: TestMemory, query: string) =>
      (await m.memory.recall.search({ query })).results.map((r) => r.memory_id);
    assert.deepEqual(await ids(a, 'kitten'), [memory_id]);
    // Another process on the same data dir and vault changes it: the log and the note say so.
    const b = await openTestMemory({}, dir, { watchVault: false, sidecarMinLines: 1e9 });
    const changed = await b.memory.editing.update({
      memory_id,
      content: 'the parrot sings in the garden',
    });
    assert.equal(changed.note?.body_updated, true, 'the note was rewritten');
    await b.opened.close();
    // The first one reads the change and stops cleanly: its sidecar is written.
    assert.deepEqual(await ids(a, 'parrot'), [memory_id]);
    assert.deepEqual(await ids(a, 'kitten'), []);
    await a.opened.close();
    // A start from that sidecar without the vault indexed (as `mnemo search` runs).
    const log = recordingLogger();
    const c = await openTestMemory({}, dir, {
      watchVault: false,
      sidecarMinLines: 1e9,
      logger: log.logger,
    });
    await c.memory.recall.search({ query: 'warm up' });
    assert.ok(log.entries().some((e) => /started from memories.idx/.test(e.msg)));
    assert.deepEqual(await ids(c, 'parrot'), [memory_id], 'found by its current words');
    assert.deepEqual(await ids(c, 'kitten'), [], 'not by its old ones');
    await c.opened.close();
  });

  it('keys each memory within its namespace: the default one saved after another answers the same from it', async (t) => {
    const dir = testDir(t);
    // Another namespace's memories first in the log, so the default one's come after them in
    // the sidecar's columns too.
    const work = await openTestMemory({ MNEMO_NAMESPACE: 'work' }, dir, { sidecarMinLines: 0 });
    await seed(work, 25);
    await work.opened.close();
    const again = await answersFromSidecar(dir);
    await again.opened.close();
  });
});
