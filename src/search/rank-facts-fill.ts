// The rank facts a long load left unknown, filled in behind the calls. The workers of a load
// longer than FACTS_IN_LOAD_BYTES (load-words.ts) do not work them out (a third more first start
// at a million memories, and more since the facts hold the times a memory says), so after the
// load, when the index holds memories whose facts are unknown (loaded so, or from a
// sidecar written so), one worker (rank-facts-worker.ts) reads the log again, from its end, and
// this thread keeps each memory's facts as they come; then the store writes its sidecar again,
// and the next start knows them all. Until then a search reads the record of a row whose facts it
// needs, as before.
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../platform/package-root.js';
import type { LogSpan } from '../storage/engine.js';
import type { LexicalIndex } from './lexical-index.js';
import { RANK_FACTS } from './rank-facts.js';

/** What the worker sends for a run of memory lines, latest first. */
export interface RankFactsBatch {
  ids: string[];
  /** Each one's `normalizedContentHash` (the index keeps only facts of the text it holds). */
  hashes: Float64Array;
  /** RANK_FACTS numbers a memory, `rankFactsOf` its record. */
  facts: Float64Array;
}

/**
 * The worker's heap, kept small: it holds a block of the log and a batch at a time, and it runs
 * beside a serving process whose memory is what a user counts.
 */
const RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 96 };

/** What the worker is given: the span, and the bytes it reads at a time (tests make it small). */
export interface RankFactsSpan extends LogSpan {
  blockBytes?: number;
}

function factsWorker(span: RankFactsSpan): Worker {
  return startWorker(import.meta.url, 'rank-facts-worker', {
    workerData: span,
    resourceLimits: RESOURCE_LIMITS,
  });
}

/**
 * Everything the worker sends for `span`, in order (one batch): what a fill would keep, for the
 * tests of the worker's reading.
 */
export function readRankFacts(span: RankFactsSpan): Promise<RankFactsBatch> {
  const worker = factsWorker(span);
  const out = { ids: [] as string[], hashes: [] as number[], facts: [] as number[] };
  return new Promise((resolve, reject) => {
    worker.on('message', (message: RankFactsBatch | { done: true; error?: string }) => {
      if (!('done' in message)) {
        out.ids.push(...message.ids);
        out.hashes.push(...message.hashes);
        out.facts.push(...message.facts);
        return;
      }
      if (message.error) reject(new Error(message.error));
      else {
        resolve({
          ids: out.ids,
          hashes: Float64Array.from(out.hashes),
          facts: Float64Array.from(out.facts),
        });
      }
    });
    worker.on('error', reject);
  });
}

/** How long the index must go without a search or a change before a fill begins. */
export const FILL_IDLE_MS = 1000;

/**
 * Calls `go` with the stamp once `stamp()` (moved by every search and change) has stayed the same
 * over `idleMs`: the calls rest. An unref'd timer, never what keeps the process alive; clear it
 * with clearInterval to stop waiting.
 */
export function whenResting(
  stamp: () => string,
  idleMs: number,
  go: (stamp: string) => void,
): NodeJS.Timeout {
  let last = stamp();
  const waiting = setInterval(() => {
    const now = stamp();
    if (now !== last) {
      last = now;
      return;
    }
    clearInterval(waiting);
    go(now);
  }, idleMs);
  return waiting.unref();
}

/**
 * One fill of a lexical index's unknown rank facts from a log span, at most one at a time. It
 * begins once the index has gone `idleMs` without a search or a change: behind the calls, on a
 * core they leave free, and with its worker's heap only while they rest.
 */
export class RankFactsFill {
  private worker: Worker | undefined;
  private waiting: NodeJS.Timeout | undefined;

  constructor(
    private readonly lexical: LexicalIndex,
    private readonly idleMs = FILL_IDLE_MS,
  ) {}

  /**
   * Fills in, once the index rests, the facts of the memories of `span` (the log the store has
   * read) whose facts the index does not know; `done` is called once the worker has read it all,
   * with how many memories' facts were kept and how long it took (not when it is stopped first).
   */
  start(span: LogSpan, done: (kept: number, ms: number) => void): void {
    this.stop();
    if (!this.lexical.hasUnknownRankFacts()) return;
    // A fill not made costs only the next start's reads.
    this.waiting = whenResting(
      () => this.lexical.matchStamp,
      this.idleMs,
      () => {
        this.waiting = undefined;
        this.run(span, done);
      },
    );
  }

  private run(span: LogSpan, done: (kept: number, ms: number) => void): void {
    const started = performance.now();
    const worker = factsWorker(span);
    this.worker = worker;
    worker.unref();
    let kept = 0;
    const end = () => {
      if (this.worker !== worker) return false;
      this.worker = undefined;
      return true;
    };
    worker.on('message', (message: RankFactsBatch | { done: true; error?: string }) => {
      if (this.worker !== worker) return;
      if ('done' in message) {
        if (end()) done(kept, performance.now() - started);
        return;
      }
      const { ids, hashes, facts } = message;
      for (let i = 0; i < ids.length; i++) {
        const at = i * RANK_FACTS;
        const fact = facts.subarray(at, at + RANK_FACTS);
        if (this.lexical.fillRankFacts(ids[i] as string, hashes[i] as number, fact)) kept++;
      }
    });
    // A worker that fails costs only the reads it would have saved.
    worker.on('error', () => end());
    worker.on('exit', () => end());
  }

  /** Stops the fill under way (the index is read again: the log it reads is not the one). */
  stop(): void {
    clearInterval(this.waiting);
    this.waiting = undefined;
    const worker = this.worker;
    this.worker = undefined;
    void worker?.terminate();
  }
}
