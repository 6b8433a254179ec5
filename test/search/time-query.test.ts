import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTime, type TimeRange } from '../../src/search/time-query.js';

const DAY = 86_400;
/** The clock of every case: Wednesday 15 November 2023, 12:00 UTC. */
const NOW = Date.UTC(2023, 10, 15, 12) / 1000;
const day = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d) / 1000;
const span = (r: TimeRange | undefined) =>
  r && [
    new Date(r.from * 1000).toISOString().slice(0, 10),
    new Date(r.to * 1000).toISOString().slice(0, 10),
  ];

/** The one range `text` names at NOW, as [first day, day after]. */
function only(text: string, now = NOW) {
  const { ranges } = parseTime(text, now);
  assert.equal(ranges.length, 1, `${text}: ${JSON.stringify(ranges)}`);
  return span(ranges[0]);
}

describe('parseTime', () => {
  it('reads dates written out', () => {
    assert.deepEqual(only('what happened on May 8, 2023?'), ['2023-05-08', '2023-05-09']);
    assert.deepEqual(only('on 8 May 2023'), ['2023-05-08', '2023-05-09']);
    assert.deepEqual(only('the 8th of May'), ['2023-05-08', '2023-05-09']);
    assert.deepEqual(only('2023-05-08'), ['2023-05-08', '2023-05-09']);
    assert.deepEqual(only('what did we do in May 2023'), ['2023-05-01', '2023-06-01']);
    assert.deepEqual(only('anything from 2022?'), ['2022-01-01', '2023-01-01']);
  });

  it('reads "may" as a month only where it is one', () => {
    assert.equal(parseTime('you may like it', NOW).ranges.length, 0);
    assert.deepEqual(only('the trip in May'), ['2023-05-01', '2023-06-01']);
    // Said in January, "in May" is last year's.
    assert.deepEqual(only('in May', day(2024, 1, 10)), ['2023-05-01', '2023-06-01']);
  });

  it('reads times relative to the clock', () => {
    assert.deepEqual(only('yesterday'), ['2023-11-14', '2023-11-15']);
    assert.deepEqual(only('today'), ['2023-11-15', '2023-11-16']);
    assert.deepEqual(only('last week'), ['2023-11-06', '2023-11-13']);
    assert.deepEqual(only('last month'), ['2023-10-01', '2023-11-01']);
    assert.deepEqual(only('last year'), ['2022-01-01', '2023-01-01']);
    assert.deepEqual(only('last weekend'), ['2023-11-11', '2023-11-13']);
    // In November, last summer is this year's; in July, the year before's.
    assert.deepEqual(only('last summer'), ['2023-06-01', '2023-09-01']);
    assert.deepEqual(only('last summer', day(2023, 7, 10)), ['2022-06-01', '2022-09-01']);
    assert.deepEqual(only('in the summer of 2021'), ['2021-06-01', '2021-09-01']);
  });

  it('reads "ago" as the unit around that far back', () => {
    const [range] = parseTime('two weeks ago', NOW).ranges;
    assert.ok(range);
    assert.equal(range.to - range.from, 7 * DAY);
    assert.ok(range.from < NOW - 14 * DAY && NOW - 14 * DAY < range.to);
    assert.equal(parseTime('a few days ago', NOW).ranges.length, 1);
    assert.equal(parseTime('3 months ago', NOW).ranges.length, 1);
  });

  it('reads spans before and after a date', () => {
    assert.deepEqual(only('the week before 9 June 2023'), ['2023-06-02', '2023-06-09']);
    assert.deepEqual(only('the day after May 8, 2023'), ['2023-05-09', '2023-05-10']);
    const [after] = parseTime('after May 2023', NOW).ranges;
    assert.equal(after?.from, day(2023, 6, 1));
    assert.equal(after?.to, Number.POSITIVE_INFINITY);
    const [before] = parseTime('before 2023', NOW).ranges;
    assert.equal(before?.from, Number.NEGATIVE_INFINITY);
    assert.equal(before?.to, day(2023, 1, 1));
  });

  it('reads a word that names a property of every object as a word ("constructor")', () => {
    // A lookup in a plain object found Object.prototype.constructor: the word read as a season
    // and took "of 2023" with it, or as a unit ("the constructor before ...").
    assert.deepEqual(only('the constructor of 2023'), ['2023-01-01', '2024-01-01']);
    const [before] = parseTime('the constructor before May 8, 2023', NOW).ranges;
    assert.equal(before?.from, Number.NEGATIVE_INFINITY);
    assert.equal(before?.said, 'before may 8 2023');
  });

  it('leaves a time relative to another memory as words', () => {
    assert.deepEqual(parseTime('where did she live before she moved?', NOW).ranges, []);
  });

  it('knows a question that asks "when"', () => {
    assert.equal(parseTime('When did Caroline go to the support group?', NOW).asksWhen, true);
    assert.equal(parseTime('what year did they meet', NOW).asksWhen, true);
    assert.equal(parseTime('how long ago was the trip', NOW).asksWhen, true);
    assert.equal(parseTime('what did Caroline research?', NOW).asksWhen, false);
    assert.equal(parseTime('I was happy when it rained', NOW).asksWhen, false);
  });
});
