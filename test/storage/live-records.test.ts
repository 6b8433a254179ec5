// The live records of every namespace an engine holds: a memory lives in one namespace, found by
// its id, whether few namespaces hold memories (looked in one by one) or many (kept by id).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LiveRecords } from '../../src/storage/live-records.js';
import { MemoryTable } from '../../src/storage/memory-table.js';
import { newMemoryRecord } from '../../src/storage/records.js';

const record = (id: string) => newMemoryRecord(id, `memory ${id}`, 1_767_225_600);

describe('LiveRecords', () => {
  for (const spaces of [2, 12]) {
    it(`with ${spaces} namespaces: each id in one, moved, dropped, let go and cleared`, () => {
      const live = new LiveRecords();
      const removed: string[] = [];
      for (let s = 0; s < spaces; s++) {
        live.subscribe(`n${s}`, {
          upsert: () => {},
          remove: (r) => removed.push(`n${s}:${r.id}`),
          reset: () => {},
        });
        for (let i = 0; i < 3; i++) live.putMemory(`n${s}`, record(`n${s}-${i}`));
      }
      assert.equal(live.memoryCount, spaces * 3);
      assert.equal(live.namespaceOfMemory('n1-2'), 'n1');
      assert.equal(live.namespaceOfMemory('nowhere'), undefined);
      // Put into another namespace: it leaves the one it was in, whose listeners are told.
      live.putMemory('n0', record('n1-2'));
      assert.equal(live.namespaceOfMemory('n1-2'), 'n0');
      assert.equal(live.space('n1').memories.has('n1-2'), false);
      assert.deepEqual(removed, ['n1:n1-2']);
      assert.equal(live.memoryCount, spaces * 3);
      live.dropMemory('n0-0');
      assert.equal(live.namespaceOfMemory('n0-0'), undefined);
      // A namespace let go: none of its memories is found any more, and put again, found there.
      live.releaseSpace('n1');
      assert.equal(live.namespaceOfMemory('n1-0'), undefined);
      live.putMemory(`n${spaces - 1}`, record('n1-0'));
      assert.equal(live.namespaceOfMemory('n1-0'), `n${spaces - 1}`);
      live.clearMemories();
      assert.equal(live.namespaceOfMemory('n0-1'), undefined);
      assert.equal(live.memoryCount, 0);
      live.putMemory('n3', record('again'));
      live.putMemory('n1', record('again'));
      assert.equal(live.namespaceOfMemory('again'), 'n1');
      assert.equal(live.memoryCount, 1);
    });
  }
});

describe('MemoryTable', () => {
  it('lists the memories added last, and reads one for a pass without keeping it', () => {
    let reads = 0;
    const table = new MemoryTable((offset) => {
      reads++;
      return record(`m${offset}`);
    });
    for (let i = 0; i < 5; i++) table.addRef(`m${i}`, i, 10, 1);
    table.delete('m3');
    assert.deepEqual(table.newestIds(3), ['m1', 'm2', 'm4']);
    assert.deepEqual(table.newestIds(10), ['m0', 'm1', 'm2', 'm4']);
    assert.deepEqual(table.newestIds(Number.POSITIVE_INFINITY), ['m0', 'm1', 'm2', 'm4']);
    assert.deepEqual(table.newestIds(0), []);
    // A pass reads the line each time; a call keeps what it read for the next ask.
    assert.equal(table.peek('m1')?.id, 'm1');
    assert.equal(table.peek('m1')?.id, 'm1');
    assert.equal(reads, 2);
    table.get('m2');
    table.get('m2');
    assert.equal(table.peek('m2')?.id, 'm2');
    assert.equal(reads, 3);
    assert.equal(table.peek('m3'), undefined);
  });
});
