import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readIfExists } from '../../src/platform/durable-file.js';
import { JOURNAL_FILE } from '../../src/storage/journal.js';
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
});
