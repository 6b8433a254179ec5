import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { SIDECAR_FILE } from '../../src/storage/sidecar.js';
import { openTestMemory, testDir } from '../support.js';

/** Appends `{"x":"aaa…"}` of `mb` MB and a line end to `file`, a megabyte at a time. */
function appendLongLine(file: string, mb: number): void {
  const fd = fs.openSync(file, 'a');
  try {
    fs.writeSync(fd, '{"x":"');
    const piece = Buffer.alloc(1 << 20, 'a');
    for (let i = 0; i < mb; i++) fs.writeSync(fd, piece);
    fs.writeSync(fd, '"}\n');
  } finally {
    fs.closeSync(fd);
  }
}

// The first read of a long log runs on two threads; the worker reading ahead sent a chunk every
// 16 MB of a line past the cap, filled its window of 8 inside a line of 256 MB and waited for the
// main thread, which waited for it: the start never ended (no CPU, no timer).
describe('lines far past the 16 MB cap in memories.jsonl', () => {
  for (const mb of [256, 511]) {
    it(`a line of ${mb} MB between memories: the start ends and finds those on both sides`, async (t) => {
      const dir = testDir(t);
      const first = await openTestMemory({}, dir);
      const before = await first.memory.writing.save({ content: 'kettle boils before' });
      const after = await first.memory.writing.save({ content: 'teapot whistles after' });
      await first.opened.close();
      // The long line goes between the two memories' lines.
      const log = path.join(dir, 'memories.jsonl');
      const lines = fs.readFileSync(log, 'utf8').split('\n').filter(Boolean);
      const at = lines.findIndex((line) => line.includes('teapot'));
      assert.ok(at > 0, 'the second memory has its own line');
      fs.writeFileSync(log, `${lines.slice(0, at).join('\n')}\n`);
      appendLongLine(log, mb);
      fs.appendFileSync(log, `${lines.slice(at).join('\n')}\n`);
      // The next start reads the log alone, with the worker ahead of it.
      fs.rmSync(path.join(dir, SIDECAR_FILE), { force: true });
      const m = await openTestMemory({}, dir);
      t.after(() => m.close());
      const kettle = await m.memory.recall.search({ query: 'kettle' });
      assert.equal(kettle.results[0]?.memory_id, before.memory_id);
      const teapot = await m.memory.recall.search({ query: 'teapot' });
      assert.equal(teapot.results[0]?.memory_id, after.memory_id);
      const kept = fs.readFileSync(path.join(dir, 'quarantine.jsonl'), 'utf8');
      assert.ok(kept.length < 1 << 20, `the quarantine keeps the head: ${kept.length} bytes`);
      assert.ok(fs.statSync(log).size < 1 << 20, 'the long line is out of the log');
    });
  }
});
