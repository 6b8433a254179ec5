import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { neighboursOf } from '../../src/memory/neighbours.js';
import { RANGE_LIFT, timeLift, timeOf, WHEN_LIFT } from '../../src/memory/time-ranking.js';
import { agoInWords, dayInWords } from '../../src/memory/when.js';
import type { MemoryRecord } from '../../src/storage/records.js';

const DAY = 86_400;
const NOW = Date.UTC(2025, 10, 15, 12) / 1000; // Saturday 15 November 2025

function memory(
  id: string,
  created: number,
  content: string,
  source: string | null = 'chat',
  context: string | null = 's1',
): MemoryRecord {
  return {
    id,
    content,
    created_at: created,
    status: 'active',
    meta: { tags: [], source, context, extra: {} },
  } as unknown as MemoryRecord;
}

describe('a date in words', () => {
  it('names the day and its weekday', () => {
    assert.equal(dayInWords(Date.UTC(2023, 4, 8, 15) / 1000), '2023-05-08, a Monday');
  });

  it('says how long ago at the given clock, never the wall clock', () => {
    assert.equal(agoInWords(NOW - 3600, NOW), 'today');
    assert.equal(agoInWords(NOW - DAY, NOW), 'yesterday');
    assert.equal(agoInWords(NOW - 3 * DAY, NOW), '3 days ago');
    assert.equal(agoInWords(NOW - 20 * DAY, NOW), '2 weeks ago');
    assert.equal(agoInWords(Date.UTC(2025, 4, 15) / 1000, NOW), '6 months ago');
    assert.equal(agoInWords(Date.UTC(2023, 4, 8) / 1000, NOW), '2 years 6 months ago');
    assert.equal(agoInWords(Date.UTC(2024, 10, 15) / 1000, NOW), '1 year ago');
    assert.equal(agoInWords(NOW + 2 * DAY, NOW), 'in 2 days');
  });
});

describe('neighbours', () => {
  const session = [0, 1, 2, 3, 4].map((k) =>
    memory(`m${k}`, NOW + k * 60, `turn ${k} `.repeat(10)),
  );
  const others = [
    memory('x', NOW + 90, 'another session', 'chat', 's2'),
    memory('y', NOW + 30, 'no source', null, null),
  ];

  it('lists the memories of the same source and context nearest in time, up to n a side', () => {
    const got = neighboursOf([session[2] as MemoryRecord], [...session, ...others], 1).get('m2');
    assert.deepEqual(
      got?.map((n) => [n.memory_id, n.offset]),
      [
        ['m1', -1],
        ['m3', 1],
      ],
    );
    const two = neighboursOf([session[0] as MemoryRecord], [...others, ...session], 2).get('m0');
    assert.deepEqual(
      two?.map((n) => n.offset),
      [1, 2],
    );
  });

  it('keeps to the character budget, marking a cut', () => {
    const got = neighboursOf([session[2] as MemoryRecord], session, 2, 120).get('m2') ?? [];
    const total = got.reduce((sum, n) => sum + n.content.length, 0);
    assert.ok(total <= 120, `${total} characters`);
    assert.ok(got.some((n) => n.content.endsWith('…')));
  });
});

describe('time in a search', () => {
  it('lifts a memory saved in the time the query names, or saying a date then', () => {
    const time = timeOf('what did we do last week?', NOW);
    assert.ok(time);
    assert.equal(timeLift(memory('a', NOW - 7 * DAY, 'we went hiking'), time), 1 + RANGE_LIFT);
    assert.equal(timeLift(memory('b', NOW - 60 * DAY, 'we went hiking'), time), 1);
    // "yesterday" said the day after last week's Sunday.
    const monday = Date.UTC(2025, 10, 10, 9) / 1000;
    assert.equal(timeLift(memory('c', monday, 'we went hiking yesterday'), time), 1 + RANGE_LIFT);
  });

  it('lifts a memory that says a date when the query asks "when"', () => {
    const time = timeOf('When did Caroline go hiking?', NOW);
    assert.ok(time?.asksWhen);
    assert.equal(timeLift(memory('a', NOW, 'Caroline went hiking yesterday'), time), 1 + WHEN_LIFT);
    assert.equal(timeLift(memory('b', NOW, 'Caroline went hiking'), time), 1);
    assert.equal(timeOf('what does Caroline like?', NOW), null);
  });
});
