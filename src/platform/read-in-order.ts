// Reading a file's ranges into memory with several reads in flight, handed over in file order.
//
// Memory a process touches for the first time is what a start pays most for on a small VM (about
// 3 ms a megabyte on the benchmark's): one thread reading a million memories' 344 MB sidecar took
// 1.0-1.3 s, and the checksum over the freshly read columns 0.5-0.7 s more, where the same bytes
// read through one reused buffer and checksummed take 0.1 s. Reads in the thread pool fault
// their pages in on every core at once, and the caller checksums each piece as soon as it and
// every piece before it are in, while the pool reads on: 1.0 s for both.
import fs from 'node:fs';

/** Bytes read at once. */
export const PIECE_BYTES = 4 << 20;
/** Reads in flight at most (libuv's pool has four threads). */
export const READS_IN_FLIGHT = 4;
/** Pieces read ahead of the one handed over at most: what waits to be handed over is bounded. */
const AHEAD = 2 * READS_IN_FLIGHT;

/** A range of the file to read into `into` (whole), starting at byte `from`. */
export interface Range {
  from: number;
  into: Uint8Array;
}

/** A file ended before a range did. */
export class ShortFileError extends Error {
  override name = 'ShortFileError';
}

const readOnce = (fd: number, into: Uint8Array, position: number) =>
  new Promise<number>((resolve, reject) => {
    fs.read(fd, into, 0, into.length, position, (error, n) => (error ? reject(error) : resolve(n)));
  });

/**
 * Fills each range from the open file `fd`, in pieces of at most `pieceBytes` read in the thread
 * pool, and calls `each` with every piece in file order (ranges in the order given, which the
 * caller sorts), each once it and all before it are read. Rejects with ShortFileError when the
 * file ends before a range, or with the read's error, once no read is in flight any more (the
 * caller may close `fd` then); `each` throwing stops it the same way.
 */
export function readInOrder(
  fd: number,
  ranges: readonly Range[],
  each: (piece: Uint8Array) => void,
  pieceBytes = PIECE_BYTES,
): Promise<void> {
  const pieces: { at: number; view: Uint8Array }[] = [];
  for (const { from, into } of ranges) {
    for (let at = 0; at < into.length; at += pieceBytes) {
      pieces.push({
        at: from + at,
        view: into.subarray(at, Math.min(into.length, at + pieceBytes)),
      });
    }
  }
  const read = new Array<boolean>(pieces.length).fill(false);
  return new Promise<void>((resolve, reject) => {
    let next = 0;
    let handed = 0;
    let inFlight = 0;
    let failure: unknown;
    const settle = () => {
      if (inFlight > 0) return;
      if (failure !== undefined) reject(failure);
      else if (handed === pieces.length) resolve();
    };
    const fill = async (piece: { at: number; view: Uint8Array }) => {
      let got = 0;
      while (got < piece.view.length) {
        const n = await readOnce(fd, piece.view.subarray(got), piece.at + got);
        if (n === 0) throw new ShortFileError('the file ended before what was to be read');
        got += n;
      }
    };
    const start = () => {
      while (failure === undefined && next < pieces.length && next < handed + AHEAD) {
        if (inFlight >= READS_IN_FLIGHT) return;
        const i = next++;
        inFlight++;
        fill(pieces[i] as (typeof pieces)[number]).then(
          () => {
            inFlight--;
            read[i] = true;
            try {
              while (failure === undefined && handed < pieces.length && read[handed]) {
                each((pieces[handed] as (typeof pieces)[number]).view);
                handed++;
              }
            } catch (error) {
              failure = error;
            }
            start();
            settle();
          },
          (error: unknown) => {
            inFlight--;
            failure ??= error;
            settle();
          },
        );
      }
    };
    start();
    settle();
  });
}
