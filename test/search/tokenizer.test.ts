import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isStopWord, Tokenizer, words } from '../../src/search/tokenizer.js';

describe('Tokenizer', () => {
  const tokenizer = new Tokenizer();
  const tokens = (text: string) => tokenizer.tokens(text);

  it('reduces "who is ralph?" to ["ralph"]', () => {
    assert.deepEqual(tokens('who is ralph?'), ['ralph']);
  });

  it('reads "Ralph\'s" as ralph, with either apostrophe', () => {
    assert.deepEqual(tokens("Ralph's"), ['ralph']);
    assert.deepEqual(tokens('Ralph’s'), ['ralph']);
  });

  it('lowercases and ignores punctuation', () => {
    assert.deepEqual(tokens('RALPH'), tokens('ralph'));
    assert.deepEqual(tokens('The QUICK, brown fox!!! (jumped).'), [
      'quick',
      'brown',
      'fox',
      'jump',
    ]);
    assert.deepEqual(tokens('deploy-script/v2'), [...tokens('deploy'), 'script', 'v2']);
  });

  it('drops stop words but keeps negations', () => {
    assert.deepEqual(tokens('the and of is was to a an'), []);
    assert.deepEqual(tokens('do not deploy'), ['not', ...tokens('deploy')]);
    assert.equal(isStopWord('The'), true);
    assert.equal(isStopWord('not'), false);
    assert.equal(isStopWord('ralph'), false);
  });

  it('stems, so inflections meet', () => {
    const [sleeping] = tokens('sleeping');
    assert.ok(sleeping);
    assert.deepEqual(tokens('sleeps'), [sleeping]);
    assert.deepEqual(tokens('sleep'), [sleeping]);
    assert.deepEqual(tokens('connected connection connecting'), ['connect', 'connect', 'connect']);
  });

  it('keeps numbers and short words as they are', () => {
    assert.deepEqual(tokens('port 7744 on k8s'), ['port', '7744', 'k8s']);
  });

  it('keeps words outside ASCII', () => {
    assert.deepEqual(tokens('Zürich café'), ['zürich', 'café']);
    assert.deepEqual(tokens('привет 東京 Ελλάδα'), ['привет', '東京', 'ελλάδα']);
  });

  it('gives nothing for empty or punctuation-only text', () => {
    assert.deepEqual(tokens(''), []);
    assert.deepEqual(tokens('?!... --- ,,,'), []);
  });

  it('gives the same tokens on repeated calls (the stem cache is transparent)', () => {
    const text = 'Ralph prefers sleeping early before deployments';
    const first = tokens(text);
    assert.deepEqual(new Tokenizer().tokens(text), first);
    assert.deepEqual(tokens(text), first);
  });
});

describe('words', () => {
  it('gives the words of the Unicode split, ASCII fast path or not', () => {
    const split = (text: string) =>
      text
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((w) => w.length > 0);
    const pieces = fc.constantFrom(
      'Ralph',
      "'s",
      ' ',
      '-',
      '42',
      'É',
      'ß',
      'K',
      '\n',
      'cat.',
      '猫',
      '_',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(pieces).map((p) => p.join('')),
        ),
        (text) => {
          assert.deepEqual(words(text), split(text));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
