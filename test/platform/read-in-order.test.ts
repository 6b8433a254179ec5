// Ranges read in the thread pool, several at a time, and handed over in file order.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { type Range, readInOrder, ShortFileError } from '../../src/platform/read-in-order.js';
import { tempDir } from '../support.js';

/** A file of `size` random bytes, open for reading; closed by the caller. */
function randomFile(size: number): { fd: number; bytes: Buffer } {
  const file = path.join(tempDir(), 'bytes');
  const bytes = crypto.randomBytes(size);
  fs.writeFileSync(file, bytes);
  return { fd: fs.openSync(file, 'r'), bytes };
}

describe('readInOrder', () => {
  it('fills every range with its bytes and hands each piece over once, in file order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat(300), { maxLength: 12 }),
        fc.integer({ min: 1, max: 64 }),
        async (lengths, pieceBytes) => {
          // Ranges laid one after the other with a gap of 0-7 bytes, as a sidecar's columns.
          const ranges: Range[] = [];
          let at = 0;
          for (const [i, length] of lengths.entries()) {
            at += i % 8;
            ranges.push({ from: at, into: new Uint8Array(length) });
            at += length;
          }
          const { fd, bytes } = randomFile(at);
          const handed: Uint8Array[] = [];
          try {
            await readInOrder(fd, ranges, (piece) => handed.push(Buffer.from(piece)), pieceBytes);
          } finally {
            fs.closeSync(fd);
          }
          for (const { from, into } of ranges) {
            assert.deepEqual(Buffer.from(into), bytes.subarray(from, from + into.length));
          }
          const expected = Buffer.concat(ranges.map((r) => r.into));
          assert.deepEqual(Buffer.concat(handed), expected);
          assert.ok(handed.every((piece) => piece.length <= pieceBytes && piece.length > 0));
          if (typeof zlib.crc32 === 'function') {
            let crc = 0;
            for (const piece of handed) crc = zlib.crc32(piece, crc);
            assert.equal(crc, zlib.crc32(expected));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a file that ends before a range rejects with ShortFileError', async () => {
    const { fd } = randomFile(100);
    const into = new Uint8Array(150);
    try {
      await assert.rejects(
        readInOrder(fd, [{ from: 0, into }], () => {}, 16),
        (error: unknown) => error instanceof ShortFileError,
      );
    } finally {
      fs.closeSync(fd);
    }
  });

  it('a piece whose handling throws stops the reading with that error', async () => {
    const { fd } = randomFile(1000);
    let calls = 0;
    try {
      await assert.rejects(
        readInOrder(
          fd,
          [{ from: 0, into: new Uint8Array(1000) }],
          () => {
            calls++;
            if (calls === 3) throw new Error('no more');
          },
          10,
        ),
        /no more/,
      );
    } finally {
      fs.closeSync(fd);
    }
    assert.equal(calls, 3, 'nothing handed over after the throw');
  });

  it('no ranges, or empty ones, resolve at once', async () => {
    const { fd } = randomFile(10);
    try {
      await readInOrder(fd, [], () => assert.fail('nothing to hand over'));
      await readInOrder(fd, [{ from: 5, into: new Uint8Array(0) }], () => assert.fail('empty'));
    } finally {
      fs.closeSync(fd);
    }
  });
});
