// A search's rows read each record from the store once: the ranking's lifts and the page ask for
// the same best rows in turn, and each asking was a read of the memory's line.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RankedRows } from '../../src/search/ranked-rows.js';
import { newMemoryRecord } from '../../src/storage/records.js';

describe('RankedRows', () => {
  it('reads a row’s record at its first asking only, and answers the same one after', () => {
    const reads: string[] = [];
    const rows = new RankedRows(false, (id) => {
      reads.push(id);
      return newMemoryRecord(id, `memory ${id}`, 1_700_000_000);
    });
    for (const id of ['a', 'b', 'c']) rows.push(id, 1, undefined, 0.5);
    const first = rows.record(1);
    assert.equal(first.id, 'b');
    assert.equal(rows.record(1), first);
    assert.equal(rows.row(1).record, first);
    assert.equal(rows.row(0).record.id, 'a');
    assert.deepEqual(
      [...rows].map((row) => row.record.id),
      ['a', 'b', 'c'],
    );
    assert.deepEqual(reads, ['b', 'a', 'c']);
  });
});
