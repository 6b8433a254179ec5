import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MAX_FACT_TEXT } from '../../src/memory/facts/clauses.js';
import { type FactCandidate, judgeFacts } from '../../src/memory/facts/judge.js';
import { bounded, hostileText, timeBoxed } from './hostile.js';

// The judge reads every saved memory's text and its candidates' on the save path: whatever the
// text, it must answer, name only the candidates it was given, and read a bounded prefix of
// each (so its work per save is bounded however long the memories are).

const NOW = 1_700_000_000;

/** Text that looks like facts, cut and joined with hostile pieces. */
const factish = fc
  .array(
    fc.oneof(
      hostileText,
      fc.constantFrom(
        'Caroline lives in ',
        'moved to ',
        "I don't like ",
        'My phone number is ',
        ' and ',
        'no longer ',
        'Ben is married to ',
        'I have two kids',
        ' anymore.',
        '?',
        "Anna's favourite colour is ",
        'Z'.repeat(500),
        'é'.repeat(300),
        '\u{1F600}',
      ),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

const candidates = fc.array(
  fc.record({
    id: fc.string({ maxLength: 8 }),
    content: factish,
    createdAt: fc.integer({ min: 0, max: 2 * NOW }),
    similarity: fc.option(fc.double({ noNaN: false }), { nil: undefined }),
  }),
  { maxLength: 10 },
);

describe('the fact judge on hostile text', () => {
  it('answers, names only candidates it was given, once each, with a known kind', () => {
    fc.assert(
      fc.property(
        factish,
        candidates,
        timeBoxed(20, (content: string, given: FactCandidate[]) => {
          const verdicts = judgeFacts({ content, createdAt: NOW }, given);
          const ids = new Set(given.map((c) => c.id));
          const seen = new Set<string>();
          for (const v of verdicts) {
            assert.ok(ids.has(v.id), `verdict for an id not given: ${v.id}`);
            assert.ok(!seen.has(v.id), `two verdicts for ${v.id}`);
            assert.ok(v.kind === 'supersedes' || v.kind === 'conflicts');
            seen.add(v.id);
          }
        }),
      ),
      bounded(300),
    );
  });

  it('reads only the first MAX_FACT_TEXT characters of a memory, however long', () => {
    fc.assert(
      fc.property(
        factish,
        factish,
        fc.integer({ min: 0, max: 1 << 20 }),
        timeBoxed(20, (head: string, tail: string, padding: number) => {
          const long = `${head}${' '.repeat(padding)}${tail}`.repeat(2);
          const cut = long.slice(0, MAX_FACT_TEXT);
          const given = [{ id: 'x', content: 'Caroline lives in Boston.', createdAt: 0 }];
          assert.deepEqual(
            judgeFacts({ content: long, createdAt: NOW }, given),
            judgeFacts({ content: cut, createdAt: NOW }, given),
          );
          const asCandidate = (content: string) => [{ id: 'y', content, createdAt: 0 }];
          const statement = { content: 'Caroline moved to Denver.', createdAt: NOW };
          assert.deepEqual(
            judgeFacts(statement, asCandidate(long)),
            judgeFacts(statement, asCandidate(cut)),
          );
        }),
      ),
      bounded(60),
    );
  });
});
