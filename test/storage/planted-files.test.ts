import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readIfExists } from '../../src/platform/durable-file.js';
import { JOURNAL_FILE } from '../../src/storage/jsonl/journal.js';
import { SIDECAR_FILE } from '../../src/storage/sidecar.js';
import { openTestMemory, testDir } from '../support.js';

// Each of these used to open the name as it came: a FIFO there held the start (or the serve)
// for ever, a link was read wherever it led.
describe("files planted at the data dir's own names", () => {
  it('readIfExists refuses a FIFO at once and a link, and still reads a file', (t) => {
    const dir = testDir(t);
    const fifo = path.join(dir, 'gateway.json');
    execFileSync('mkfifo', [fifo]);
    fs.writeFileSync(path.join(dir, 'secret'), '{"servers":[]}');
    fs.symlinkSync(path.join(dir, 'secret'), path.join(dir, 'link.json'));
    assert.throws(() => readIfExists(fifo), { code: 'ENOTREG' });
    assert.throws(() => readIfExists(path.join(dir, 'link.json')), { code: 'ELOOP' });
    assert.throws(() => readIfExists(dir), { code: 'EISDIR' });
    assert.equal(readIfExists(path.join(dir, 'secret')), '{"servers":[]}');
    assert.equal(readIfExists(path.join(dir, 'missing')), undefined);
  });

  it('a FIFO at memories.idx is a sidecar that does not match: the start reads the log', async (t) => {
    const dir = testDir(t);
    const first = await openTestMemory({}, dir);
    const { memory_id } = await first.memory.writing.save({ content: 'kept through a restart' });
    await first.opened.close();
    fs.rmSync(path.join(dir, SIDECAR_FILE), { force: true });
    execFileSync('mkfifo', [path.join(dir, SIDECAR_FILE)]);
    const m = await openTestMemory({}, dir);
    t.after(() => m.close());
    const open = await m.memory.recall.open({ memory_ids: [memory_id] });
    assert.equal(open.memories[0]?.content, 'kept through a restart');
  });

  it('a FIFO at transaction.json is refused by name, never waited on', async (t) => {
    const dir = testDir(t);
    const first = await openTestMemory({}, dir);
    await first.memory.writing.save({ content: 'before' });
    await first.opened.close();
    execFileSync('mkfifo', [path.join(dir, JOURNAL_FILE)]);
    const m = await openTestMemory({}, dir);
    t.after(() => m.close());
    await assert.rejects(m.memory.writing.save({ content: 'after' }), /transaction\.json/);
  });

  it('a line of 64 MB in memories.jsonl: a bad line kept by its head, read and copied in proportion to its size', async (t) => {
    // Each 1 MB chunk copied the line read so far again: 3 s with the event loop held (SIGTERM
    // too) for 64 MB, minutes for 512 MB, and past 512 MB the start failed for good.
    const dir = testDir(t);
    const first = await openTestMemory({}, dir);
    const { memory_id } = await first.memory.writing.save({ content: 'kettle boils' });
    await first.opened.close();
    const log = path.join(dir, 'memories.jsonl');
    const long = `{"x":"${'a'.repeat(64 << 20)}"}`;
    fs.appendFileSync(log, `${long}\n${fs.readFileSync(log, 'utf8')}`);
    fs.appendFileSync(log, `{"torn":"${'b'.repeat(20 << 20)}`);
    fs.rmSync(path.join(dir, SIDECAR_FILE), { force: true });
    const size = fs.statSync(log).size;
    // What the start and a search read and copied, counted rather than timed: this build reads
    // 1.5 times the log and copies 0.6 of it; re-copying the line read so far at each chunk (up to
    // the 16 MB cap) copied 5.5 times it.
    let read = 0;
    let copied = 0;
    const readSync = fs.readSync;
    const concat = Buffer.concat;
    t.mock.method(fs, 'readSync', (...args: Parameters<typeof fs.readSync>) => {
      const n = readSync(...args);
      read += n;
      return n;
    });
    t.mock.method(Buffer, 'concat', (...args: Parameters<typeof Buffer.concat>) => {
      const joined = concat(...args);
      copied += joined.length;
      return joined;
    });
    const m = await openTestMemory({}, dir);
    t.after(() => m.close());
    const found = await m.memory.recall.search({ query: 'kettle' });
    t.mock.restoreAll();
    assert.equal(found.results[0]?.memory_id, memory_id);
    assert.ok(read <= 3 * size, `${read} bytes read from a log of ${size}`);
    assert.ok(copied <= size, `${copied} bytes copied for a log of ${size}`);
    const kept = fs.readFileSync(path.join(dir, 'quarantine.jsonl'), 'utf8');
    assert.ok(kept.length < 1 << 20, `the quarantine keeps heads: ${kept.length} bytes`);
    assert.ok(
      /a line of 67108872 bytes, over the 16777216-byte limit/.test(kept),
      'the size is said',
    );
    assert.ok(fs.statSync(log).size < 1 << 20, 'both are out of the log');
    await m.memory.writing.save({ content: 'written after' });
  });
});
