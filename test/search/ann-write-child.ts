// Writes vectors.ann in <dir> <rounds> times, each a graph of a different size, saying "writing"
// on stdout before each: the parent kills it with SIGKILL somewhere in a write.
import path from 'node:path';
import { writeAnnFile } from '../../src/search/ann-file.js';
import { ANN_FILE } from '../../src/search/ann-index.js';
import { newUsearchIndex } from '../../src/search/ann-worker.js';
import { DIMS, MODEL, testVectors } from './ann-support.js';

const [dir, rounds] = process.argv.slice(2) as [string, string];
const v = testVectors(3000, 9);
const shape = {
  model: MODEL,
  dimensions: DIMS,
  connectivity: 16,
  expansionAdd: 32,
  expansionSearch: 64,
};
const index = newUsearchIndex(shape);
const out = new Float32Array(DIMS);
let added = 0;
for (let round = 0; round < Number(rounds); round++) {
  for (const id of v.source.ids().slice(added, added + 50)) {
    v.source.copyVector(id, out, 0);
    index.add(BigInt(added++), out);
  }
  process.stdout.write('writing\n');
  writeAnnFile(path.join(dir, ANN_FILE), (temp) => index.save(temp), {
    model: MODEL,
    dimensions: DIMS,
    count: index.size(),
  });
}
