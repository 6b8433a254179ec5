// The second core's part of a long load (load-words.ts starts it): reads memories.jsonl from a
// line start to a size, parses each memory line and tokenizes its words as the retriever would
// with no note, so the thread that builds the indexes only numbers them; with each it sends what
// the store and the index keep of the record (id, status, the numbers), so that thread need not
// parse the line at all. Nothing here decides what is indexed: a line it could not read is
// simply not sent, and the main thread reads it itself.
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { DEFAULT_NAMESPACE } from '../storage/engine.js';
import { MAX_LINE_BYTES, NEWLINE, readFully } from '../storage/jsonl-lines.js';
import { isTombstone, MEMORY_STATUSES, toMemoryRecord } from '../storage/records.js';
import { documentOf } from './document.js';
import { normalizedContentHash, valuesOf } from './lexical-index.js';
import { type LoadWordsChunk, type LoadWordsSpan, MAX_AHEAD } from './load-words.js';
import { Tokenizer } from './tokenizer.js';

/** Bytes read and sent at a time. */
const CHUNK_BYTES = 2 << 20;

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
    let carry: Buffer = Buffer.alloc(0);
    let carryAt = span.from;
    let sentThrough = span.from;
    /** In a line past the cap, skipped to its end as the store skips it. */
    let skipping = false;
    for (let at = span.from; at < span.to; ) {
      while (sent - taken >= MAX_AHEAD) await new Promise<void>((resolve) => (wake = resolve));
      // Read in after the line begun in the last chunk: the chunk itself is never copied.
      const whole = Buffer.allocUnsafe(carry.length + Math.min(CHUNK_BYTES, span.to - at));
      carry.copy(whole, 0);
      const read = readFully(fd, whole.subarray(carry.length), at);
      if (read === 0) break;
      at += read;
      const buf = whole.subarray(0, carry.length + read);
      const chunk = newChunk();
      let start = 0;
      for (;;) {
        const nl = buf.indexOf(NEWLINE, start);
        if (nl === -1) break;
        if (!skipping) addLine(chunk, tokenizer, buf, start, nl, carryAt + start);
        skipping = false;
        start = nl + 1;
      }
      carryAt += start;
      // A line past the cap is not read by the store either: only its length is followed.
      carry = start < buf.length && !skipping ? Buffer.from(buf.subarray(start)) : Buffer.alloc(0);
      if (skipping || carry.length > MAX_LINE_BYTES + 1) {
        carryAt += buf.length - start;
        carry = Buffer.alloc(0);
        skipping = true;
      }
      if (chunk.offsets.length === 0) {
        // Inside a long line nothing was read: only how far, which takes no place in the window
        // (a line of 256 MB sent a chunk every 16 MB, filled it and waited on the main thread,
        // which waited on it).
        if (carryAt !== sentThrough) port?.postMessage({ through: carryAt });
        sentThrough = carryAt;
        continue;
      }
      sentThrough = carryAt;
      const stems = tokenizer.vocabulary().slice(stemsSent);
      stemsSent += stems.length;
      const message = finish(chunk, carryAt, stems);
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
  for (const value of valuesOf(record, normalizedContentHash(record.content))) {
    chunk.values.push(value);
  }
}

function finish(chunk: Building, through: number, stems: string[]): LoadWordsChunk {
  return {
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
