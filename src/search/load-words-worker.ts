// A worker of a long load (load-words.ts starts one or two): reads its stripes of memories.jsonl
// (the lines that start in them), parses each memory line and tokenizes its words as the
// retriever would with no note, so the thread that builds the indexes only numbers them; with
// each it sends what the store and the index keep of the record (id, status, the numbers, and
// the rank facts where the span is short: LoadWordsSpan.facts), so that thread need not parse the
// line at all. Nothing here decides what is indexed: a line it could not read (or one that runs
// past its stripe by more than TAIL_BYTES) is simply not sent, and the main thread reads it
// itself.
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { DEFAULT_NAMESPACE } from '../storage/engine.js';
import { MAX_LINE_BYTES, NEWLINE, readFully } from '../storage/jsonl-lines.js';
import { isTombstone, MEMORY_STATUSES, toMemoryRecord } from '../storage/records.js';
import { documentOf } from './document.js';
import { normalizedContentHash, putValues } from './lexical-index.js';
import { LINE_VALUES, type LoadWordsChunk, type LoadWordsSpan, TAIL_BYTES } from './load-words.js';
import { Tokenizer } from './tokenizer.js';

const port = parentPort;
if (!port) throw new Error('load-words-worker.ts runs as a worker thread');
const span = workerData as LoadWordsSpan;

let taken = 0;
let wake: (() => void) | undefined;
port.on('message', (message: { taken: number }) => {
  taken = message.taken;
  wake?.();
});

async function run(): Promise<void> {
  const fd = fs.openSync(span.path, 'r');
  try {
    // Another file than the one the store has open (replaced meanwhile): nothing is sent.
    if (fs.fstatSync(fd).ino !== span.ino) return;
    const tokenizer = new Tokenizer();
    let stemsSent = 0;
    let sent = 0;
    for (let stripe = span.index; ; stripe += span.of) {
      const start = span.from + stripe * span.stripeBytes;
      if (start >= span.to) break;
      const end = Math.min(start + span.stripeBytes, span.to);
      while (sent - taken >= span.window) await new Promise<void>((resolve) => (wake = resolve));
      // From the byte before the stripe (a newline there: a line starts at the stripe's first
      // byte) to a little past it, for the line that starts in it and ends after it.
      const readFrom = stripe === 0 ? start : start - 1;
      const buf = Buffer.allocUnsafe(Math.min(end + TAIL_BYTES, span.to) - readFrom);
      const view = buf.subarray(0, readFully(fd, buf, readFrom));
      const stop = end - readFrom;
      let at = 0;
      if (stripe !== 0) {
        const nl = view.indexOf(NEWLINE);
        at = nl === -1 ? view.length : nl + 1;
      }
      const chunk = newChunk();
      while (at < stop) {
        const nl = view.indexOf(NEWLINE, at);
        // The line runs on past what was read (or is torn at the end): the store reads it.
        if (nl === -1) break;
        addLine(chunk, tokenizer, view, at, nl, readFrom + at);
        at = nl + 1;
      }
      const through = Math.max(readFrom + at, end);
      if (chunk.lines === 0) {
        // Nothing to send (inside a long line, or no memory line): only that it was read, which
        // takes no place in the window (a line of 256 MB filled it and waited on the main
        // thread, which waited on it).
        port?.postMessage({ stripe, through });
        continue;
      }
      const stems = tokenizer.vocabulary().slice(stemsSent);
      stemsSent += stems.length;
      const message = finish(chunk, stripe, through, stems);
      port?.postMessage(message, [
        message.offsets.buffer,
        message.lengths.buffer,
        message.termEnds.buffer,
        message.terms.buffer,
        message.statuses.buffer,
        message.values.buffer,
      ] as ArrayBuffer[]);
      sent++;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** A chunk as it is built: typed columns that grow, and how much of each is filled. */
interface Building {
  lines: number;
  offsets: Float64Array;
  lengths: Int32Array;
  termEnds: Int32Array;
  statuses: Uint8Array;
  values: Float64Array;
  ids: string[];
  terms: Int32Array;
  termCount: number;
}

/** Lines a stripe's chunk has room for at first: about the lines of 2 MB of conversation text. */
const FIRST_LINES = 4096;

const newChunk = (): Building => ({
  lines: 0,
  offsets: new Float64Array(FIRST_LINES),
  lengths: new Int32Array(FIRST_LINES),
  termEnds: new Int32Array(FIRST_LINES),
  statuses: new Uint8Array(FIRST_LINES),
  values: new Float64Array(FIRST_LINES * LINE_VALUES),
  ids: [],
  terms: new Int32Array(FIRST_LINES * 64),
  termCount: 0,
});

/** `column` with room for `count` rows: itself, or a copy twice as large. */
function room<T extends Float64Array | Int32Array | Uint8Array>(column: T, count: number): T {
  if (count <= column.length) return column;
  const grown = new (column.constructor as new (n: number) => T)(
    Math.max(count, 2 * column.length),
  );
  grown.set(column);
  return grown;
}

/** Tokenizes the line `buf[start, end)` at `offset` of the log, if it is a memory's. */
function addLine(
  chunk: Building,
  tokenizer: Tokenizer,
  buf: Buffer,
  start: number,
  end: number,
  offset: number,
): void {
  const length = end - start;
  if (length === 0 || length > MAX_LINE_BYTES) return;
  let record: ReturnType<typeof toMemoryRecord>;
  /** Whether the store may take the record from what is sent: one of the default namespace. */
  let plain: boolean;
  try {
    const value: unknown = JSON.parse(buf.toString('utf8', start, end));
    if (isTombstone(value)) return;
    record = toMemoryRecord(value);
    // Another namespace (or a bad name) is left to the store, which checks it.
    const ns = (value as { namespace?: unknown }).namespace;
    plain = ns === undefined || ns === DEFAULT_NAMESPACE;
  } catch {
    return;
  }
  const terms = tokenizer.termIds(documentOf(record, undefined).words);
  chunk.terms = room(chunk.terms, chunk.termCount + terms.length);
  for (const term of terms) chunk.terms[chunk.termCount++] = term;
  const line = chunk.lines++;
  if (line === chunk.offsets.length) {
    chunk.offsets = room(chunk.offsets, line + 1);
    chunk.lengths = room(chunk.lengths, line + 1);
    chunk.termEnds = room(chunk.termEnds, line + 1);
    chunk.statuses = room(chunk.statuses, line + 1);
    chunk.values = room(chunk.values, (line + 1) * LINE_VALUES);
  }
  chunk.offsets[line] = offset;
  chunk.lengths[line] = length;
  chunk.termEnds[line] = chunk.termCount;
  chunk.ids.push(record.id);
  chunk.statuses[line] = plain ? MEMORY_STATUSES.indexOf(record.status) + 1 : 0;
  const hash = normalizedContentHash(record.content);
  putValues(chunk.values, line * LINE_VALUES, record, hash, span.facts);
}

/** The chunk as sent: views of its columns as far as they are filled (their buffers moved). */
function finish(chunk: Building, stripe: number, through: number, stems: string[]): LoadWordsChunk {
  const lines = chunk.lines;
  return {
    stripe,
    through,
    stems,
    offsets: chunk.offsets.subarray(0, lines),
    lengths: chunk.lengths.subarray(0, lines),
    termEnds: chunk.termEnds.subarray(0, lines),
    terms: chunk.terms.subarray(0, chunk.termCount),
    ids: chunk.ids,
    statuses: chunk.statuses.subarray(0, lines),
    values: chunk.values.subarray(0, lines * LINE_VALUES),
  };
}

// Closing the port after the last message lets the thread end.
run().then(
  () => {
    port.postMessage({ done: true });
    port.close();
  },
  (error: Error) => {
    port.postMessage({ done: true, error: error.message });
    port.close();
  },
);
