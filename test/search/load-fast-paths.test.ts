// The fast paths a long load takes give what the plain ones give: the ASCII word lookup of the
// Tokenizer, and the content hash made without the normalized copy.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  contentHash,
  normalizeContent,
  normalizedContentHash,
} from '../../src/search/lexical-index.js';
import { Tokenizer } from '../../src/search/tokenizer.js';

// ASCII with what the fast path treats apart: capitals, digits, white space of every kind,
// punctuation, stop words, and a few characters outside ASCII now and then.
const piece = fc.constantFrom(
  'The',
  'the',
  'RALPH',
  "Ralph's",
  'deploy',
  'Deploying',
  'k8s',
  '7744',
  'not',
  'and',
  'x',
  'Zürich',
  'café',
  '\t',
  '\n',
  '\r\n',
  '  ',
  ' ',
  '\v',
  '\f',
  '...',
  '-',
  '/',
  'é',
  'K',
  'sleeps',
  'sleeping',
  'A',
  'ÉTÉ',
  'İ',
  'ﬁ',
);
const text = fc.array(piece, { maxLength: 30 }).map((parts) => parts.join(''));
const asciiText = fc.string({
  unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)),
  maxLength: 80,
});

describe('Tokenizer.termIds on ASCII text', () => {
  it('numbers the stems `tokens` gives, in the order first met', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(text, asciiText), { maxLength: 12 }), (texts) => {
        const fast = new Tokenizer();
        const plain = new Tokenizer();
        const stemIds = new Map<string, number>();
        for (const t of texts) {
          const expected = plain.tokens(t).map((stem) => {
            let id = stemIds.get(stem);
            if (id === undefined) {
              id = stemIds.size;
              stemIds.set(stem, id);
            }
            return id;
          });
          assert.deepEqual(fast.termIds(t), expected, JSON.stringify(t));
          // Again, now from the cache of words seen.
          assert.deepEqual(fast.termIds(t), expected);
        }
        assert.deepEqual(fast.vocabulary(), [...stemIds.keys()]);
      }),
      { numRuns: 300 },
    );
  });

  it('leaves out unknown stems without learning them, and learns them later', () => {
    const tokenizer = new Tokenizer();
    tokenizer.termIds('Kitten sleeps');
    assert.deepEqual(tokenizer.termIds('kitten PUPPY sleeping', false), [0, 1]);
    assert.equal(tokenizer.vocabularySize, 2);
    assert.deepEqual(tokenizer.termIds('puppy'), [2]);
  });

  it('numbers as before after its vocabulary is restored', () => {
    const tokenizer = new Tokenizer();
    tokenizer.termIds('alpha beta gamma');
    const generation = tokenizer.generation;
    tokenizer.restoreVocabulary(['gamma', 'alpha']);
    assert.notEqual(tokenizer.generation, generation);
    assert.deepEqual(tokenizer.termIds('Alpha GAMMA beta'), [1, 0, 2]);
    assert.equal(tokenizer.learn('alpha'), 1);
    assert.equal(tokenizer.learn('delta'), 3);
  });
});

describe('normalizedContentHash', () => {
  it('is contentHash(normalizeContent(content))', () => {
    fc.assert(
      fc.property(fc.oneof(text, asciiText, fc.string()), (content) => {
        assert.equal(normalizedContentHash(content), contentHash(normalizeContent(content)));
      }),
      { numRuns: 1000 },
    );
    for (const content of ['', ' ', '\t\n', ' a  B\tc\n', 'A', 'x\v\fy', '  lead', 'trail  ']) {
      assert.equal(normalizedContentHash(content), contentHash(normalizeContent(content)));
    }
  });
});
