// The save path reads every new memory for facts, so the readers take shortcuts (issue 24): each
// one must answer what the plain version answers, for any text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { attributeMatches } from '../../src/memory/facts/attributes.js';
import { asciiLower, clausesOf, MAX_FACT_TEXT } from '../../src/memory/facts/clauses.js';
import { leadingName } from '../../src/memory/facts/subjects.js';

const plainLower = (text: string) => text.replace(/[A-Z]/g, (char) => char.toLowerCase());

const QUESTION_START =
  /^(?:do|does|did|is|are|was|were|where|what|when|who|whom|how|which|why|has|have|can|should|shall)\b/;

/** clausesOf as it was before its shortcuts. */
function plainClauses(content: string): { text: string; question: boolean }[] {
  const text = content
    .slice(0, MAX_FACT_TEXT)
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/\bI'm\b/g, 'I am')
    .replace(/\bI've\b/g, 'I have')
    .replace(/\s+/g, ' ');
  const clauses: { text: string; question: boolean }[] = [];
  let start = 0;
  for (let i = 0; i <= text.length && clauses.length < 16; i += 1) {
    const char = text[i];
    const end =
      i === text.length ||
      char === '?' ||
      char === '!' ||
      char === ';' ||
      char === '\n' ||
      (char === '.' && (i + 1 === text.length || text[i + 1] === ' '));
    if (!end) continue;
    const body = text.slice(start, i).trim();
    if (body !== '') {
      clauses.push({ text: body, question: char === '?' || QUESTION_START.test(plainLower(body)) });
    }
    start = i + 1;
  }
  return clauses;
}

/** Words and marks the readers treat specially, in any case, with odd spaces and letters. */
const piece = fc.oneof(
  fc.constantFrom(
    'I',
    "I'm",
    "I've",
    'I\u2019m',
    'Should',
    'WHERE',
    'is',
    'are',
    'my',
    'the',
    "user's",
    "Caroline's",
    'favourite',
    'colour',
    'Blue',
    'İ',
    'ǅ',
    'ß',
    '?',
    '.',
    '!',
    ';',
    '\n',
    '\t',
    '  ',
    '\u00a0',
    'moved',
    'to',
  ),
  fc.string({ maxLength: 6 }),
  fc.string({ unit: 'binary', maxLength: 4 }),
);
const text = fc.array(piece, { maxLength: 30 }).map((parts) => parts.join(' '));

describe('the fact readers’ shortcuts', () => {
  it('asciiLower lowers A-Z and nothing else, as the plain replace does', () => {
    fc.assert(
      fc.property(fc.oneof(text, fc.string({ unit: 'binary' })), (t) => {
        assert.equal(asciiLower(t), plainLower(t));
      }),
      { numRuns: 2000 },
    );
  });

  it('clausesOf cuts and reads every text as the plain version does', () => {
    fc.assert(
      fc.property(text, (t) => {
        assert.deepEqual(clausesOf(t), plainClauses(t));
      }),
      { numRuns: 2000 },
    );
  });

  it('attributeMatches and leadingName read clauses as before', () => {
    assert.deepEqual(
      attributeMatches('Blue is my new favourite colour').map((m) => m.groups.attr),
      ['favourite colour'],
    );
    assert.deepEqual(
      attributeMatches("Caroline's phone number is 555").map((m) => m.groups.owner),
      ["Caroline's"],
    );
    assert.equal(leadingName('Caroline moved to Denver'), 'name:caroline');
    assert.equal(leadingName('Caroline'), 'name:caroline');
    assert.equal(leadingName('she moved'), null);
  });
});
