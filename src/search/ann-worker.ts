// The threads of vectors.ann, so that neither hashing a file of hundreds of megabytes, nor
// inserting a million vectors into the graph, nor searching it holds the event loop that answers
// calls: the builder checks and builds the file (told what to do by ann-index.ts, it answers each
// message with one), and the searcher maps the graph in use and searches it (ann-graph.ts).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type { Index } from 'usearch';
import { AnnMismatch, writeAnnFile } from './ann-file.js';
import {
  type AnnFileIdentity,
  annFileIdentity,
  isSameAnnFile,
  verifyAnnGraph,
} from './ann-layout.js';

const requireHere = createRequire(import.meta.url);

/**
 * usearch's CommonJS build: its ES module finds its native file from the caller's stack, which in
 * a worker started from source can be no path at all (a loop that never ends); the CommonJS one
 * goes from its own folder. Required at the first graph, not when this module is: ann-index.ts
 * imports it on every start, and a store without vectors never needs the native library.
 */
function usearchLib(): typeof import('usearch').default {
  return requireHere('usearch') as typeof import('usearch').default;
}

export interface AnnShape {
  model: string;
  dimensions: number;
  connectivity: number;
  expansionAdd: number;
  expansionSearch: number;
}

export type ToWorker =
  | { type: 'verify'; file: string; shape: AnnShape }
  /** Starts a build: from the verified file `base` when given (extended), else empty. */
  | { type: 'start'; file: string; base: string | null; shape: AnnShape; checkpoint: number }
  /** Vectors to add: `keys[i]` is row i of `vectors`. `last` ends the build with a save. */
  | { type: 'add'; keys: BigUint64Array; vectors: Float32Array; last: boolean };

/**
 * What the thread that searches the graph in use is asked (its own worker, beside the builder's):
 * it maps the file once, and answers each question with the same `seq`.
 */
export type ToSearcher =
  | { type: 'view'; seq: number; file: string; shape: AnnShape }
  | { type: 'contains'; seq: number; keys: BigUint64Array }
  | { type: 'search'; seq: number; query: Float32Array; want: number };

export type FromSearcher =
  | { type: 'viewed'; seq: number; size: number; dimensions: number }
  | { type: 'held'; seq: number; held: Uint8Array }
  | { type: 'found'; seq: number; keys: BigUint64Array; distances: Float32Array }
  | { type: 'failed'; seq: number; reason: string };

export type FromWorker =
  | { type: 'verified'; ok: true; count: number; identity: AnnFileIdentity }
  | { type: 'verified'; ok: false; reason: string; missing: boolean }
  /** Asks for the next batch. */
  | { type: 'next' }
  /** vectors.ann now holds every vector sent before the batch numbered `batches`. */
  | { type: 'saved'; batches: number; count: number; last: boolean; identity: AnnFileIdentity }
  | { type: 'failed'; reason: string };

export function newUsearchIndex(shape: AnnShape): Index {
  const usearch = usearchLib();
  return new usearch.Index({
    dimensions: shape.dimensions,
    // Vectors are unit length: the inner product is the cosine (a distance of 1 - cosine).
    metric: usearch.MetricKind.IP,
    // int8 in the graph: a quarter of the bytes of float32. The candidates it proposes are scored
    // again from the exact vectors, so the rounding costs a little recall, never a wrong score.
    quantization: usearch.ScalarKind.I8,
    connectivity: shape.connectivity,
    expansion_add: shape.expansionAdd,
    expansion_search: shape.expansionSearch,
    multi: false,
  });
}

/**
 * Adds the vectors whose keys the graph lacks (a key is a 52-bit hash: two memories may share one,
 * and then the second is searched exactly). One thread: the other core answers calls.
 */
function addNew(index: Index, keys: BigUint64Array, vectors: Float32Array, d: number): void {
  const held = index.size() > 0 ? (index.contains(keys) as boolean[]) : [];
  const seen = new Set<bigint>();
  const fresh: number[] = [];
  keys.forEach((key, i) => {
    if (!held[i] && !seen.has(key)) fresh.push(i);
    seen.add(key);
  });
  if (fresh.length === keys.length) {
    index.add(keys, vectors, 1);
    return;
  }
  if (fresh.length === 0) return;
  const k = new BigUint64Array(fresh.length);
  const v = new Float32Array(fresh.length * d);
  fresh.forEach((row, i) => {
    k[i] = keys[row] as bigint;
    v.set(vectors.subarray(row * d, row * d + d), i * d);
  });
  index.add(k, v, 1);
}

/**
 * Loads the graph to extend from `file`, checked again here (it may have been replaced since this
 * process checked it) and loaded only if it is still the file checked once loaded.
 */
function loadChecked(index: Index, file: string, shape: AnnShape): void {
  const { identity } = verifyAnnGraph(file, shape);
  index.load(file);
  if (!isSameAnnFile(file, identity)) throw new AnnMismatch(`${file} was replaced while loaded`);
}

function identityAfterWrite(file: string): AnnFileIdentity {
  const identity = annFileIdentity(file);
  if (!identity) throw new Error(`${file} is gone right after it was written`);
  return identity;
}

function run(port: NonNullable<typeof parentPort>): void {
  const post = (message: FromWorker) => port.postMessage(message);
  let index: Index | undefined;
  let build: { file: string; shape: AnnShape; checkpoint: number } | undefined;
  let batches = 0;
  let sinceSave = 0;

  const save = (last: boolean) => {
    if (!index || !build) return;
    const built = index;
    const { file, shape } = build;
    const trailer = writeAnnFile(file, (temp) => built.save(temp), {
      model: shape.model,
      dimensions: shape.dimensions,
      count: built.size(),
    });
    sinceSave = 0;
    const identity = identityAfterWrite(file);
    post({ type: 'saved', batches, count: trailer.count, last, identity });
  };

  port.on('message', (message: ToWorker) => {
    try {
      if (message.type === 'verify') {
        try {
          const { trailer, identity } = verifyAnnGraph(message.file, message.shape);
          post({ type: 'verified', ok: true, count: trailer.count, identity });
        } catch (error) {
          const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
          const reason = error instanceof AnnMismatch ? error.message : String(error);
          post({ type: 'verified', ok: false, reason, missing });
        }
        return;
      }
      if (message.type === 'start') {
        build = { file: message.file, shape: message.shape, checkpoint: message.checkpoint };
        index = newUsearchIndex(message.shape);
        if (message.base) loadChecked(index, message.base, message.shape);
        batches = 0;
        sinceSave = 0;
        post({ type: 'next' });
        return;
      }
      if (!index || !build) throw new Error('vectors were sent before a build was started');
      const n = message.keys.length;
      if (n > 0) addNew(index, message.keys, message.vectors, build.shape.dimensions);
      batches++;
      sinceSave += n;
      if (message.last || sinceSave >= build.checkpoint) save(message.last);
      if (message.last) {
        index = undefined;
        build = undefined;
      } else {
        post({ type: 'next' });
      }
    } catch (error) {
      index = undefined;
      build = undefined;
      post({ type: 'failed', reason: (error as Error).message });
    }
  });
}

/** The searcher: the graph in use, mapped here, so that its search runs beside the main thread's. */
function serve(port: NonNullable<typeof parentPort>): void {
  let graph: Index | undefined;
  port.on('message', (message: ToSearcher) => {
    const { seq } = message;
    try {
      if (message.type === 'view') {
        // usearch 2.21's view of a path it cannot open closes a descriptor of the process's own
        // (stdin, seen here), which later aborts it: a file that is not there is never handed to it.
        if (!fs.statSync(message.file).isFile()) throw new Error(`${message.file} is not a file`);
        graph = newUsearchIndex(message.shape);
        graph.view(message.file);
        const reply: FromSearcher = {
          type: 'viewed',
          seq,
          size: graph.size(),
          dimensions: graph.dimensions(),
        };
        port.postMessage(reply);
        return;
      }
      if (!graph) throw new Error('no graph is mapped');
      if (message.type === 'contains') {
        const held = graph.contains(message.keys) as boolean[];
        const reply: FromSearcher = { type: 'held', seq, held: Uint8Array.from(held, Number) };
        port.postMessage(reply, [reply.held.buffer as ArrayBuffer]);
        return;
      }
      const found = graph.search(message.query, message.want, 1);
      const keys = found.keys.slice();
      const distances = found.distances.slice();
      const reply: FromSearcher = { type: 'found', seq, keys, distances };
      port.postMessage(reply, [keys.buffer as ArrayBuffer, distances.buffer as ArrayBuffer]);
    } catch (error) {
      const reply: FromSearcher = { type: 'failed', seq, reason: (error as Error).message };
      port.postMessage(reply);
    }
  });
}

if (parentPort) {
  if ((workerData as { role?: string } | null)?.role === 'searcher') serve(parentPort);
  else run(parentPort);
}
