import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { JsonlStore } from '../../src/storage/jsonl/store.js';
import { type CliClient, makeTempDir, removeDir, startClient } from './helpers.js';

/** Saves kept in flight at once: every answer sends the next, so the kill lands mid-burst. */
const IN_FLIGHT = 300;
const KILL_AFTER = 100;

describe('mnemo stdio killed in the middle of a burst of saves', () => {
  const dir = makeTempDir();
  const clients: CliClient[] = [];
  after(async () => {
    await Promise.all(clients.map((c) => c.kill()));
    removeDir(dir);
  });

  const acknowledged = new Map<string, string>();

  it('is killed with SIGKILL while saves are still in flight', async (t) => {
    const first = await startClient(dir);
    clients.push(first);
    let killed = false;
    let sent = 0;
    const saves: Promise<void>[] = [];
    const send = () => {
      const i = sent++;
      const content = `crash burst memory ${i}: the word crashword${i} is unique to it`;
      const save = first.ok<{ memory_id: string }>('save_memory', { content, tags: ['crash'] });
      saves.push(
        save.then(({ memory_id }) => {
          acknowledged.set(memory_id, content);
          if (killed) return;
          if (acknowledged.size >= KILL_AFTER) {
            killed = true;
            process.kill(first.pid, 'SIGKILL');
          } else {
            send();
          }
        }),
      );
    };
    for (let i = 0; i < IN_FLIGHT; i++) send();
    // `saves` grows while the first ones settle; wait until no new save was started.
    for (let settled = 0; settled < saves.length; ) {
      const batch = saves.slice(settled);
      await Promise.allSettled(batch);
      settled += batch.length;
    }
    await first.exited;
    const results = await Promise.allSettled(saves);
    const failures = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
    const failed = failures.length;
    for (const f of failures) assert.match(f, /connection closed/i, 'cut off, not refused');
    t.diagnostic(
      `${sent} saves sent, ${acknowledged.size} answered, ${failed} cut off by the kill`,
    );
    assert.ok(killed, 'killed during the burst');
    assert.ok(acknowledged.size >= KILL_AFTER);
    assert.ok(failed > 0, 'some saves were still in flight at the kill');
    assert.equal(acknowledged.size + failed, sent);
  });

  it('starts again on the same data dir, and every answered save is there', async (t) => {
    const started = performance.now();
    const second = await startClient(dir);
    clients.push(second);
    const ids = [...acknowledged.keys()];
    for (let i = 0; i < ids.length; i += 100) {
      const opened = await second.ok<{
        memories: { id: string; content: string }[];
        not_found: string[];
      }>('open_memories', { memory_ids: ids.slice(i, i + 100) });
      assert.deepEqual(opened.not_found, []);
      for (const m of opened.memories) assert.equal(m.content, acknowledged.get(m.id));
    }
    // The new process writes too (after taking over the lock the killed one may have left).
    const after = await second.ok<{ memory_id: string }>('save_memory', {
      content: 'written after the crash',
    });
    t.diagnostic(
      `second start, reads and a save took ${Math.round(performance.now() - started)} ms`,
    );
    // The search index was rebuilt from the log: an answered save is found by its own word.
    const [someId, someContent] = [...acknowledged][0] ?? ['', ''];
    const word = /crashword\d+/.exec(someContent)?.[0];
    const found = await second.ok<{ results: { memory_id: string }[]; total: number }>(
      'search_memory',
      { query: word },
    );
    assert.equal(found.total, 1);
    assert.equal(found.results[0]?.memory_id, someId);
    await second.close();
    assert.equal(second.stderr().match(/"level":(50|60)/), null, second.stderr());

    const store = await JsonlStore.open({
      dataDir: dir,
      logger: pino({ level: 'silent' }),
      clock: () => Math.floor(Date.now() / 1000),
    });
    try {
      for (const [id, content] of acknowledged) {
        assert.equal(store.memories.get(id)?.content, content, id);
      }
      assert.equal(store.memories.get(after.memory_id)?.content, 'written after the crash');
    } finally {
      store.close();
    }
  });
});
