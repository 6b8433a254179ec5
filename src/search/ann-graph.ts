// The graph in use, on a thread of its own: the searcher maps vectors.ann and answers searches
// and coverage questions, so that a search by meaning runs beside the main thread's matching of
// the words instead of before it. One searcher a graph: a new file gets a new one, and the old one
// is let go with its mapping.
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../platform/package-root.js';
import type { AnnShape, FromSearcher, ToSearcher } from './ann-worker.js';

/** A thread running ann-worker (`searcher`: the graph in use; else the checker and builder). */
export function annThread(role?: 'searcher'): Worker {
  const worker = startWorker(import.meta.url, 'ann-worker', {
    workerData: { role: role ?? 'builder' },
  });
  // Nothing it does keeps a process that is done from exiting.
  worker.unref();
  return worker;
}

/** The nearest keys the graph found for a query, nearest first, with their distances. */
export interface GraphMatches {
  keys: BigUint64Array;
  distances: Float32Array;
}

type Pending = { resolve: (message: FromSearcher) => void; reject: (error: Error) => void };

export class AnnGraph {
  private readonly pending = new Map<number, Pending>();
  private seq = 0;
  private closed = false;
  /** Vectors in the graph, and their dimensions, as the searcher read them. */
  private count = 0;
  private dims = 0;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (message: FromSearcher) => {
      const waiting = this.pending.get(message.seq);
      if (!waiting) return;
      this.pending.delete(message.seq);
      if (message.type === 'failed') waiting.reject(new Error(message.reason));
      else waiting.resolve(message);
    });
    // A searcher gone answers nothing more: what it was asked, and what it is asked later, fails
    // (and the exact vectors answer).
    worker.on('error', (error) => this.stop(error));
    worker.on('exit', () => this.stop(new Error('the searcher stopped')));
  }

  get size(): number {
    return this.count;
  }

  get dimensions(): number {
    return this.dims;
  }

  /** Maps `file` on a new searcher; rejects when it cannot. */
  static async open(file: string, shape: AnnShape): Promise<AnnGraph> {
    const graph = new AnnGraph(annThread('searcher'));
    try {
      const answer = await graph.ask({ type: 'view', seq: 0, file, shape });
      if (answer.type !== 'viewed') throw new Error('the searcher did not map the graph');
      graph.count = answer.size;
      graph.dims = answer.dimensions;
      return graph;
    } catch (error) {
      graph.close();
      throw error;
    }
  }

  /** The `want` nearest keys to `query`. */
  async search(query: Float32Array, want: number): Promise<GraphMatches> {
    const answer = await this.ask({ type: 'search', seq: 0, query, want });
    if (answer.type !== 'found') throw new Error('the searcher answered something else');
    return { keys: answer.keys, distances: answer.distances };
  }

  /** Whether the graph holds each of `keys` (1) or not (0). */
  async contains(keys: BigUint64Array): Promise<Uint8Array> {
    const answer = await this.ask({ type: 'contains', seq: 0, keys });
    if (answer.type !== 'held') throw new Error('the searcher answered something else');
    return answer.held;
  }

  /** Ends the searcher (and its mapping); what it was asked fails. */
  close(): void {
    if (this.closed) return;
    void this.worker.terminate();
    this.stop(new Error('the graph was closed'));
  }

  private stop(error: Error): void {
    this.closed = true;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const { reject } of pending) reject(error);
  }

  private ask(message: ToSearcher): Promise<FromSearcher> {
    if (this.closed) return Promise.reject(new Error('the graph was closed'));
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(seq, { resolve, reject });
      this.worker.postMessage({ ...message, seq });
    });
  }
}
