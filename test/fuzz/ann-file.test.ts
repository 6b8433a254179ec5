// vectors.ann is read at every start of a large store, and a data dir is synced, copied and
// edited by hand: any bytes may be there. The check never throws anything but AnnMismatch, never
// passes a file mnemo did not write whole, and a store over such a file answers exactly (never a
// wrong hit) and builds the file again.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import fc from 'fast-check';
import { AnnMismatch, verifyAnnFile, writeAnnFile } from '../../src/search/ann-file.js';
import { ANN_FILE, AnnIndex } from '../../src/search/ann-index.js';
import { DIMS, MODEL, testVectors } from '../search/ann-support.js';
import { recordingLogger, tempDir, testDir } from '../support.js';
import { bounded } from './hostile.js';

/** `bytes` with a trailer that says they are whole: what only the hash stands between. */
function withTrailer(file: string, bytes: Uint8Array): void {
  writeAnnFile(file, (temp) => fs.writeFileSync(temp, bytes), {
    model: MODEL,
    dimensions: DIMS,
    count: 1,
  });
}

const anyBytes = fc.oneof(
  fc.uint8Array({ maxLength: 4096 }),
  // Bytes that end like a trailer: its magic, after a length and some JSON.
  fc
    .tuple(
      fc.uint8Array({ maxLength: 512 }),
      fc.jsonValue(),
      fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    )
    .map(([head, json, length]) => {
      const meta = Buffer.from(JSON.stringify(json) ?? '', 'utf8');
      const end = Buffer.alloc(12);
      end.writeUInt32LE(length % (meta.length + 8), 0);
      Buffer.from('MNEMOANN').copy(end, 4);
      return new Uint8Array(Buffer.concat([head, meta, end]));
    }),
);

it('the check of vectors.ann takes any bytes, throwing only AnnMismatch', () => {
  const dir = tempDir();
  const file = path.join(dir, ANN_FILE);
  try {
    fc.assert(
      fc.property(anyBytes, (bytes) => {
        fs.writeFileSync(file, bytes);
        assert.throws(() => verifyAnnFile(file, MODEL, DIMS), AnnMismatch);
      }),
      bounded(500),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('a whole file with any byte changed is refused', () => {
  const dir = tempDir();
  const file = path.join(dir, ANN_FILE);
  try {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 2048 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (bytes, at, flip) => {
          withTrailer(file, bytes);
          assert.equal(verifyAnnFile(file, MODEL, DIMS).bytes, bytes.length);
          const all = fs.readFileSync(file);
          const i = at % all.length;
          all[i] = (all[i] as number) ^ flip;
          fs.writeFileSync(file, all);
          assert.throws(() => verifyAnnFile(file, MODEL, DIMS), AnnMismatch);
        },
      ),
      bounded(300),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('a store over any vectors.ann answers exactly until it has built its own', async (t) => {
  const v = testVectors(1200, 11);
  const queries = [v.draw(), v.draw(), v.draw()];
  const exact = await Promise.all(queries.map((q) => v.vectors.search(q, -1, 10)));
  await fc.assert(
    fc.asyncProperty(anyBytes, async (bytes) => {
      const dir = testDir(t);
      const file = path.join(dir, ANN_FILE);
      // Only the hash keeps such bytes from usearch, whose reader trusts the offsets it finds
      // (a file made to pass the hash is out of reach of this check: see ann-file.ts).
      fs.writeFileSync(file, bytes);
      const { logger } = recordingLogger();
      const ann = new AnnIndex(v.source, { threshold: 1000, dataDir: dir, logger });
      try {
        await ann.open();
        for (const [i, query] of queries.entries()) {
          const hits = await ann.search(query, -1, 10);
          // undefined: the exact search answers; else the graph's answer, with exact scores.
          if (hits) {
            hits.ids.forEach((id, j) => {
              assert.equal(hits.sims[j], v.vectors.similarity(id, query));
            });
          } else {
            assert.ok(exact[i]);
          }
        }
        await ann.settled();
        assert.equal(verifyAnnFile(file, MODEL, DIMS).count, 1200);
      } finally {
        ann.close();
      }
    }),
    bounded(12),
  );
});
