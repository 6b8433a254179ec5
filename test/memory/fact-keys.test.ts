import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, mock } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import fc from 'fast-check';
import { writeMnemoStore } from '../../bench/lib/stores.js';
import type { MemoryContext } from '../../src/memory/context.js';
import { factsOf } from '../../src/memory/facts/extract.js';
import { FactKeys, lookupKeys, storedKeys } from '../../src/memory/facts/fact-keys.js';
import { judgeFacts } from '../../src/memory/facts/judge.js';
import { factKeysOf } from '../../src/memory/facts/links.js';
import type { Memory } from '../../src/memory/index.js';
import type { JsonlStore } from '../../src/storage/jsonl/store.js';
import type { MemoryRecord, MemoryStatus } from '../../src/storage/records.js';
import { newMemoryRecord } from '../../src/storage/records.js';
import { ENGINES, engineAbsent, openTestMemory, tempDir } from '../support.js';

const LIVE: readonly MemoryStatus[] = ['active', 'promoted'];

/** Whether a memory of `old` is found by the keys the facts of `next` look up. */
const found = (old: string, next: string) => {
  const stored = new Set(storedKeys(old));
  return lookupKeys(next, factsOf(next)).some((key) => stored.has(key));
};

/** A FactKeys over `records`, its calls' stamp moved by the test. */
function keysOver(records: MemoryRecord[], newest?: number) {
  const memories = new Map(records.map((r) => [r.id, r]));
  const calls = { stamp: 0, reads: 0 };
  const keys = new FactKeys(
    {
      memories,
      read: (id) => {
        calls.reads++;
        return memories.get(id);
      },
      newest: (n) => [...memories.keys()].slice(-n),
      stamp: () => String(calls.stamp),
    },
    1000,
    newest,
  );
  return { keys, memories, calls };
}

const record = (id: string, content: string, status: MemoryStatus = 'active') => ({
  ...newMemoryRecord(id, content, 1_700_000_000),
  status,
});

describe('fact keys: the memories a new fact may change, whatever their words', () => {
  it('keys a fact by its subject and kind, and a kind held many at once by its value too', () => {
    assert.ok(found('I live in New York.', 'I moved to Berlin.'));
    assert.ok(found('I work at Bosch.', 'I have a new job at Microsoft.'));
    assert.ok(found('My dog is called Biscuit.', 'My dog is named Luna.'));
    assert.ok(found('Caroline lives in Boston.', 'Caroline moved to Denver.'));
    assert.ok(found('I love hiking.', 'I hate hiking.'));
    assert.ok(!found('I love hiking.', 'I love chess.'));
    assert.ok(!found('Caroline lives in Boston.', 'Melanie moved to Denver.'));
    // A history is not what a new fact changes.
    assert.ok(!found('I lived in Oslo as a kid.', 'I moved to Berlin.'));
  });

  it('keeps "I" of one transcript speaker apart from another, and of several apart from all', () => {
    assert.ok(found('Caroline: I live in Boston.', 'Caroline: I moved to Denver.'));
    assert.ok(!found('Caroline: I live in Boston.', 'Melanie: I moved to Denver.'));
    assert.ok(!found('I live in Boston.', 'Melanie: I moved to Denver.'));
    assert.deepEqual(storedKeys('Caroline: Hi there! Melanie: I live in Boston.'), []);
    assert.equal(storedKeys('Caroline: I live in Boston.').length, 1);
    // A label past what the facts are read from names no speaker of them.
    assert.equal(storedKeys(`I live in Boston. ${'And so on. '.repeat(200)}Bob: hi`).length, 1);
  });

  it('finds the newest live memories under a key, up to the limit, and reads changes first', () => {
    const { keys, memories } = keysOver([
      record('a', 'I live in Oslo.'),
      record('b', 'I live in Rome.', 'archived'),
      record('c', 'I live in Lima.'),
      record('d', 'The weather is nice.'),
      record('e', 'I live in Kyiv.'),
    ]);
    const wanted = lookupKeys('I moved to Berlin.', factsOf('I moved to Berlin.'));
    assert.deepEqual(keys.lookup(wanted, 2, LIVE), ['e', 'c']);
    assert.deepEqual(keys.lookup(wanted, 5, LIVE), ['e', 'c', 'a']);
    // A change after the first lookup is read at the next one.
    memories.set('f', record('f', 'I am based in Quito.'));
    keys.changed('f');
    memories.delete('e');
    keys.changed('e');
    assert.deepEqual(keys.lookup(wanted, 2, LIVE), ['f', 'c']);
    keys.reset();
    memories.clear();
    assert.deepEqual(keys.lookup(wanted, 2, LIVE), []);
    keys.stop();
  });

  it('lets go of everything once every memory is gone (a namespace let go of), and starts anew', () => {
    const { keys, memories } = keysOver([record('a', 'I live in Oslo.'), record('b', 'Hello.')]);
    const wanted = lookupKeys('I moved to Lima.', factsOf('I moved to Lima.'));
    assert.deepEqual(keys.lookup(wanted, 5, LIVE), ['a']);
    for (const id of ['a', 'b']) {
      memories.delete(id);
      keys.changed(id);
    }
    assert.deepEqual(keys.lookup(wanted, 5, LIVE), []);
    assert.equal(keys.pending, 0);
    assert.equal(
      keys.persisted?.save(() => 0),
      undefined,
      'nothing kept',
    );
    // Held again: listed anew at the next lookup.
    memories.set('a', record('a', 'I live in Oslo.'));
    keys.changed('a');
    assert.deepEqual(keys.lookup(wanted, 5, LIVE), ['a']);
    keys.stop();
  });

  it('reads the newest memories only, up to its bound', () => {
    const { keys } = keysOver(
      [record('a', 'I live in Oslo.'), record('b', 'I live in Rome.'), record('c', 'Hello.')],
      2,
    );
    keys.fillAll();
    assert.equal(keys.pending, 0);
    const wanted = lookupKeys('I moved to Lima.', factsOf('I moved to Lima.'));
    assert.deepEqual(keys.lookup(wanted, 5, LIVE), ['b']);
  });

  it('stops with the store, and a record it cannot read stops it without an error', () => {
    mock.timers.enable({ apis: ['setInterval', 'setTimeout'] });
    try {
      const records = Array.from({ length: 40 }, (_, i) => record(`m${i}`, `I live in Town${i}.`));
      const closed = keysOver(records);
      const stop = closed.keys.persisted?.loaded?.(() => {});
      assert.equal(closed.keys.pending, 40);
      stop?.();
      mock.timers.tick(5000);
      mock.timers.runAll();
      assert.equal(closed.calls.reads, 0, 'nothing read once the store closed');

      const { keys, memories } = keysOver(records);
      const read = { count: 0 };
      const failing = new FactKeys(
        {
          memories,
          read: () => {
            if (++read.count > 10) throw new Error('memories.jsonl is closed');
            return records[0];
          },
          newest: (n) => [...memories.keys()].slice(-n),
          stamp: () => '0',
        },
        1000,
      );
      failing.persisted?.loaded?.(() => {});
      mock.timers.tick(1000);
      mock.timers.runAll();
      assert.equal(failing.pending, 30, 'the ten read, the rest left');
      keys.stop();
      failing.stop();
    } finally {
      mock.timers.reset();
    }
  });

  it('fills in behind the calls: only once they have rested, and never while one comes', () => {
    mock.timers.enable({ apis: ['setInterval', 'setTimeout'] });
    try {
      const records = Array.from({ length: 5000 }, (_, i) => record(`m${i}`, `I live in T${i}.`));
      const { keys, calls } = keysOver(records);
      // The first lookup lists the memories (more than it reads at once), and they wait for
      // the calls to rest.
      keys.lookup([], 1, LIVE);
      assert.equal(calls.reads, 0);
      assert.equal(keys.pending, 5000);
      calls.stamp++;
      mock.timers.tick(1000);
      assert.equal(calls.reads, 0, 'a call came within the second: nothing read');
      mock.timers.tick(1000);
      mock.timers.runAll();
      assert.equal(keys.pending, 0);
      assert.equal(calls.reads, 5000);
      keys.stop();
    } finally {
      mock.timers.reset();
    }
  });
});

for (const engine of ENGINES) {
  describe(`fact keys on save (${engine})`, { skip: await engineAbsent(engine) }, () => {
    it('an update that shares no word with the memory it changes supersedes it', async (t) => {
      const m = await openTestMemory({}, undefined, { engine, judgeFacts });
      t.after(() => m.close());
      const york = await m.memory.writing.save({ content: 'I live in New York.' });
      for (let i = 0; i < 30; i++) {
        await m.memory.writing.save({ content: `The parcel moved to shelf ${i} in Berlin.` });
      }
      m.clock.advanceDays(30);
      const berlin = await m.memory.writing.save({ content: 'I moved to Berlin.' });
      assert.deepEqual(
        berlin.supersedes.map((s) => s.memory_id),
        [york.memory_id],
      );
      assert.equal(m.store.memories.get(york.memory_id)?.status, 'superseded');
    });
  });
}

describe('fact keys on PostgreSQL', { skip: await engineAbsent('postgres') }, () => {
  it('a replica that does not hold the namespace yet still finds what an update changes', async () => {
    const a = await openTestMemory({}, undefined, { engine: 'postgres', judgeFacts });
    try {
      const york = await a.opened
        .memoryFor('work')
        .writing.save({ content: 'I live in New York.' });
      // Another replica on the same database: it loads a namespace when a call first needs it.
      const url = a.database?.url as string;
      const b = await openTestMemory({ MNEMO_DATABASE_URL: url }, undefined, { judgeFacts });
      try {
        b.clock.now = a.clock.now + 30 * 86_400;
        const berlin = await b.opened
          .memoryFor('work')
          .writing.save({ content: 'I moved to Berlin.' });
        assert.deepEqual(
          berlin.supersedes.map((s) => s.memory_id),
          [york.memory_id],
        );
      } finally {
        await b.close();
      }
    } finally {
      await a.close();
    }
  });
});

/** The index of fact keys a memory's saves look up. */
const keysOf = (memory: Memory) =>
  factKeysOf((memory.writing as unknown as { ctx: MemoryContext }).ctx);

describe('fact keys in the sidecar', () => {
  it('a crafted part is taken whole or not at all, never an entry naming no memory (property)', () => {
    const ids = ['a', 'b', 'c'];
    const column = <T>(arb: fc.Arbitrary<T>) => fc.array(arb, { maxLength: 6 });
    fc.assert(
      fc.property(
        column(fc.double()),
        column(fc.integer({ min: -3, max: 5 })),
        column(fc.oneof(fc.double(), fc.nat(10))),
        fc.constantFrom(1, 2, 'x'),
        (hashes, keys, orders, version) => {
          const { keys: index } = keysOver(ids.map((id) => record(id, `I live in ${id}.`)));
          const taken = index.persisted?.restore(
            {
              columns: {
                hashes: Float64Array.from(hashes),
                keys: Int32Array.from(keys),
                orders: Float64Array.from(orders),
              },
              meta: { version },
            },
            (key) => ids[key] as string,
          );
          const whole =
            version === 1 &&
            hashes.length === keys.length &&
            keys.length === orders.length &&
            keys.every((k) => k >= 0 && k < ids.length) &&
            orders.every((o) => Number.isSafeInteger(o) && o >= 0);
          assert.equal(taken, whole);
          // Taken or not, a lookup names only memories there are.
          const found = index.lookup(['self\u0000residence'], 10, LIVE);
          assert.ok(found.every((id) => ids.includes(id)));
        },
      ),
    );
  });

  it('a start takes them back: no memory read again, and an update finds what it changes', async (t) => {
    const dir = tempDir();
    const first = await openTestMemory({}, dir, { sidecarMinLines: 0, judgeFacts });
    const york = await first.memory.writing.save({ content: 'I live in New York.' });
    for (let i = 0; i < 20; i++) {
      await first.memory.writing.save({ content: `The parcel moved to shelf ${i} in Berlin.` });
    }
    keysOf(first.memory).fillAll();
    const savedAt = first.clock.now;
    await first.opened.close();

    const again = await openTestMemory({}, dir, { sidecarMinLines: 1_000_000, judgeFacts });
    t.after(() => again.close());
    const keys = keysOf(again.memory);
    assert.equal(keys.pending, 0);
    again.clock.now = savedAt + 30 * 86_400;
    const berlin = await again.memory.writing.save({ content: 'I moved to Berlin.' });
    assert.deepEqual(
      berlin.supersedes.map((s) => s.memory_id),
      [york.memory_id],
    );
    assert.equal(keys.persisted?.learnt(), 0, 'the lookup read no memory: the sidecar had them');
  });

  it('an index not whole is not kept: the next start reads the memories again', async (t) => {
    const dir = tempDir();
    const texts = Array.from({ length: 50 }, (_, i) => `I live in Town${i}.`);
    writeMnemoStore(path.join(dir, 'memories.jsonl'), texts, 1_767_225_600);
    const first = await openTestMemory({}, dir, { sidecarMinLines: 0 });
    await (first.store as JsonlStore).sidecarWritten();
    await setImmediate();
    // Listed once the store has read the log, and read only once the calls rest: not yet.
    assert.equal(keysOf(first.memory).pending, 50);
    // A write: the close writes the sidecar again.
    await first.memory.writing.save({ content: 'Nothing to say here.' });
    await first.opened.close();
    assert.ok(fs.existsSync(path.join(dir, 'memories.idx')));

    const again = await openTestMemory({}, dir, { sidecarMinLines: 1_000_000 });
    t.after(() => again.close());
    await (again.store as JsonlStore).sidecarWritten();
    await setImmediate();
    console.log('DEBUG', keysOf(again.memory).pending);
    assert.equal(keysOf(again.memory).pending, 51);
  });
});
