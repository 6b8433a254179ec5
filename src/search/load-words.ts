// A long load on both cores: a worker thread (load-words-worker.ts) parses the log ahead of the
// store and tokenizes each memory's words; the words index takes its term ids (renumbered into
// its own vocabulary, in the order it meets them, as if it had tokenized them itself) instead of
// tokenizing again. What the worker did not send, or sent of another line, is tokenized here.
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../platform/package-root.js';
import type { LogSpan, PreparedRecord } from '../storage/engine.js';

export type LoadWordsSpan = LogSpan;

/** What the worker sends for a stretch of the log. */
export interface LoadWordsChunk {
  /** Every line before this byte was seen. */
  through: number;
  /** The stems it numbered for the first time in this chunk, in order of their number. */
  stems: string[];
  /**
   * By memory line: where it is and how long, its term ids' end in `terms`, its id, its status
   * code (`statusCode`; 0 for a line of another namespace, which the store reads itself), and
   * five numbers (`valuesOf`: the decay numbers, then the content hash).
   */
  offsets: Float64Array;
  lengths: Int32Array;
  termEnds: Int32Array;
  terms: Int32Array;
  ids: string[];
  statuses: Uint8Array;
  values: Float64Array;
}

/** How many numbers a line has in `LoadWordsChunk.values`. */
export const LINE_VALUES = 5;

/** A memory line's words as the worker read them: views the next `take` reuses. */
export interface PreparedWords {
  /** Term ids in the index's vocabulary, as `Tokenizer.termIds` answers them. */
  terms: Int32Array;
  /** `valuesOf` the record: the decay numbers, then `normalizedContentHash` of its content. */
  values: Float64Array;
}

/** Numbers a stem in the index's vocabulary (learning it), and says when numbers change. */
export interface Vocabulary {
  learn(stem: string): number;
  /** Changes whenever ids already given are given to other stems (a compaction, a restore). */
  readonly generation: number;
}

/**
 * Chunks the worker sends ahead of what the main thread has taken before it waits: what it holds
 * ahead is bounded. The main thread takes a chunk only by asking for a line past it.
 */
export const MAX_AHEAD = 8;

/** Whether this module runs from its TypeScript source (the tests, under tsx). */
const fromSource = import.meta.url.endsWith('.ts');

function startWorker(span: LogSpan): Worker {
  if (!fromSource) {
    return new Worker(workerEntry(import.meta.url, 'load-words-worker'), { workerData: span });
  }
  // A worker does not inherit tsx's hooks: it registers them before importing the source.
  const source = new URL('./load-words-worker.ts', import.meta.url).href;
  return new Worker(
    `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); })`,
    { eval: true, workerData: span },
  );
}

export class LoadWords {
  private readonly worker: Worker;
  private readonly chunks: LoadWordsChunk[] = [];
  /** The line of chunks[0] the next `take` looks at first. */
  private line = 0;
  private taken = 0;
  private through: number;
  private ended = false;
  private waiting: { offset: number; resolve: () => void }[] = [];
  /** The worker's stems by its term id, and (1 + ) each one's id in `vocabulary`, 0 unknown. */
  private readonly stems: string[] = [];
  private ids = new Int32Array(1024);
  private generation: number;
  /** What `take` answers in: reused, so a line costs no array. */
  private termsOut = new Int32Array(1024);

  constructor(
    span: LogSpan,
    private readonly vocabulary: Vocabulary,
  ) {
    this.through = span.from;
    this.generation = vocabulary.generation;
    this.worker = startWorker(span);
    this.worker.unref();
    this.worker.on('message', (message: LoadWordsChunk | { done: true } | { through: number }) => {
      if ('done' in message) this.end();
      else if ('offsets' in message) this.received(message);
      else this.passed(message.through);
    });
    // A worker that fails costs only time: the main thread tokenizes what it did not send.
    this.worker.on('error', () => this.end());
    this.worker.on('exit', () => this.end());
  }

  /** Resolves once the worker has read the log up to `offset`, or stopped. */
  reached(offset: number): Promise<void> {
    // A worker with all its chunks untaken waits for the main thread, which takes one only by
    // asking for a line past it (never for lines of other namespaces, deletes, a line too long
    // to read): waiting for it then would wait forever. The main thread reads on by itself.
    if (this.ended || this.through >= offset || this.chunks.length >= MAX_AHEAD) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push({ offset, resolve }));
  }

  stop(): void {
    this.end();
    this.chunks.length = 0;
    void this.worker.terminate();
  }

  /**
   * The words the worker read of the memory line at `offset`, `length` bytes long, if it sent
   * them; lines are asked for in the order of the log, and those before are let go.
   */
  take(offset: number, length: number): PreparedWords | undefined {
    const line = this.find(offset, length);
    if (line === -1) return undefined;
    this.line++;
    return this.prepared(this.chunks[0] as LoadWordsChunk, line);
  }

  /**
   * The id and status of the memory line at `offset` (`length` bytes long) as the worker parsed
   * it, if it did and it is of the default namespace; `take` then answers its words.
   */
  record(offset: number, length: number): PreparedRecord | undefined {
    const line = this.find(offset, length);
    if (line === -1) return undefined;
    const chunk = this.chunks[0] as LoadWordsChunk;
    const status = chunk.statuses[line] as number;
    return status === 0 ? undefined : { id: chunk.ids[line] as string, status };
  }

  /** The line of chunks[0] the worker sent for this one of the log, or -1. */
  private find(offset: number, length: number): number {
    for (;;) {
      const chunk = this.chunks[0];
      if (!chunk) return -1;
      const count = chunk.offsets.length;
      while (this.line < count && (chunk.offsets[this.line] as number) < offset) this.line++;
      if (this.line < count) {
        if (chunk.offsets[this.line] !== offset || chunk.lengths[this.line] !== length) return -1;
        return this.line;
      }
      if (chunk.through > offset) return -1;
      this.chunks.shift();
      this.line = 0;
      this.taken++;
      if (!this.ended) this.worker.postMessage({ taken: this.taken });
    }
  }

  private prepared(chunk: LoadWordsChunk, line: number): PreparedWords {
    if (this.vocabulary.generation !== this.generation) {
      this.generation = this.vocabulary.generation;
      this.ids.fill(0);
    }
    const from = line === 0 ? 0 : (chunk.termEnds[line - 1] as number);
    const to = chunk.termEnds[line] as number;
    if (to - from > this.termsOut.length) this.termsOut = new Int32Array(2 * (to - from));
    const terms = this.termsOut;
    for (let k = from; k < to; k++) {
      const own = chunk.terms[k] as number;
      let id = (this.ids[own] as number) - 1;
      if (id < 0) {
        id = this.vocabulary.learn(this.stems[own] as string);
        this.ids[own] = id + 1;
      }
      terms[k - from] = id;
    }
    return {
      terms: terms.subarray(0, to - from),
      values: chunk.values.subarray(line * LINE_VALUES, (line + 1) * LINE_VALUES),
    };
  }

  private received(chunk: LoadWordsChunk): void {
    for (const stem of chunk.stems) this.stems.push(stem);
    if (this.stems.length > this.ids.length) {
      const ids = new Int32Array(Math.max(this.stems.length, this.ids.length * 2));
      ids.set(this.ids);
      this.ids = ids;
    }
    this.chunks.push(chunk);
    this.through = chunk.through;
    this.wake();
  }

  /** The worker read on to `through` and found no line to send (inside one past the cap). */
  private passed(through: number): void {
    this.through = through;
    this.wake();
  }

  private end(): void {
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    this.waiting = this.waiting.filter((w) => {
      // A full window resolves too, as in `reached`: the worker waits for the main thread.
      if (!this.ended && this.through < w.offset && this.chunks.length < MAX_AHEAD) return true;
      w.resolve();
      return false;
    });
  }
}
