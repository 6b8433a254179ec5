import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { FILES } from '../../src/storage/jsonl/store.js';
import { errorText, openTestClient, tempDir } from '../support.js';

describe('tools while another process holds the data dir lock at start', () => {
  it('answer that the data dir is busy, then work once it is free', async (t) => {
    const dir = tempDir();
    const lockPath = path.join(dir, FILES.lock);
    fs.mkdirSync(lockPath);
    // The test runner's parent stands in for a `mnemo promote --apply` in another terminal.
    fs.writeFileSync(
      path.join(lockPath, 'owner'),
      JSON.stringify({ pid: process.ppid, host: os.hostname(), token: 'promote' }),
    );
    const c = await openTestClient({}, { dir, lockWaitMs: 100 });
    t.after(() => c.close());

    const calls: [string, Record<string, unknown>][] = [
      ['search_memory', { query: 'anything' }],
      ['save_memory', { content: 'a note' }],
    ];
    for (const [name, args] of calls) {
      const result = await c.call(name, args);
      assert.equal(result.isError, true, name);
      const text = errorText(result);
      // The data dir and its lock are the operator's to see (mnemo's CLI names them), not a
      // remote caller's.
      assert.match(text, /^the data dir \(LockTimeoutError\): .*busy; retry in a moment/, name);
      assert.ok(!text.includes(dir), name);
    }

    fs.rmSync(lockPath, { recursive: true });
    const saved = await c.ok<{ memory_id: string }>('save_memory', { content: 'after the wait' });
    const found = await c.ok<{ results: { memory_id: string }[] }>('search_memory', {
      query: 'wait',
    });
    assert.deepEqual(
      found.results.map((r) => r.memory_id),
      [saved.memory_id],
    );
  });
});
