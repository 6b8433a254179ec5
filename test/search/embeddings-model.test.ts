import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Tokenizer } from '@huggingface/tokenizers';
import pino from 'pino';
import {
  BUILD,
  type BuildParams,
  buildStaticModel,
  digests,
  firstPrincipalComponent,
  isWholeToken,
  keptWords,
  MODEL_ID,
  SOURCE_PACKAGE,
  type WordVectors,
} from '../../scripts/build-static-model.js';
import { loadEmbeddings, SHIPPED_MODELS_DIR } from '../../src/search/embeddings.js';

const STATIC_DIR = path.join(SHIPPED_MODELS_DIR, 'static');

/** A small vocabulary in frequency order with made-up 4-d vectors (no randomness). */
function toyVectors(): WordVectors {
  const words = [
    'the',
    ',',
    'of',
    'The',
    'cat',
    'dog',
    'u.s.',
    'café',
    'rug',
    'carpet',
    'tax',
    'deadline',
    'kitten',
    'sleeping',
    'resting',
    'filing',
  ];
  const vectors = words.map((_, i) => [
    1 + 0.1 * i,
    Math.sin(i + 1),
    Math.cos(2 * i + 1),
    ((i * 7) % 5) - 2,
  ]);
  return { dimensions: 4, words, vectors, source: 'toy@0' };
}

const TOY: BuildParams = { ...BUILD, vocabularySize: 10, zipfVocabulary: 1000, sifA: 0.01 };

describe('building the static model', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-model-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('gives the same bytes every time', () => {
    const a = digests(buildStaticModel(toyVectors(), TOY));
    const b = digests(buildStaticModel(toyVectors(), TOY));
    assert.deepEqual(a, b);
    assert.deepEqual(Object.keys(a), [
      'config.json',
      'embeddings.bin',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
  });

  it('keeps only words the tokenizer can produce whole', () => {
    const kept = keptWords(toyVectors(), 100).map((k) => k.word);
    assert.deepEqual(kept.slice(0, 4), ['the', 'of', 'cat', 'dog']);
    for (const w of [',', 'The', 'u.s.', 'café']) assert.ok(!kept.includes(w), w);
    assert.equal(isWholeToken('naive'), true);
    assert.equal(isWholeToken('naïve'), false);
    assert.equal(isWholeToken('2014'), true);
    assert.equal(isWholeToken("n't"), false);
  });

  it('computes, through the real loader, the SIF mean with the principal component removed', async () => {
    const source = toyVectors();
    const files = buildStaticModel(source, TOY);
    for (const [name, bytes] of files) {
      fs.mkdirSync(path.dirname(path.join(dir, 'static', name)), { recursive: true });
      fs.writeFileSync(path.join(dir, 'static', name), bytes);
    }
    const provider = await loadEmbeddings('static', {
      cacheDir: dir,
      logger: pino({ level: 'silent' }),
      modelsDir: dir,
      allowRemote: false,
    });
    assert.ok(provider);
    assert.equal(provider.dimensions, 4);

    const kept = keptWords(source, TOY.vocabularySize);
    const h = Array.from({ length: TOY.zipfVocabulary }, (_, r) => 1 / (r + 1)).reduce(
      (s, x) => s + x,
      0,
    );
    const sif = (rank: number) => TOY.sifA / (TOY.sifA + 1 / (rank * h));
    const weights = kept.map((k) => sif(k.rank));
    const u = firstPrincipalComponent(source, kept, weights, TOY);
    const expected = (words: string[]) => {
      const sum = [0, 0, 0, 0];
      for (const word of words) {
        const k = kept.find((x) => x.word === word);
        if (!k) continue;
        const e = source.vectors[k.index] ?? [];
        const along = e.reduce((s, x, d) => s + x * (u[d] ?? 0), 0);
        e.forEach((x, d) => {
          sum[d] = (sum[d] ?? 0) + sif(k.rank) * (x - along * (u[d] ?? 0));
        });
      }
      const n = Math.hypot(...sum);
      return sum.map((x) => x / n);
    };
    const texts = ['The cat', 'cat, dog and a rug!', 'kitten sleeping on the rug'];
    const vectors = await provider.embed(texts);
    texts.forEach((text, i) => {
      const want = expected(text.toLowerCase().split(/[^a-z]+/));
      const got = vectors[i] ?? new Float32Array();
      const cos = want.reduce((s, x, d) => s + x * (got[d] ?? 0), 0);
      assert.ok(cos > 0.999, `${text}: cosine ${cos} with the float computation`);
      // The removed direction is gone from every sentence vector, up to int8 rounding.
      const along = [...got].reduce((s, x, d) => s + x * (u[d] ?? 0), 0);
      assert.ok(Math.abs(along) < 0.02, `${text}: ${along} along u`);
    });
  });

  it('committed model says it was built with the script’s settings', () => {
    const config = JSON.parse(fs.readFileSync(path.join(STATIC_DIR, 'config.json'), 'utf8'));
    const pkg = createRequire(import.meta.url)(`${SOURCE_PACKAGE}/package.json`) as {
      version: string;
    };
    const { model_id, source, method, quantization, ...params } = config.mnemo;
    assert.equal(config.table.file, 'embeddings.bin');
    assert.match(config.table.sha256, /^[0-9a-f]{64}$/);
    assert.equal(model_id, MODEL_ID);
    assert.equal(source, `${SOURCE_PACKAGE}@${pkg.version}`);
    assert.ok(method && quantization);
    assert.deepEqual(params, { ...BUILD });
    assert.equal(config.hidden_size, 100);
    assert.equal(config.vocab_size, BUILD.vocabularySize + 2);
  });

  it('committed tokenizer maps every vocabulary word to itself', async () => {
    const json = JSON.parse(fs.readFileSync(path.join(STATIC_DIR, 'tokenizer.json'), 'utf8'));
    const config = JSON.parse(
      fs.readFileSync(path.join(STATIC_DIR, 'tokenizer_config.json'), 'utf8'),
    );
    const tokenizer = new Tokenizer(json, config);
    const vocab = json.model.vocab as Record<string, number>;
    const words = Object.entries(vocab).filter(([w]) => !w.startsWith('['));
    assert.equal(words.length, BUILD.vocabularySize);
    // All the words in one text: each must come back as its own id, in order.
    const { ids } = tokenizer.encode(words.map(([w]) => w).join(' '));
    assert.deepEqual(
      ids,
      words.map(([, id]) => id),
    );
  });
});
