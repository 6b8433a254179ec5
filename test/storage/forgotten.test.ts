// forgotten.jsonl grows with every namespace's deletions: reading it back (restore, export,
// import) must not hold the event loop for as long as the file is large.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import pino from 'pino';
import { FILES, JsonlStore } from '../../src/storage/jsonl/store.js';
import { newMemoryRecord, storedShape } from '../../src/storage/records.js';
import { T0, testDir } from '../support.js';
import { turnCounter } from '../turns.js';

/** Bytes read from files while `work` ran, and the most of them read in one turn of the loop. */
async function bytesPerTurn<T>(
  t: TestContext,
  work: () => Promise<T>,
): Promise<{ result: T; bytes: number; most: number }> {
  const turns = turnCounter();
  let bytes = 0;
  const readSync = fs.readSync;
  const counting = t.mock.method(fs, 'readSync', (...args: Parameters<typeof fs.readSync>) => {
    const n = readSync(...args);
    bytes += n;
    turns.record(n);
    return n;
  });
  try {
    return { result: await work(), bytes, most: turns.most() };
  } finally {
    turns.stop();
    counting.mock.restore();
  }
}

describe('forgotten copies', () => {
  it("a restore's look-up in 40 MB of another namespace's forgotten copies reads them a slice a turn, and once", async (t) => {
    const dir = testDir(t);
    const content = 'x'.repeat(2_000);
    const lines: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const record = newMemoryRecord(`gone-${i}`, `${i} ${content}`, T0);
      lines.push(
        JSON.stringify({
          ...(storedShape(record) as object),
          namespace: 'alice',
          forgotten_at: T0,
        }),
      );
    }
    const mine = newMemoryRecord('mine', 'a memory of the default namespace', T0);
    lines.push(JSON.stringify({ ...(storedShape(mine) as object), forgotten_at: T0 }));
    fs.writeFileSync(path.join(dir, FILES.forgotten), `${lines.join('\n')}\n`);
    const store = await JsonlStore.open({
      dataDir: dir,
      logger: pino({ level: 'silent' }),
      clock: () => T0,
    });
    t.after(() => store.close());

    const first = await bytesPerTurn(t, () => store.findForgotten('nobody'));
    assert.equal(first.result, undefined);
    assert.ok(first.bytes > 40_000_000, `the first look-up read ${first.bytes} bytes`);
    // A slice of 256 KB, past which the 1 MB chunk that ends it is still read: read whole, the
    // 40 MB held the loop for as long as they took to parse.
    assert.ok(first.most <= (1 << 20) + (256 << 10), `${first.most} bytes read in one turn`);
    const again = await bytesPerTurn(t, () => store.findForgotten('mine'));
    assert.equal(again.result?.content, 'a memory of the default namespace');
    assert.ok(again.bytes < 4096, `a later look-up read ${again.bytes} bytes, not the file again`);
    assert.equal(
      await store.findForgotten('gone-7'),
      undefined,
      "alice's copy is not the default's",
    );
    assert.equal(
      (await store.namespace('alice').findForgotten('gone-7'))?.content.slice(0, 2),
      '7 ',
    );
  });

  it('sees what is appended after the first read, and a copy forgotten again replaces the older one', async (t) => {
    const dir = testDir(t);
    const store = await JsonlStore.open({
      dataDir: dir,
      logger: pino({ level: 'silent' }),
      clock: () => T0,
    });
    t.after(() => store.close());
    assert.equal(await store.findForgotten('a'), undefined);
    const a = newMemoryRecord('a', 'first text', T0);
    await store.transact(() => ({ result: null, memories: [a] }));
    await store.transact(() => ({ result: null, forgotten: [a], deletes: ['a'] }));
    assert.equal((await store.findForgotten('a'))?.content, 'first text');
    const b = { ...a, content: 'second text' };
    await store.transact(() => ({ result: null, memories: [b] }));
    await store.transact(() => ({ result: null, forgotten: [b], deletes: ['a'] }));
    assert.equal((await store.findForgotten('a'))?.content, 'second text');
    assert.deepEqual(
      (await store.forgottenRecords()).map((r) => r.content),
      ['second text'],
    );
  });
});
