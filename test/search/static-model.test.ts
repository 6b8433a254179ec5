import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import { loadEmbeddings, SHIPPED_MODELS_DIR, STATIC_MODEL } from '../../src/search/embeddings.js';
import { MAX_DIMENSIONS, MAX_ROWS, readStaticTable } from '../../src/search/static-model.js';
import { referenceTexts } from '../fixtures/static-model-texts.js';
import { capturingLogger } from '../support.js';

const STATIC_DIR = path.join(SHIPPED_MODELS_DIR, 'static');
const REFERENCE = new URL('../fixtures/static-model-reference.json', import.meta.url);
const silent = pino({ level: 'silent' });

const sha256 = (bytes: Uint8Array) => crypto.createHash('sha256').update(bytes).digest('hex');

describe('the static model in plain TypeScript', () => {
  it('gives the vectors transformers.js gave from the ONNX model, bit for bit', async () => {
    const reference = JSON.parse(fs.readFileSync(REFERENCE, 'utf8')) as {
      model: string;
      vectors: number[][];
    };
    const provider = await loadEmbeddings('static', {
      cacheDir: os.tmpdir(),
      logger: silent,
      allowRemote: false,
    });
    assert.ok(provider);
    assert.equal(provider.id, reference.model);
    const texts = referenceTexts();
    assert.equal(texts.length, reference.vectors.length);
    const vectors = await provider.embed(texts);
    let zeros = 0;
    texts.forEach((text, i) => {
      const got = vectors[i] as Float32Array;
      const want = reference.vectors[i] as number[];
      const label = `text ${i} (${text.length} chars): ${JSON.stringify(text.slice(0, 40))}`;
      assert.equal(got.length, 100, label);
      // Float32 values written as JSON numbers come back exactly.
      assert.deepEqual(Array.from(got), want, label);
      if (want.every((x) => x === 0)) zeros++;
    });
    // Empty, blank, unknown words only, punctuation, scripts GloVe's top words lack, and the
    // text whose first 8,192 tokens are unknown words: the zero vector.
    assert.ok(zeros >= 5 && zeros < texts.length / 3, `${zeros} zero vectors`);
  });

  it('reads the shipped table: sizes and hash from config.json', () => {
    const config = JSON.parse(fs.readFileSync(path.join(STATIC_DIR, 'config.json'), 'utf8'));
    const bytes = fs.readFileSync(path.join(STATIC_DIR, config.table.file));
    assert.equal(sha256(bytes), config.table.sha256);
    const table = readStaticTable(bytes, {
      rows: config.vocab_size,
      dimensions: config.hidden_size,
      sha256: config.table.sha256,
    });
    assert.equal(table.length, 40_002 * 100);
    // [PAD] and [UNK] are zero rows.
    assert.ok(table.subarray(0, 200).every((x) => x === 0));
  });

  it('refuses a table of another size, hash or with a scale that is not a number', () => {
    const rows = 3;
    const dimensions = 2;
    const bytes = new Uint8Array(rows * dimensions + rows * 4);
    bytes.set([1, 2, 3, 4, 5, 6]);
    const scales = new DataView(bytes.buffer, rows * dimensions);
    scales.setFloat32(0, 0.5, true);
    scales.setFloat32(4, 0.25, true);
    scales.setFloat32(8, 2, true);
    const spec = { rows, dimensions, sha256: sha256(bytes) };
    assert.deepEqual(Array.from(readStaticTable(bytes, spec)), [0.5, 1, 0.75, 1, 10, 12]);
    assert.throws(() => readStaticTable(bytes.subarray(1), spec), /17 bytes, expected 18/);
    assert.throws(() => readStaticTable(bytes, { ...spec, sha256: '0'.repeat(64) }), /SHA-256/);
    assert.throws(() => readStaticTable(bytes, { ...spec, rows: 0 }), /rows must be/);
    assert.throws(() => readStaticTable(bytes, { ...spec, dimensions: 1.5 }), /dimensions must/);
    const nan = bytes.slice();
    new DataView(nan.buffer, rows * dimensions).setFloat32(4, Number.NaN, true);
    assert.throws(() => readStaticTable(nan, { ...spec, sha256: sha256(nan) }), /row 1 has no/);
    // A finite scale whose product with an int8 is no float32 (a fuzz run found it).
    const huge = Uint8Array.from([0, 3, 0, 0, 171, 126]);
    assert.throws(
      () => readStaticTable(huge, { rows: 1, dimensions: 2, sha256: sha256(huge) }),
      /row 0's scale .* is out of range/,
    );
  });

  it('reads any bytes and any spec into a table of finite values, or throws an Error', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.oneof(fc.integer({ min: -2, max: 12 }), fc.constant(MAX_ROWS + 1), fc.double()),
        fc.oneof(fc.integer({ min: -2, max: 12 }), fc.constant(MAX_DIMENSIONS + 1), fc.double()),
        fc.boolean(),
        (bytes, rows, dimensions, rightHash) => {
          const spec = { rows, dimensions, sha256: rightHash ? sha256(bytes) : 'x' };
          let table: Float32Array;
          try {
            table = readStaticTable(bytes, spec);
          } catch (error) {
            assert.ok(error instanceof Error);
            assert.match(error.message, /^static model table: /);
            return;
          }
          assert.equal(table.length, rows * dimensions);
          assert.ok(table.every(Number.isFinite));
        },
      ),
      { numRuns: 500 },
    );
  });

  describe('a broken model folder', () => {
    let dir: string;
    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-static-'));
      fs.cpSync(STATIC_DIR, path.join(dir, 'static'), { recursive: true });
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('is an error in the log and search by words, not a crash', async () => {
      const table = path.join(dir, 'static', 'embeddings.bin');
      const bytes = fs.readFileSync(table);
      bytes[0] = (bytes[0] as number) ^ 1;
      fs.writeFileSync(table, bytes);
      const { logger, lines } = capturingLogger();
      const provider = await loadEmbeddings('static', {
        cacheDir: dir,
        logger,
        modelsDir: dir,
        allowRemote: false,
      });
      assert.equal(provider, null);
      const error = lines.find((r) => r.level === 50);
      assert.ok(error, 'an error line');
      assert.equal(error.model, STATIC_MODEL);
      assert.match(String(error.err), /SHA-256 does not match/);
    });
  });
});
