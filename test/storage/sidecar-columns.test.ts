// The sidecar's columns read back as written, whichever way it was written, empty ones too.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  readSidecar,
  type SidecarContent,
  writeSidecar,
  writeSidecarAsync,
} from '../../src/storage/sidecar.js';
import { tempDir } from '../support.js';

const content = (): SidecarContent => ({
  log: { size: 0, lines: 0, tail: '' } as SidecarContent['log'],
  shape: { test: 1 },
  meta: {},
  columns: {
    first: new Float64Array([1.5, 2.5]),
    emptyInside: new Int32Array(0),
    ints: new Int32Array([7, 8, 9]),
    emptyLast: new Float64Array(0),
    alsoEmpty: new Uint8Array(0),
  },
});

describe('sidecar columns', () => {
  it('empty columns, inside and last, read back from a sidecar written either way', async () => {
    const file = path.join(tempDir(), 'test.idx');
    for (const write of [
      async () => writeSidecar(file, content()),
      () => writeSidecarAsync(file, content(), async () => {}),
    ]) {
      await write();
      const read = await readSidecar(file, { test: 1 });
      assert.deepEqual(read?.columns, content().columns);
    }
  });

  it('a column asked with room is read into a buffer of that room, the rows as written, zeros after', async () => {
    const file = path.join(tempDir(), 'test.idx');
    writeSidecar(file, content());
    const read = await readSidecar(file, { test: 1 }, (name, count) =>
      name === 'ints' ? 10 : count,
    );
    const ints = read?.columns.ints as Int32Array;
    assert.deepEqual(ints, new Int32Array([7, 8, 9]));
    assert.equal(ints.buffer.byteLength, 40);
    assert.deepEqual(new Int32Array(ints.buffer), new Int32Array([7, 8, 9, 0, 0, 0, 0, 0, 0, 0]));
    const first = read?.columns.first as Float64Array;
    assert.equal(first.buffer.byteLength, 16, 'the others, just their rows');
  });
});
