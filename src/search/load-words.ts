// A long load on both cores: worker threads (load-words-worker.ts) parse the log ahead of the
// store and tokenize each memory's words; the words index takes their term ids (renumbered into
// its own vocabulary, in the order it meets them, as if it had tokenized them itself) instead of
// tokenizing again. The log is cut into stripes of STRIPE_BYTES dealt to the workers in turn (a
// line belongs to the stripe it starts in), so two workers share the parsing and the main thread
// takes their lines in the log's order. What no worker sent, or sent of another line, is
// tokenized here.
import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../platform/package-root.js';
import type { LogSpan, PreparedRecord } from '../storage/engine.js';
import { INDEX_VALUES } from './lexical-index.js';

/** What a worker is given: the span, and which of its stripes are this worker's. */
export interface LoadWordsSpan extends LogSpan {
  /** This worker takes stripes index, index + of, index + 2 * of, ... of the span. */
  index: number;
  of: number;
  /** Chunks it sends ahead of what the main thread has taken before it waits. */
  window: number;
  /** The bytes of a stripe (STRIPE_BYTES but in tests). */
  stripeBytes: number;
  /** Whether it reads each memory's rank facts too (a short log's: FACTS_IN_LOAD_BYTES). */
  facts: boolean;
}

/** The bytes of a stripe; a worker reads and sends one at a time. */
export const STRIPE_BYTES = 2 << 20;

/**
 * How far past its stripe a worker reads to end the stripe's last line: a line that runs on
 * further is not sent (the main thread reads it).
 */
export const TAIL_BYTES = 64 << 10;

/**
 * A log at most this long has its memories' rank facts read by the load's workers (a fifth to a
 * quarter more first start at 100,000 memories, paid once), so that its sidecar holds them and
 * the next start's searches need not read records for them; a longer one leaves them to the fill
 * behind the calls (rank-facts-fill.ts), where a third more of a million's first start and more
 * would be in the way of its 10 s.
 */
export const FACTS_IN_LOAD_BYTES = 128 << 20;

/** A span this long or longer is shared by two workers, where there are two cores. */
const SHARED_FROM_BYTES = 4 * STRIPE_BYTES;

/** What the worker sends for a stretch of the log. */
export interface LoadWordsChunk {
  /** The stripe it is of. */
  stripe: number;
  /** Every line of the stripe before this byte was seen (at least the stripe's end). */
  through: number;
  /** The stems it numbered for the first time in this chunk, in order of their number. */
  stems: string[];
  /**
   * By memory line: where it is and how long, its term ids' end in `terms`, its id, its status
   * code (`statusCode`; 0 for a line of another namespace, which the store reads itself), and
   * INDEX_VALUES numbers (`valuesOf`: the decay numbers, the content hash, the rank facts).
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
export const LINE_VALUES = INDEX_VALUES;

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
 * Chunks the workers send ahead of what the main thread has taken before they wait: what they
 * hold ahead is bounded. The main thread takes a chunk only by asking for a line past it.
 */
export const MAX_AHEAD = 8;

const loadWorker = (span: LoadWordsSpan): Worker =>
  startWorker(import.meta.url, 'load-words-worker', { workerData: span });

/** How a load's lines are read ahead: by default, two workers where the span is long. */
export interface LoadWordsOptions {
  workers?: number;
  stripeBytes?: number;
  /** The longest span whose rank facts the workers read (FACTS_IN_LOAD_BYTES but in tests). */
  factsUpToBytes?: number;
}

/**
 * The words of a long load's lines, read ahead by one or two workers: `take` and `record`
 * answer what the worker of the line's stripe sent, `reached` waits until every line before an
 * offset was read (or a worker waits for the main thread to take what it sent).
 */
export class LoadWords {
  private readonly feeds: Feed[];
  private waiting: { offset: number; resolve: () => void }[] = [];
  private readonly stripeBytes: number;

  constructor(
    private readonly span: LogSpan,
    vocabulary: Vocabulary,
    options: LoadWordsOptions = {},
  ) {
    const of =
      options.workers ??
      (span.to - span.from >= SHARED_FROM_BYTES && os.availableParallelism() >= 2 ? 2 : 1);
    const window = Math.max(2, Math.floor(MAX_AHEAD / of));
    const stripeBytes = options.stripeBytes ?? STRIPE_BYTES;
    this.stripeBytes = stripeBytes;
    const facts = span.to - span.from <= (options.factsUpToBytes ?? FACTS_IN_LOAD_BYTES);
    this.feeds = Array.from(
      { length: of },
      (_, index) =>
        new Feed({ ...span, index, of, window, stripeBytes, facts }, vocabulary, () => this.wake()),
    );
  }

  /**
   * Resolves once every line before `offset` was read, or each worker that has not read that far
   * has stopped or waits for the main thread.
   */
  reached(offset: number): Promise<void> {
    // A worker with all its chunks untaken waits for the main thread, which takes one only by
    // asking for a line past it (never for lines of other namespaces, deletes, a line too long
    // to read): waiting for it then would wait forever. The main thread reads on by itself.
    if (this.satisfied(offset)) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push({ offset, resolve }));
  }

  stop(): void {
    for (const feed of this.feeds) feed.stop();
  }

  /**
   * The words the worker read of the memory line at `offset`, `length` bytes long, if it sent
   * them; lines are asked for in the order of the log, and those before are let go.
   */
  take(offset: number, length: number): PreparedWords | undefined {
    return this.feedOf(offset)?.take(offset, length);
  }

  /**
   * The id and status of the memory line at `offset` (`length` bytes long) as the worker parsed
   * it, if it did and it is of the default namespace; `take` then answers its words.
   */
  record(offset: number, length: number): PreparedRecord | undefined {
    return this.feedOf(offset)?.record(offset, length);
  }

  /** The length of the memory line the worker sent that starts at `offset`, if it sent one. */
  lengthAt(offset: number): number | undefined {
    return this.feedOf(offset)?.lengthAt(offset);
  }

  private feedOf(offset: number): Feed | undefined {
    if (offset < this.span.from || offset >= this.span.to) return undefined;
    const stripe = Math.floor((offset - this.span.from) / this.stripeBytes);
    return this.feeds[stripe % this.feeds.length];
  }

  /** Every worker read past `offset`, ended, or waits for the main thread to take its chunks. */
  private satisfied(offset: number): boolean {
    return this.feeds.every((feed) => feed.covered >= offset || feed.full);
  }

  private wake(): void {
    this.waiting = this.waiting.filter((w) => {
      if (!this.satisfied(w.offset)) return true;
      w.resolve();
      return false;
    });
  }
}

/** One worker's chunks, taken in the order of its stripes. */
class Feed {
  private readonly worker: Worker;
  private readonly chunks: LoadWordsChunk[] = [];
  /** The line of chunks[0] the next `take` looks at first. */
  private line = 0;
  private taken = 0;
  /** Every line of this worker's stripes before this byte was read (infinite once it ended). */
  covered: number;
  private ended = false;
  /** The worker's stems by its term id, and (1 + ) each one's id in `vocabulary`, 0 unknown. */
  private readonly stems: string[] = [];
  private ids = new Int32Array(1024);
  private generation: number;
  /** What `take` answers in: reused, so a line costs no array. */
  private termsOut = new Int32Array(1024);

  constructor(
    private readonly span: LoadWordsSpan,
    private readonly vocabulary: Vocabulary,
    private readonly changed: () => void,
  ) {
    this.covered = Math.min(span.to, span.from + span.index * span.stripeBytes);
    this.generation = vocabulary.generation;
    this.worker = loadWorker(span);
    this.worker.unref();
    this.worker.on(
      'message',
      (message: LoadWordsChunk | { done: true } | { stripe: number; through: number }) => {
        if ('done' in message) this.end();
        else if ('offsets' in message) this.received(message);
        else this.passed(message.stripe);
      },
    );
    // A worker that fails costs only time: the main thread tokenizes what it did not send.
    this.worker.on('error', () => this.end());
    this.worker.on('exit', () => this.end());
  }

  /** Whether the worker waits for the main thread to take what it sent. */
  get full(): boolean {
    return !this.ended && this.chunks.length >= this.span.window;
  }

  stop(): void {
    this.end();
    this.chunks.length = 0;
    void this.worker.terminate();
  }

  take(offset: number, length: number): PreparedWords | undefined {
    const line = this.find(offset, length);
    if (line === -1) return undefined;
    this.line++;
    return this.prepared(this.chunks[0] as LoadWordsChunk, line);
  }

  record(offset: number, length: number): PreparedRecord | undefined {
    const line = this.find(offset, length);
    if (line === -1) return undefined;
    const chunk = this.chunks[0] as LoadWordsChunk;
    const status = chunk.statuses[line] as number;
    return status === 0 ? undefined : { id: chunk.ids[line] as string, status };
  }

  lengthAt(offset: number): number | undefined {
    const line = this.seek(offset);
    return line === -1 ? undefined : ((this.chunks[0] as LoadWordsChunk).lengths[line] as number);
  }

  /** The line of chunks[0] the worker sent for this one of the log, or -1. */
  private find(offset: number, length: number): number {
    const line = this.seek(offset);
    return line !== -1 && (this.chunks[0] as LoadWordsChunk).lengths[line] === length ? line : -1;
  }

  /**
   * The line of chunks[0] the worker sent that starts at `offset`, or -1; the chunks before it
   * are let go (the lines are asked for in the order of the log).
   */
  private seek(offset: number): number {
    for (;;) {
      const chunk = this.chunks[0];
      if (!chunk) return -1;
      const count = chunk.offsets.length;
      while (this.line < count && (chunk.offsets[this.line] as number) < offset) this.line++;
      if (this.line < count) return chunk.offsets[this.line] === offset ? this.line : -1;
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
    this.passed(chunk.stripe);
  }

  /** The worker is done with stripe `stripe`: its next one is `of` stripes on. */
  private passed(stripe: number): void {
    if (!this.ended) {
      this.covered = Math.min(
        this.span.to,
        this.span.from + (stripe + this.span.of) * this.span.stripeBytes,
      );
    }
    this.changed();
  }

  private end(): void {
    this.ended = true;
    this.covered = Number.POSITIVE_INFINITY;
    this.changed();
  }
}
