import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import {
  type EmbeddingProvider,
  loadEmbeddings,
  MINILM_MODEL,
  SHIPPED_MODELS_DIR,
} from '../../src/search/embeddings.js';
import { fetchWithHeaderTimeout, importTransformers } from '../../src/search/minilm.js';
import { capturingLogger } from '../support.js';

/** The static model's table as the ONNX model it used to be, for transformers.js. */
const ONNX_STANDIN = fileURLToPath(new URL('../fixtures/static-onnx', import.meta.url));

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);
const norm = (a: Float32Array) => Math.sqrt(cosine(a, a));

describe('embeddings', () => {
  let cacheDir: string;
  let provider: EmbeddingProvider;

  before(async () => {
    cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-embeddings-'));
    const loaded = await loadEmbeddings('static', {
      cacheDir,
      logger: pino({ level: 'silent' }),
      allowRemote: false,
    });
    assert.ok(loaded, 'the shipped static model loads offline');
    provider = loaded;
  });
  after(() => fs.rmSync(cacheDir, { recursive: true, force: true }));

  describe('the static model', () => {
    it('loads from models/static, 100 dimensions', () => {
      assert.equal(provider.id, 'mnemo/static-glove-100d:q8');
      assert.equal(provider.dimensions, 100);
    });

    it('gives one unit vector per text, in order', async () => {
      const texts = ['the deploy script lives in ops/', 'Ralph likes jazz', 'coffee'];
      const vectors = await provider.embed(texts);
      assert.equal(vectors.length, texts.length);
      for (const v of vectors) {
        assert.equal(v.length, 100);
        assert.ok(Math.abs(norm(v) - 1) < 1e-5);
      }
      const [jazz] = await provider.embed(['Ralph likes jazz']);
      assert.deepEqual(vectors[1], jazz);
    });

    it('puts a kitten on a rug nearer a cat on the carpet than a tax deadline', async (t) => {
      const [kitten, cat, tax] = await provider.embed([
        'a kitten sleeping on a rug',
        'cat resting on the carpet',
        'quarterly tax filing deadline',
      ]);
      assert.ok(kitten && cat && tax);
      const near = cosine(kitten, cat);
      const far = cosine(kitten, tax);
      t.diagnostic(`kitten~cat ${near.toFixed(3)}, kitten~tax ${far.toFixed(3)}`);
      assert.ok(near > 0.5, `kitten~cat ${near}`);
      assert.ok(near - far > 0.4, `kitten~cat ${near} vs kitten~tax ${far}`);
    });

    it('gives the same vector for the same text, whatever else is in the batch', async () => {
      const text = 'Caroline went to the LGBTQ support group on Tuesday';
      const [alone] = await provider.embed([text]);
      const others = Array.from({ length: 70 }, (_, i) => `filler ${i} ${'word '.repeat(i)}`);
      const batch = await provider.embed([...others.slice(0, 40), text, ...others.slice(40)]);
      assert.deepEqual(batch[40], alone);
      assert.deepEqual(await provider.embed([text]), [alone]);
    });

    it('gives the zero vector to a text with no known word, without throwing', async () => {
      const [empty, unknown, punctuation, known] = await provider.embed([
        '',
        'xyzzyq qwxzv',
        '?!',
        'cat',
      ]);
      for (const v of [empty, unknown, punctuation]) {
        assert.ok(v);
        assert.equal(v.length, 100);
        assert.ok(v.every((x) => x === 0));
      }
      assert.ok(known && Math.abs(norm(known) - 1) < 1e-5);
      assert.deepEqual(await provider.embed([]), []);
      assert.deepEqual(await provider.embed(['']), [empty]);
    });

    it('reads case, accents and unknown words the way its vocabulary needs', async () => {
      const [a, b] = await provider.embed(['Café au LAIT', 'cafe au lait']);
      assert.deepEqual(a, b);
      const [plain, withUnknown] = await provider.embed(['cat on a mat', 'cat on a mat qwxzv']);
      // An unknown word adds a zero row: the mean shrinks, its direction does not.
      assert.ok(plain && withUnknown && cosine(plain, withUnknown) > 0.99999);
    });

    it('embeds long texts and many texts in bounded batches', async () => {
      const long = 'the cat sat on the mat. '.repeat(3000);
      const texts = [long, ...Array.from({ length: 100 }, (_, i) => `note ${i} about cats`)];
      const vectors = await provider.embed(texts);
      assert.equal(vectors.length, 101);
      assert.ok(vectors.every((v) => Math.abs(norm(v) - 1) < 1e-5));
    });

    it('answers concurrent calls each with its own vectors', async () => {
      const [a, b] = await Promise.all([provider.embed(['cat']), provider.embed(['tax'])]);
      assert.deepEqual(a, await provider.embed(['cat']));
      assert.deepEqual(b, await provider.embed(['tax']));
    });
  });

  describe('choosing a provider', () => {
    it('off gives no provider', async () => {
      assert.equal(
        await loadEmbeddings('off', { cacheDir, logger: pino({ level: 'silent' }) }),
        null,
      );
    });

    it('minilm that is not cached, offline, falls back to static with one warning', async () => {
      const log = capturingLogger();
      const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-empty-cache-'));
      try {
        const loaded = await loadEmbeddings('minilm', {
          cacheDir: empty,
          logger: log.logger,
          allowRemote: false,
        });
        assert.equal(loaded?.id, 'mnemo/static-glove-100d:q8');
        const warnings = log.lines.filter((l) => l.level === 40);
        assert.equal(warnings.length, 1);
        assert.equal(log.lines.length, 1);
        const [warning] = warnings;
        assert.match(String(warning?.msg), /cannot load Xenova\/all-MiniLM-L6-v2/);
        assert.match(String(warning?.err), new RegExp(empty.replaceAll('/', '\\/')));
        assert.equal(warning?.stack, undefined);
      } finally {
        fs.rmSync(empty, { recursive: true, force: true });
      }
    });

    it('auto offline falls back to static with an info line, not a warning', async () => {
      const log = capturingLogger();
      const loaded = await loadEmbeddings('auto', {
        cacheDir,
        logger: log.logger,
        allowRemote: false,
      });
      assert.equal(loaded?.id, 'mnemo/static-glove-100d:q8');
      assert.deepEqual(
        log.lines.map((l) => l.level),
        [30],
      );
    });

    it('minilm loads from the cache folder offline once it is there', async () => {
      // Stand-in files where a download of MiniLM would have put them: this exercises the
      // cache lookup, not MiniLM itself (which cannot be fetched here).
      const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-cache-'));
      try {
        fs.cpSync(ONNX_STANDIN, path.join(cache, MINILM_MODEL), { recursive: true });
        for (const file of ['tokenizer.json', 'tokenizer_config.json']) {
          fs.copyFileSync(
            path.join(SHIPPED_MODELS_DIR, 'static', file),
            path.join(cache, MINILM_MODEL, file),
          );
        }
        const log = capturingLogger();
        const loaded = await loadEmbeddings('minilm', {
          cacheDir: cache,
          logger: log.logger,
          allowRemote: false,
        });
        assert.equal(loaded?.id, 'Xenova/all-MiniLM-L6-v2:q8');
        assert.deepEqual(log.lines, []);
        // The stand-in is the static model's table as an ONNX graph: the ONNX runtime and the
        // plain TypeScript model give the same vectors.
        const texts = ['a kitten sleeping on a rug', 'Café au LAIT', '', 'xyzzyq cat'];
        assert.deepEqual(await loaded?.embed(texts), await provider.embed(texts));
      } finally {
        fs.rmSync(cache, { recursive: true, force: true });
      }
    });

    it('without @huggingface/transformers installed, names the package, the setting and the fix', async () => {
      const missing = Object.assign(new Error("Cannot find package '@huggingface/transformers'"), {
        code: 'ERR_MODULE_NOT_FOUND',
      });
      await assert.rejects(
        importTransformers(() => Promise.reject(missing)),
        (error: Error) =>
          /needs the package @huggingface\/transformers, which is not installed/.test(
            error.message,
          ) &&
          /npm install @huggingface\/transformers/.test(error.message) &&
          /MNEMO_EMBEDDINGS=static/.test(error.message),
      );
      // Any other failure of the import is its own.
      const broken = new Error('native binding failed');
      await assert.rejects(
        importTransformers(() => Promise.reject(broken)),
        broken,
      );
    });

    it('without the static model, logs an error and gives no provider', async () => {
      const log = capturingLogger();
      const nowhere = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-no-models-'));
      try {
        const loaded = await loadEmbeddings('static', {
          cacheDir,
          logger: log.logger,
          modelsDir: nowhere,
          allowRemote: false,
        });
        assert.equal(loaded, null);
        assert.deepEqual(
          log.lines.map((l) => l.level),
          [50],
        );
      } finally {
        fs.rmSync(nowhere, { recursive: true, force: true });
      }
    });
  });
});

describe('model downloads', () => {
  it('give up on a server that accepts the connection but never answers', async () => {
    const sockets: import('node:net').Socket[] = [];
    const server = http.createServer(() => {
      // Never answers.
    });
    server.on('connection', (socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as import('node:net').AddressInfo;
    try {
      await assert.rejects(
        fetchWithHeaderTimeout(`http://127.0.0.1:${port}/model.onnx`, undefined, 100),
        /no answer from http:\/\/127\.0\.0\.1:\d+\/model\.onnx in 100 ms/,
      );
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('keep a response that has begun, however long its body takes', async () => {
    // The body ends once the headers are in and the timeout has passed since the call: a busy
    // machine slow to answer the headers still has the whole timeout for them.
    const timeoutMs = 500;
    let endBody: (() => void) | undefined;
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first ');
      endBody = () => res.end('last');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as import('node:net').AddressInfo;
    try {
      const called = performance.now();
      const response = await fetchWithHeaderTimeout(
        `http://127.0.0.1:${port}/`,
        undefined,
        timeoutMs,
      );
      const body = response.text();
      const left = called + timeoutMs + 200 - performance.now();
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, left)));
      endBody?.();
      assert.equal(await body, 'first last');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
