import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { MAX_TIME_TEXT, parseTime, statedTimes } from '../../src/search/time-query.js';
import { CUE, MONTHS, SEASONS, UNITS } from '../../src/search/time-words.js';

// Words the parser looks for, so that arbitrary text often holds a near-miss of an expression.
const WORDS = [
  'in',
  'the',
  'of',
  'last',
  'this',
  'next',
  'past',
  'week',
  'weekend',
  'month',
  'year',
  'day',
  'days',
  'ago',
  'a',
  'few',
  'two',
  'before',
  'after',
  'since',
  'until',
  'may',
  'May',
  'june',
  'summer',
  'yesterday',
  'when',
  'did',
  '8th',
  '31',
  '2023',
  '1999',
  '2023-02-31',
  '0',
  '99999',
  ',',
  'what',
  'date',
];
const text = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.array(fc.constantFrom(...WORDS), { maxLength: 60 }).map((w) => w.join(' ')),
);
const clock = fc.oneof(
  fc.integer({ min: 0, max: 4_102_444_800 }),
  fc.constantFrom(Number.NaN, -1e12, 8.64e12),
);

it('never throws on any text at any clock, and every range is well formed', () => {
  fc.assert(
    fc.property(text, clock, (t, now) => {
      const { ranges, asksWhen } = parseTime(t, now);
      assert.equal(typeof asksWhen, 'boolean');
      for (const r of ranges) {
        assert.ok(!Number.isNaN(r.from) && !Number.isNaN(r.to), JSON.stringify(r));
        assert.ok(r.from < r.to, JSON.stringify(r));
        assert.equal(typeof r.said, 'string');
      }
    }),
    { numRuns: 2000 },
  );
});

it('reads a text of any length in time linear in the bound (it reads the first part only)', () => {
  const long = 'in the week before the day after '.repeat(100_000);
  const { ranges } = parseTime(long, 1_700_000_000);
  assert.ok(ranges.length <= 16);
  assert.ok(MAX_TIME_TEXT < long.length);
});

it('statedTimes, which skips a text without a cue, finds what parseTime finds', () => {
  const cased = fc.oneof(
    text,
    fc
      .array(
        fc.constantFrom(...WORDS, 'NIGHT', 'Tonight', 'SPRING', '_week', 'weeks2', 'WEE\u212A'),
        { maxLength: 4 },
      )
      .map((w) => w.join('_')),
    text.map((t) => t.toUpperCase()),
  );
  fc.assert(
    fc.property(cased, clock, (t, now) => {
      assert.deepEqual(statedTimes(t, now), parseTime(t, now).ranges);
    }),
    { numRuns: 3000 },
  );
});

it('CUE holds every month, season and unit the parser reads, and the days by name', () => {
  const words = [
    ...Object.keys(MONTHS),
    ...Object.keys(SEASONS),
    ...Object.keys(UNITS),
    'today',
    'tonight',
    'yesterday',
    'tomorrow',
    'night',
  ];
  for (const word of words) {
    assert.ok(CUE.test(`so ${word} then`), word);
    assert.equal(CUE.test(`so x${word}x then`), false, `${word} inside a word`);
  }
});
