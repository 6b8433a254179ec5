// forgotten.jsonl grows with every namespace's deletions: reading it back (restore, export,
// import) must not hold the event loop for as long as the file is large.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import pino from 'pino';
import { newMemoryRecord, storedShape } from '../../src/storage/records.js';
import { FILES, JsonlStore } from '../../src/storage/store.js';
import { T0, testDir } from '../support.js';

/** The longest the event loop went without a turn while `work` ran, in ms. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  let longest = 0;
  let done = false;
  const ticking = (async () => {
    let last = performance.now();
    while (!done) {
      await setImmediate();
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }
  })();
  const result = await work();
  done = true;
  await ticking;
  return { result, ms: longest };
}

describe('forgotten copies', () => {
  it("a restore's look-up in 40 MB of another namespace's forgotten copies never holds the event loop 100 ms", async (t) => {
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

    const first = await longestStall(() => store.findForgotten('nobody'));
    assert.equal(first.result, undefined);
    t.diagnostic(`stall ${Math.round(first.ms)}`);
    assert.ok(first.ms < 100, `the first look-up held the loop ${Math.round(first.ms)} ms`);
    const again = await longestStall(() => store.findForgotten('mine'));
    assert.equal(again.result?.content, 'a memory of the default namespace');
    assert.ok(again.ms < 20, `a later look-up held the loop ${Math.round(again.ms)} ms`);
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
