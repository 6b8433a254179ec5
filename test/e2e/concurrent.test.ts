import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { JsonlStore } from '../../src/storage/jsonl/store.js';
import { type CliClient, makeTempDir, removeDir, startClient } from './helpers.js';

const PER_PROCESS = 100;

interface Saved {
  id: string;
  word: string;
  content: string;
}

describe('two mnemo stdio processes on one data dir', () => {
  const dir = makeTempDir();
  const clients: CliClient[] = [];
  after(async () => {
    await Promise.all(clients.map((c) => c.kill()));
    removeDir(dir);
  });

  it('save at once, lose nothing, and find each other’s memories', async (t) => {
    const [one, two] = await Promise.all([startClient(dir), startClient(dir)]);
    clients.push(one, two);

    const saveAll = (client: CliClient, name: string) =>
      Promise.all(
        Array.from({ length: PER_PROCESS }, async (_, i): Promise<Saved> => {
          const word = `${name}word${i}`;
          const content = `Saved by process ${name}, number ${i}; its own word is ${word}.`;
          const saved = await client.ok<{ memory_id: string; deduplicated: boolean }>(
            'save_memory',
            { content, tags: [name] },
          );
          assert.equal(saved.deduplicated, false);
          return { id: saved.memory_id, word, content };
        }),
      );
    const [byOne, byTwo] = await Promise.all([saveAll(one, 'one'), saveAll(two, 'two')]);
    assert.equal(new Set([...byOne, ...byTwo].map((s) => s.id)).size, 2 * PER_PROCESS);

    for (const [searcher, saved] of [
      [one, byTwo],
      [two, byOne],
    ] as const) {
      for (const s of saved) {
        const found = await searcher.ok<{
          results: { memory_id: string; content: string }[];
          total: number;
        }>('search_memory', { query: s.word });
        assert.equal(found.total, 1, `${s.word} matches one memory`);
        assert.deepEqual(
          found.results.map((r) => [r.memory_id, r.content]),
          [[s.id, s.content]],
        );
      }
    }

    const stats = await one.ok<{ total: number }>('memory_stats');
    assert.equal(stats.total, 2 * PER_PROCESS);
    await Promise.all([one.close(), two.close()]);
    for (const c of [one, two]) assert.doesNotMatch(c.stderr(), /"level":(50|60)/);

    const store = await JsonlStore.open({
      dataDir: dir,
      logger: pino({ level: 'silent' }),
      clock: () => Math.floor(Date.now() / 1000),
    });
    try {
      assert.equal(store.memories.size, 2 * PER_PROCESS);
      const writers = [...store.memories.values()].map((r) => r.meta.tags[0]);
      const turns = writers.filter((w, i) => i > 0 && w !== writers[i - 1]).length;
      t.diagnostic(`the log switches between the two writers ${turns} times`);
      for (const s of [...byOne, ...byTwo]) {
        assert.equal(store.memories.get(s.id)?.content, s.content);
      }
    } finally {
      store.close();
    }
  });
});
