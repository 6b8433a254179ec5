// The save path reads every new memory for facts, so the readers take shortcuts (issue 24): each
// one must answer what the plain version answers, for any text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { attributeMatches, scanAttributes } from '../../src/memory/facts/attributes.js';
import { asciiLower, clausesOf, MAX_FACT_TEXT } from '../../src/memory/facts/clauses.js';
import { leadsOf, patternsIn, UNLED_PATTERNS } from '../../src/memory/facts/pattern-leads.js';
import { FACT_PATTERNS } from '../../src/memory/facts/patterns.js';
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
    'WAS',
    'Are',
    'called',
    'named',
    'changed',
    'rescheduled',
    'number',
    'my new',
    'phone number',
    'ΟΔΟΣ',
    'Σ',
    "can't stand",
    'lives in',
    'married',
    'is a nurse',
    'has 2 dogs',
    'worked at',
    'stepped down from',
    'is 30 years old',
    'x_married',
    '3am',
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

  it('attributeMatches reads only clauses that hold a verb it reads up to, and misses none', () => {
    // Shaped as the attributes are said, in any case, with any of the verbs or none.
    const said = fc
      .tuple(
        fc.constantFrom('my', 'Our', 'his', 'HER', 'their', "user's", 'the', "Caroline's", 'Blue'),
        fc.constantFrom('', 'new', 'old', 'favourite'),
        fc.array(fc.constantFrom('phone', 'number', 'colour', 'meeting', 'dog', 'email', 'x1'), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.constantFrom(
          'is',
          'ARE',
          'was',
          'Called',
          'named',
          'has changed to',
          'changed to',
          'moved to',
          'was rescheduled until',
          'got pushed till',
          'postponed to',
          'bumped to',
          'delayed to',
          'shifted to',
          'is now',
          'likes',
          'is my favourite',
        ),
        fc.constantFrom('555', 'Rex', 'Friday', 'blue', ''),
      )
      .map((parts) =>
        parts
          .flat()
          .filter((part) => part !== '')
          .join(' '),
      );
    fc.assert(
      fc.property(fc.oneof(text, said), (t) => {
        for (const clause of clausesOf(t)) {
          assert.deepEqual(attributeMatches(clause.text), scanAttributes(clause.text));
        }
        assert.deepEqual(attributeMatches(t), scanAttributes(t));
      }),
      { numRuns: 3000 },
    );
  });

  it('a clause lowered whole splits into its words lowered one by one', () => {
    fc.assert(
      fc.property(fc.oneof(text, fc.string({ unit: 'binary' })), (t) => {
        assert.deepEqual(
          t.toLowerCase().split(' '),
          t.split(' ').map((word) => word.toLowerCase()),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('the patterns a clause’s words lead to find every match all the patterns find', () => {
    assert.equal(UNLED_PATTERNS, 0, 'every fact pattern has leads');
    // Every lead of every pattern, and the words that follow leads in the patterns.
    const leads = FACT_PATTERNS.flatMap((pattern) => leadsOf(pattern.regex.source) ?? []);
    const following = ['in', 'at', 'for', 'to', 'from', 'with', 'a', 'an', 'the', 'nurse', '2'];
    const facty = fc
      .array(fc.oneof(fc.constantFrom(...leads, ...following), piece), { maxLength: 20 })
      .map((parts) => parts.join(' '));
    let matched = 0;
    fc.assert(
      fc.property(facty, (t) => {
        for (const clause of clausesOf(t)) {
          const lower = asciiLower(clause.text);
          const chosen = new Set(patternsIn(lower));
          for (const pattern of FACT_PATTERNS) {
            const match = pattern.regex.exec(lower);
            if (match) matched++;
            if (!chosen.has(pattern)) assert.equal(match, null, pattern.regex.source);
          }
        }
      }),
      { numRuns: 2000 },
    );
    assert.ok(matched > 1000, `the texts matched patterns ${matched} times`);
  });

  it('reads a pattern’s leads from its source, and none from a shape it does not know', () => {
    assert.deepEqual(leadsOf(String.raw`\b(?:lives|live) (?:in|at) `), ['lives', 'live']);
    assert.deepEqual(leadsOf(String.raw`\b(?<status>married|engaged)`), ['married', 'engaged']);
    assert.deepEqual(leadsOf(String.raw`\bworked (?:at|for) `), ['worked ']);
    assert.deepEqual(leadsOf(String.raw`\bborns? `), ['born']);
    assert.equal(leadsOf(String.raw`\b(?:lives|live)? in`), null, 'an optional group');
    assert.equal(leadsOf(String.raw`\b(?:a|an) `), null, 'a lead of one letter');
    assert.equal(leadsOf(String.raw`\b(?:x(?:y|z)|w) `), null, 'a nested group');
    assert.equal(leadsOf(String.raw`(?:lives) `), null, 'no word boundary first');
    assert.equal(leadsOf(String.raw`\b\d+ `), null, 'no literal');
  });
});
