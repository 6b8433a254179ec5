// The neighbour window: sessions kept by (source, context) in time order, memories of no session
// by time alone, the index kept in step with the engine's changes on both engines, and each
// namespace's neighbours its own.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { openMemory } from '../../src/app/memory.js';
import { loadConfig } from '../../src/config/index.js';
import { NeighbourIndex } from '../../src/memory/neighbour-index.js';
import { NO_SESSION_WINDOW, neighboursOf } from '../../src/memory/neighbours.js';
import type { ChangeWatcher, StorageEngine } from '../../src/storage/engine.js';
import type { MemoryRecord } from '../../src/storage/records.js';
import {
  ENGINES,
  engineAbsent,
  eventually,
  openTestMemory,
  TestClock,
  testDir,
} from '../support.js';
import { pgSchema } from '../support-pg.js';

const NOW = Date.UTC(2025, 10, 15, 12) / 1000;
const HOUR = 3600;

function memory(
  id: string,
  created: number,
  source: string | null = 'chat',
  context: string | null = 's1',
): MemoryRecord {
  return {
    id,
    content: `what was said in ${id}`,
    created_at: created,
    status: 'active',
    meta: { tags: [], source, context, extra: {} },
  } as unknown as MemoryRecord;
}

const offsets = (found: { memory_id: string; offset: number }[] | undefined) =>
  found?.map((n) => [n.memory_id, n.offset]);

describe('neighbours of memories with no source and no context', () => {
  it('are the memories that have neither either, within the time window only', () => {
    const loose = [
      memory('a', NOW - NO_SESSION_WINDOW - 1, null, null),
      memory('b', NOW - HOUR, null, ''),
      memory('c', NOW, null, null),
      memory('d', NOW + 2 * HOUR, null, null),
      memory('e', NOW + NO_SESSION_WINDOW + HOUR, null, null),
    ];
    const other = [memory('s', NOW + 60, 'chat', null), memory('t', NOW - 60, null, 'ctx')];
    const got = neighboursOf([loose[2] as MemoryRecord], [...loose, ...other], 5).get('c');
    assert.deepEqual(offsets(got), [
      ['b', -1],
      ['d', 1],
    ]);
    // A source alone is still a session: no window.
    const far = [memory('x', NOW, 'chat', null), memory('y', NOW + 30 * 86_400, 'chat', null)];
    assert.deepEqual(offsets(neighboursOf([far[0] as MemoryRecord], far, 1).get('x')), [['y', 1]]);
  });
});

/** An engine of a map, telling its watchers of what a test changes, counting full reads. */
function fakeEngine(records: MemoryRecord[]) {
  const map = new Map(records.map((r) => [r.id, r]));
  let fullReads = 0;
  const watchers = new Set<ChangeWatcher>();
  const memories = {
    get: (id: string) => map.get(id),
    has: (id: string) => map.has(id),
    values: () => {
      fullReads++;
      return map.values();
    },
  };
  return {
    engine: {
      memories,
      watch(w: ChangeWatcher) {
        watchers.add(w);
        return () => watchers.delete(w);
      },
    } as unknown as StorageEngine,
    put(record: MemoryRecord) {
      map.set(record.id, record);
      for (const w of watchers) w.changed(record.id);
    },
    drop(id: string) {
      map.delete(id);
      for (const w of watchers) w.changed(id);
    },
    reset() {
      for (const w of watchers) w.reset();
    },
    fullReads: () => fullReads,
  };
}

describe('the neighbour index', () => {
  it('reads every memory once, then follows the changes it is told of', () => {
    const session = [0, 1, 2, 3].map((k) => memory(`m${k}`, NOW + k * 60));
    const fake = fakeEngine([...session, memory('z', NOW, 'mail', 's9')]);
    const index = new NeighbourIndex(fake.engine);
    const m2 = session[2] as MemoryRecord;
    assert.deepEqual(offsets(index.around([m2], 1).get('m2')), [
      ['m1', -1],
      ['m3', 1],
    ]);
    // A memory saved between m2 and m3, one removed, one archived.
    fake.put(memory('n', NOW + 150));
    fake.drop('m1');
    assert.deepEqual(offsets(index.around([m2], 1).get('m2')), [
      ['m0', -1],
      ['n', 1],
    ]);
    fake.put({ ...memory('n', NOW + 150), status: 'archived' });
    assert.deepEqual(offsets(index.around([m2], 1).get('m2')), [
      ['m0', -1],
      ['m3', 1],
    ]);
    assert.equal(fake.fullReads(), 1, 'built once, then kept in step');
    fake.reset();
    index.around([m2], 1);
    assert.equal(fake.fullReads(), 2, 'a reset builds it again');
    index.close();
  });
});

for (const engine of ENGINES) {
  describe(`neighbours through the use cases (${engine})`, {
    skip: await engineAbsent(engine),
  }, () => {
    it('follows saves and deletes, and keeps each namespace to its own', async (t) => {
      const m = await openTestMemory({}, undefined, { engine });
      t.after(() => m.close());
      const work = m.opened.memoryFor('work');
      const meta = { source: 'chat', context: 'trip planning' };
      const saveTurns = async (memory: typeof work, words: string[]) => {
        const ids: string[] = [];
        for (const w of words) {
          m.clock.now += 60;
          ids.push(
            (await memory.writing.save({ content: `We talked about ${w}.`, ...meta })).memory_id,
          );
        }
        return ids;
      };
      const home = await saveTurns(m.memory, ['trains', 'hotels', 'museums']);
      const [w1, w2, w3] = await saveTurns(work, ['budgets', 'flights', 'visas']);
      const openOne = async (memory: typeof work, id: string, n = 1) =>
        (await memory.recall.open({ memory_ids: [id], neighbours: n })).memories[0]?.neighbours;
      assert.deepEqual(offsets(await openOne(work, w2 as string)), [
        [w1, -1],
        [w3, 1],
      ]);
      assert.deepEqual(
        offsets(await openOne(m.memory, home[1] as string)),
        [
          [home[0], -1],
          [home[2], 1],
        ],
        'the same source and context in another namespace are not neighbours',
      );

      // Written after the index was built: a new turn, one deleted.
      const [w4] = await saveTurns(work, ['insurance']);
      await work.forgetting.delete({ memory_id: w2 as string });
      assert.deepEqual(offsets(await openOne(work, w3 as string)), [
        [w1, -1],
        [w4, 1],
      ]);
      const found = await work.recall.search({ query: 'visas', neighbours: 1 });
      const hit = found.results.find((r) => r.memory_id === w3);
      assert.deepEqual(offsets(hit?.neighbours), [
        [w1, -1],
        [w4, 1],
      ]);
      const unified = await work.recall.searchUnified({ query: 'visas', neighbours: 1 });
      assert.deepEqual(offsets(unified.results[0]?.neighbours), [
        [w1, -1],
        [w4, 1],
      ]);
    });

    it('memories without source or context: neighbours by time within the window', async (t) => {
      const m = await openTestMemory({}, undefined, { engine });
      t.after(() => m.close());
      const a = await m.memory.writing.save({ content: 'The boiler was serviced.' });
      m.clock.now += HOUR;
      const b = await m.memory.writing.save({ content: 'The plumber left a bill.' });
      m.clock.now += NO_SESSION_WINDOW + HOUR;
      const c = await m.memory.writing.save({ content: 'The garden needs water.' });
      const opened = await m.memory.recall.open({
        memory_ids: [b.memory_id, c.memory_id],
        neighbours: 2,
      });
      assert.deepEqual(offsets(opened.memories[0]?.neighbours), [[a.memory_id, -1]]);
      assert.deepEqual(opened.memories[1]?.neighbours, [], 'too long after to be a neighbour');
    });
  });
}

describe('neighbours on two replicas of one database (PostgreSQL)', () => {
  it("a replica's index follows what the other one saves", async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const clock = new TestClock();
    const open = () => {
      const dir = testDir(t);
      const config = loadConfig({
        env: { MNEMO_EMBEDDINGS: 'off', MNEMO_DATA_DIR: dir, MNEMO_DATABASE_URL: db.url },
        home: dir,
      });
      const opened = openMemory(config, { logger: pino({ level: 'silent' }), clock: clock.read });
      t.after(() => opened.close());
      return opened;
    };
    const a = open();
    const b = open();
    await Promise.all([a.connected, b.connected]);
    await Promise.all([a.readiness.wait('store'), b.readiness.wait('store')]);
    const meta = { source: 'chat', context: 'moving house' };
    const first = await a.memory.writing.save({ content: 'Boxes are in the garage.', ...meta });
    clock.now += 60;
    const second = await a.memory.writing.save({ content: 'The van comes at nine.', ...meta });
    const around = async (id: string) => {
      const opened = await b.memory.recall.open({ memory_ids: [id], neighbours: 1 });
      return offsets(opened.memories[0]?.neighbours);
    };
    await eventually(() => b.store.memories.has(second.memory_id), 'b hears of both');
    assert.deepEqual(await around(first.memory_id), [[second.memory_id, 1]]);
    // Saved on a after b built its index: b hears of it and places it.
    clock.now -= 30;
    const between = await a.memory.writing.save({ content: 'Keys go to Sam.', ...meta });
    await eventually(() => b.store.memories.has(between.memory_id), 'b hears of the third');
    assert.deepEqual(await around(first.memory_id), [[between.memory_id, 1]]);
  });
});
