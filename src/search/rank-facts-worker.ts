// The worker that fills in the rank facts a long load left unknown (rank-facts-fill.ts starts it,
// once the store has loaded): reads the span of memories.jsonl from its end back to its start,
// parses each memory line of the default namespace and sends its id, its content's hash and its
// `rankFactsOf`. From the end: a memory's latest line in the span comes first, which is the one
// the index holds; the thread that keeps the facts takes a memory's first only. Nothing here
// decides anything: a line it cannot read is not sent (its facts stay unknown, and a search reads
// its record when it needs them).
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { DEFAULT_NAMESPACE } from '../storage/engine.js';
import { NEWLINE, readFully } from '../storage/jsonl-lines.js';
import { isTombstone, toMemoryRecord } from '../storage/records.js';
import { normalizedContentHash } from './lexical-index.js';
import { rankFactsOf } from './rank-facts.js';
import type { RankFactsBatch, RankFactsSpan } from './rank-facts-fill.js';

const port = parentPort;
if (!port) throw new Error('rank-facts-worker.ts runs as a worker thread');
const span = workerData as RankFactsSpan;

/** The bytes read at a time, backwards; a line longer than this is skipped. */
const BLOCK_BYTES = span.blockBytes ?? 1 << 20;
/** The memories sent at a time. */
const BATCH_LINES = 4096;

let batch = newBatch();

function run(): void {
  const fd = fs.openSync(span.path, 'r');
  try {
    // Another file than the one the store read (replaced meanwhile): nothing is sent.
    if (fs.fstatSync(fd).ino !== span.ino) return;
    const buf = Buffer.allocUnsafe(BLOCK_BYTES);
    // Every line before `end` is still to read, and `end` is where one starts (or the span ends).
    let end = span.to;
    while (end > span.from) {
      const start = Math.max(span.from, end - BLOCK_BYTES);
      const view = buf.subarray(0, readFully(fd, buf.subarray(0, end - start), start));
      // The end of the block's last whole line (past it: a torn tail, at the span's end only).
      let lineEnd = view.lastIndexOf(NEWLINE);
      // The first line of the block may have begun before it: it is the next block's.
      let first = 0;
      if (start > span.from) {
        const nl = view.indexOf(NEWLINE);
        if (nl === -1 || nl === lineEnd) {
          // Not one whole line in the block: the last one, longer than a block, is skipped.
          end = lineStart(fd, start);
          continue;
        }
        first = nl + 1;
      }
      // The lines of [first, lineEnd], last first.
      while (lineEnd >= first) {
        const nl = lineEnd === first ? -1 : view.lastIndexOf(NEWLINE, lineEnd - 1);
        const lineFrom = Math.max(nl + 1, first);
        addLine(view, lineFrom, lineEnd);
        lineEnd = lineFrom - 1;
      }
      end = start + first;
    }
    if (batch.ids.length > 0) send();
  } finally {
    fs.closeSync(fd);
  }
}

/** Where the line that holds byte `at` starts: a line longer than a block is skipped whole. */
function lineStart(fd: number, at: number): number {
  const buf = Buffer.allocUnsafe(Math.min(BLOCK_BYTES, 64 << 10));
  let end = at;
  while (end > span.from) {
    const start = Math.max(span.from, end - buf.length);
    const view = buf.subarray(0, readFully(fd, buf.subarray(0, end - start), start));
    const nl = view.lastIndexOf(NEWLINE);
    if (nl !== -1) return start + nl + 1;
    end = start;
  }
  return span.from;
}

/** Adds the memory of the line `buf[start, end)`, if it is one of the default namespace. */
function addLine(buf: Buffer, start: number, end: number): void {
  if (end === start) return;
  try {
    const value: unknown = JSON.parse(buf.toString('utf8', start, end));
    if (isTombstone(value)) return;
    const ns = (value as { namespace?: unknown }).namespace;
    if (ns !== undefined && ns !== DEFAULT_NAMESPACE) return;
    const record = toMemoryRecord(value);
    batch.ids.push(record.id);
    batch.hashes.push(normalizedContentHash(record.content));
    for (const fact of rankFactsOf(record)) batch.facts.push(fact);
  } catch {
    return;
  }
  if (batch.ids.length >= BATCH_LINES) send();
}

function newBatch(): { ids: string[]; hashes: number[]; facts: number[] } {
  return { ids: [], hashes: [], facts: [] };
}

function send(): void {
  const message: RankFactsBatch = {
    ids: batch.ids,
    hashes: Float64Array.from(batch.hashes),
    facts: Float64Array.from(batch.facts),
  };
  port?.postMessage(message, [message.hashes.buffer, message.facts.buffer] as ArrayBuffer[]);
  batch = newBatch();
}

try {
  run();
  port.postMessage({ done: true });
} catch (error) {
  port.postMessage({ done: true, error: (error as Error).message });
} finally {
  port.close();
}
