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
import { normalizedContentHash, valuesOf } from './lexical-index.js';
import { type LoadWordsChunk, type LoadWordsSpan, TAIL_BYTES } from './load-words.js';
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
      if (chunk.offsets.length === 0) {
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

interface Building {
  offsets: number[];
  lengths: number[];
  termEnds: number[];
  terms: number[];
  ids: string[];
  statuses: number[];
  values: number[];
}

const newChunk = (): Building => ({
  offsets: [],
  lengths: [],
  termEnds: [],
  terms: [],
  ids: [],
  statuses: [],
  values: [],
});

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
  for (const term of tokenizer.termIds(documentOf(record, undefined).words)) chunk.terms.push(term);
  chunk.offsets.push(offset);
  chunk.lengths.push(length);
  chunk.termEnds.push(chunk.terms.length);
  chunk.ids.push(record.id);
  chunk.statuses.push(plain ? MEMORY_STATUSES.indexOf(record.status) + 1 : 0);
  for (const value of valuesOf(record, normalizedContentHash(record.content), span.facts)) {
    chunk.values.push(value);
  }
}

function finish(chunk: Building, stripe: number, through: number, stems: string[]): LoadWordsChunk {
  return {
    stripe,
    through,
    stems,
    offsets: Float64Array.from(chunk.offsets),
    lengths: Int32Array.from(chunk.lengths),
    termEnds: Int32Array.from(chunk.termEnds),
    terms: Int32Array.from(chunk.terms),
    ids: chunk.ids,
    statuses: Uint8Array.from(chunk.statuses),
    values: Float64Array.from(chunk.values),
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
