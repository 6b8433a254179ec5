// A vectors.ann forged with its hash recomputed (a data dir synced from another device): the
// trailer passes, so only the check of usearch's layout stands between its bytes and usearch's
// reader, which trusts the offsets and neighbour slots it finds. Changed bytes of a real file are
// either refused (AnnMismatch, and the store builds its own) or harmless: usearch reads and
// searches them without crashing this process, and the store answers only live memories with
// their exact scores.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { AnnMismatch, verifyAnnFile, writeAnnFile } from '../../src/search/ann-file.js';
import { ANN_FILE, AnnIndex } from '../../src/search/ann-index.js';
import { verifyAnnGraph } from '../../src/search/ann-layout.js';
import { newUsearchIndex } from '../../src/search/ann-worker.js';
import { DIMS, MODEL, testVectors } from '../search/ann-support.js';
import { recordingLogger, tempDir } from '../support.js';
import { bounded, timeBoxed } from './hostile.js';

const COUNT = 1200;
const SHAPE = { model: MODEL, dimensions: DIMS, connectivity: 32 };
const GRAPH = { ...SHAPE, expansionAdd: 128, expansionSearch: 64 };

const v = testVectors(COUNT, 5);
const queries = [v.draw(), v.draw(), v.draw()];
let dir: string;
/** usearch's part of a real vectors.ann, and where its graph starts. */
let real: Buffer;
let graphAt: number;

before(async () => {
  dir = tempDir();
  const { logger } = recordingLogger();
  const ann = new AnnIndex(v.source, { threshold: 1000, dataDir: dir, logger });
  await ann.open();
  await ann.settled();
  ann.close();
  const file = path.join(dir, ANN_FILE);
  const { bytes } = verifyAnnFile(file, MODEL, DIMS);
  real = fs.readFileSync(file).subarray(0, bytes);
  graphAt = 8 + real.readUInt32LE(0) * real.readUInt32LE(4) + 64;
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Writes `bytes` as vectors.ann with a trailer that passes: what a forger can do. */
function forge(file: string, bytes: Uint8Array): void {
  writeAnnFile(file, (temp) => fs.writeFileSync(temp, bytes), {
    model: MODEL,
    dimensions: DIMS,
    count: COUNT,
  });
}

/** Changes to a real file: bytes anywhere, or a u32 of the headers and the graph set to a value. */
const mutations = fc.array(
  fc.oneof(
    fc.record({ at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }), graph: fc.boolean() }),
    fc.record({
      at: fc.nat(),
      word: fc.oneof(
        fc.constantFrom(0, 1, COUNT - 1, COUNT, COUNT + 1, 0x7fff, 0xffff, 2 ** 31, 2 ** 32 - 1),
        fc.nat(),
      ),
      graph: fc.constant(true),
    }),
  ),
  { minLength: 1, maxLength: 6 },
);

function mutate(
  changes: { at: number; byte?: number; word?: number; graph: boolean }[],
): Uint8Array {
  const bytes = Buffer.from(real);
  for (const change of changes) {
    const from = change.graph ? graphAt : 0;
    const span = bytes.length - from;
    if (change.word !== undefined) {
      // u32-aligned within the graph (counts, slots, levels and header halves).
      const at = from + (((change.at % span) >> 2) << 2);
      if (at + 4 <= bytes.length) bytes.writeUInt32LE(change.word >>> 0, at);
    } else {
      bytes[from + (change.at % span)] = change.byte as number;
    }
  }
  return new Uint8Array(bytes);
}

describe('a forged vectors.ann', () => {
  it('the real file passes the layout check', () => {
    const file = path.join(dir, 'real.ann');
    forge(file, real);
    assert.equal(verifyAnnGraph(file, SHAPE).trailer.bytes, real.length);
  });

  it('is refused, or read and searched by usearch without a crash', () => {
    const file = path.join(dir, 'forged.ann');
    fc.assert(
      fc.property(
        mutations,
        timeBoxed(20, (changes) => {
          forge(file, mutate(changes));
          try {
            verifyAnnGraph(file, SHAPE);
          } catch (error) {
            assert.ok(error instanceof AnnMismatch, String(error));
            return;
          }
          // Passed: usearch must read it and search it without touching memory out of range.
          const graph = newUsearchIndex(GRAPH);
          graph.view(file);
          for (const query of queries) {
            const found = graph.search(query, 10, 1);
            assert.ok(found.keys.length <= 10);
          }
        }),
      ),
      bounded(300),
    );
  });

  it('leaves a store answering live memories with exact scores', async () => {
    const storeDir = tempDir();
    const file = path.join(storeDir, ANN_FILE);
    try {
      await fc.assert(
        fc.asyncProperty(mutations, async (changes) => {
          forge(file, mutate(changes));
          const { logger } = recordingLogger();
          const ann = new AnnIndex(v.source, { threshold: 1000, dataDir: storeDir, logger });
          try {
            await ann.open();
            await ann.settled();
            for (const query of queries) {
              const hits = await ann.search(query, -1, 10);
              assert.ok(hits, 'the graph in use (the forged one, or the one built instead)');
              hits.ids.forEach((id, i) => {
                assert.equal(hits.sims[i], v.vectors.similarity(id, query), `${id}, exactly`);
              });
            }
            // Whatever is on disk now is a file that passes the whole check.
            verifyAnnGraph(file, SHAPE);
          } finally {
            ann.close();
          }
        }),
        bounded(8),
      );
    } finally {
      fs.rmSync(storeDir, { recursive: true, force: true });
    }
  });
});
