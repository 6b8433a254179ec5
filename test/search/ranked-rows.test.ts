// A search's rows read each record from the store once: the ranking's lifts and the page ask for
// the same best rows in turn, and each asking was a read of the memory's line.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RANK_FACTS, rowFacts } from '../../src/search/rank-facts.js';
import { type FactsSource, RankedRows } from '../../src/search/ranked-rows.js';
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

  it('answers each row its own facts, asked in any order and again, none for a row without', () => {
    // Ordinal o's numbers: created at 1000 + o, then RANK_FACTS numbers of its own.
    const numbers = (o: number) => Array.from({ length: RANK_FACTS }, (_, k) => 4 * (10 * o + k));
    const index: FactsSource = {
      valueAt: (ordinal) => 1000 + ordinal,
      rankFactsAt: (ordinal, out) => {
        out.push(...numbers(ordinal));
      },
      learnRankFacts: () => {},
    };
    const rows = new RankedRows(false, () => undefined, index);
    for (const ordinal of [7, 3, 9]) rows.push(`m${ordinal}`, 1, undefined, 0.5, ordinal);
    rows.push('by meaning alone', 0, undefined, 0.5);
    const expected = [7, 3, 9].map((o) => rowFacts(1000 + o, numbers(o)));
    for (const i of [2, 0, 3, 1, 2, 0, 1, 3]) {
      assert.deepEqual(rows.facts(i), expected[i], `row ${i}`);
    }
  });
});
