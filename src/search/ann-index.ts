// Search by meaning at a million memories: an approximate nearest-neighbour index (usearch's HNSW
// graph, vectors.ann beside the log) proposes candidates, and the exact vectors of the semantic
// index score them. The graph is derived data, checked and built on a worker thread, never in the
// way of a call: until it covers the vectors, search is exact; then it is the graph's candidates
// plus an exact pass over the vectors it does not hold yet (memories saved or changed since).
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { AnnClaim, type AnnClaimOptions } from './ann-claim.js';
import {
  MAX_CANDIDATES,
  MIN_CANDIDATES,
  OVERSAMPLE,
  SCORE_MARGIN,
  type SearchDepth,
  TAIL,
  TAIL_TRUSTED,
} from './ann-depth.js';
import { ANN_FILE } from './ann-file.js';
import { AnnGraph, annThread, type GraphMatches } from './ann-graph.js';
import { annKey, coverage, type KeyTable, PackedKeys } from './ann-keys.js';
import { type AnnFileIdentity, annFileIdentity, isSameAnnFile } from './ann-layout.js';
import type { AnnSource } from './ann-source.js';
import type { AnnShape, FromWorker, ToWorker } from './ann-worker.js';
import type { VectorHits } from './vector-index.js';

export { ANN_FILE, annKey, type SearchDepth };

/** Below this many vectors the exact search is fast enough (a few ms) and is all there is. */
export const ANN_THRESHOLD = 50_000;
/** Vectors a message to the builder carries: 4 MB of 100 dimensions. */
const BATCH = 10_000;
/** Vectors between two saves of a build: a process killed mid-way leaves this much done. */
const CHECKPOINT = 200_000;

export interface AnnOptions {
  dataDir: string;
  logger: Logger;
  /** Fewer vectors than this: exact search only, no file (default ANN_THRESHOLD). */
  threshold?: number;
  /** The graph's degree and beam widths (usearch's connectivity, expansion_add/_search). */
  connectivity?: number;
  expansionAdd?: number;
  expansionSearch?: number;
  /** Vectors between two saves of a build (default 200,000). */
  checkpoint?: number;
  /** vectors.ann.claim: who builds (ann-claim.ts; tests make a second process of this one). */
  claim?: AnnClaimOptions;
  /** Runs `check` in `ms`, to look for another process's file (default: an unref'd timer). */
  schedule?: (check: () => void, ms: number) => void;
}

/** How often a process waiting for another's build looks for its file (ms). */
const WATCH_MS = 5_000;

/** A graph in use: its keys, and the vectors it does not hold (searched exactly). */
interface Live {
  graph: AnnGraph;
  table: KeyTable;
  uncovered: Set<string>;
}

export interface AnnStatus {
  /** exact: no graph in use (below the threshold, or not built yet); building: one is. */
  state: 'exact' | 'building' | 'ready';
  /** Vectors the graph in use holds of current memories. */
  indexed: number;
}

export class AnnIndex {
  private readonly file: string;
  private readonly shape: AnnShape;
  private readonly threshold: number;
  private readonly checkpoint: number;
  private worker: Worker | undefined;
  private live: Live | undefined;
  /** Ids changed while a coverage pass runs: worked out again at its end. */
  private dirty: Set<string> | undefined;
  private verified = false;
  private building = false;
  private adopting: Promise<void> = Promise.resolve();
  private closed = false;
  /** Who waits for the worker's next message, or the messages no one waited for yet. */
  private waiting: ((message: FromWorker) => void) | undefined;
  private inbox: FromWorker[] = [];
  /** A build that failed is not tried again by this process (the exact search serves). */
  private failed = false;
  private readonly claim: AnnClaim;
  /** The file last checked (used or refused): another one on disk is checked again. */
  private seen: AnnFileIdentity | undefined;
  private watching = false;

  constructor(
    private readonly source: AnnSource,
    private readonly options: AnnOptions,
  ) {
    this.file = path.join(options.dataDir, ANN_FILE);
    this.threshold = options.threshold ?? ANN_THRESHOLD;
    this.checkpoint = options.checkpoint ?? CHECKPOINT;
    this.claim = new AnnClaim(options.dataDir, options.claim);
    this.shape = {
      model: source.model,
      dimensions: source.dimensions,
      // Measured on the static model's vectors of LoCoMo text (many near-ties): 16/64/128 gave
      // recall@10 0.93 from 64 candidates, these 0.98, for twice the build time.
      connectivity: options.connectivity ?? 32,
      expansionAdd: options.expansionAdd ?? 128,
      expansionSearch: options.expansionSearch ?? 256,
    };
  }

  /**
   * The beam of a search in a graph of `size` vectors: recall falls as the graph grows (at a
   * million of the static model's vectors, recall@10 was 0.70 with 256, 0.92 with 1,024, 0.96
   * with 2,048 at 4.6 ms, 0.99 with 4,096 at 8.9 ms), so it grows with it, from 256 at 100,000.
   */
  private beamFor(size: number): number {
    if (this.options.expansionSearch !== undefined) return this.options.expansionSearch;
    let beam = 256;
    while (beam < 4096 && beam * 500 < size) beam *= 2;
    return beam;
  }

  /** Whether a search now asks the graph (on its own thread), not the exact vectors. */
  get searchesGraph(): boolean {
    const live = this.live;
    const size = this.source.size;
    return live !== undefined && size >= this.threshold && live.uncovered.size <= size / 4;
  }

  /** undefined for a store below the threshold, which has no graph to tell of. */
  status(): AnnStatus | undefined {
    const live = this.live;
    if (!live && !this.building && this.source.size < this.threshold) return undefined;
    return {
      state: this.building ? 'building' : live ? 'ready' : 'exact',
      indexed: live ? Math.max(0, this.source.size - live.uncovered.size) : 0,
    };
  }

  /**
   * Checks vectors.ann on the worker and takes it into use when it is whole and of this model,
   * then builds what is missing. Never throws: a failure is logged, and search stays exact.
   */
  async open(): Promise<void> {
    // A small store is searched exactly: a file left from when it was larger is not read.
    if (this.source.size < this.threshold) {
      this.verified = true;
      return;
    }
    await this.verifyAndAdopt();
  }

  private async verifyAndAdopt(): Promise<void> {
    try {
      const answer = await this.ask({ type: 'verify', file: this.file, shape: this.shape });
      if (answer.type === 'verified' && answer.ok) {
        await this.adopt(answer.identity);
      } else if (answer.type === 'verified' && !answer.missing) {
        this.seen = annFileIdentity(this.file);
        this.options.logger.warn(
          { file: ANN_FILE, reason: answer.reason },
          `${ANN_FILE} is not used (${answer.reason}): it is built again`,
        );
      }
    } catch (error) {
      this.options.logger.warn({ file: ANN_FILE, err: (error as Error).message }, 'ANN check');
    }
    this.verified = true;
    this.maybeBuild();
  }

  /** Memory `id`'s vector is new or changed (or its text is). */
  changed(id: string): void {
    this.dirty?.add(id);
    const live = this.live;
    if (!live) {
      this.maybeBuild();
      return;
    }
    const hash = this.source.hashOf(id);
    if (hash !== undefined && live.table.get(annKey(this.shape.model, id, hash)) === id) {
      live.uncovered.delete(id);
    } else {
      live.uncovered.add(id);
      this.maybeBuild();
    }
  }

  /** Memory `id` has no vector any more. */
  removed(id: string): void {
    this.dirty?.add(id);
    this.live?.uncovered.delete(id);
  }

  /** Every vector is gone (they come back one by one through `changed`). */
  cleared(): void {
    this.live?.uncovered.clear();
  }

  /**
   * The `limit` closest memories that `keep` keeps at or above `minSim`, closest first, or
   * undefined when the exact search must answer (no graph in use, too little of the store in it,
   * every hit wanted, or a filter that refuses most candidates). `depth`: see SearchDepth.
   */
  async search(
    query: Float32Array,
    minSim: number,
    limit: number,
    keep?: (id: string) => boolean,
    depth: SearchDepth = 'full',
  ): Promise<VectorHits | undefined> {
    const live = this.live;
    const source = this.source;
    if (!live || !this.searchesGraph || !Number.isFinite(limit)) return undefined;
    const graphSize = live.graph.size;
    const hits: { id: string; sim: number }[] = [];
    const seen = new Set<string>();
    const model = this.shape.model;
    if (graphSize > 0) {
      let want = Math.min(graphSize, Math.max(limit * OVERSAMPLE, MIN_CANDIDATES));
      for (;;) {
        let found: GraphMatches;
        try {
          found = await live.graph.search(query, want);
        } catch {
          // The graph was let go meanwhile (another file taken into use, or closed).
          return undefined;
        }
        hits.length = 0;
        seen.clear();
        const n = found.keys.length;
        const keys = new PackedKeys(found.keys);
        let tail = Number.NEGATIVE_INFINITY;
        for (let i = 0; i < n; i++) {
          const key = keys.get(i);
          const id = live.table.get(key);
          if (id === undefined || seen.has(id)) continue;
          // The cheapest test first: most candidates are under the threshold.
          const sim = source.similarity(id, query);
          if (sim !== undefined && i >= n - TAIL) tail = Math.max(tail, sim);
          if (sim === undefined || sim < minSim) continue;
          const hash = source.hashOf(id);
          // A vector of an older text, or of a memory gone: not this memory's now.
          if (hash === undefined || annKey(model, id, hash) !== key) continue;
          if (keep && !keep(id)) continue;
          seen.add(id);
          hits.push({ id, sim });
        }
        if (hits.length >= limit || n < want || want >= graphSize) break;
        // No candidate of the tail known (all of other texts): the graph is asked further.
        if (
          (want >= TAIL_TRUSTED || depth === 'first') &&
          tail > Number.NEGATIVE_INFINITY &&
          tail < minSim - SCORE_MARGIN
        ) {
          break;
        }
        if (want >= MAX_CANDIDATES) return undefined;
        want = Math.min(graphSize, want * 4);
      }
    }
    for (const id of live.uncovered) {
      if (seen.has(id) || (keep && !keep(id))) continue;
      const sim = source.similarity(id, query);
      if (sim !== undefined && sim >= minSim) hits.push({ id, sim });
    }
    hits.sort((a, b) => b.sim - a.sim);
    const out: VectorHits = { ids: [], sims: [] };
    for (const { id, sim } of hits.slice(0, limit)) {
      out.ids.push(id);
      out.sims.push(sim);
    }
    return out;
  }

  /** Resolves once the graph in use covers every vector (a build finished), for tests and bench. */
  async settled(): Promise<void> {
    while (!this.closed && (!this.verified || this.building || this.needsBuild())) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      await this.adopting;
    }
  }

  close(): void {
    this.closed = true;
    this.claim.release();
    this.live?.graph.close();
    this.live = undefined;
    void this.worker?.terminate();
    this.worker = undefined;
    this.waiting?.({ type: 'failed', reason: 'closed' });
    this.waiting = undefined;
  }

  private needsBuild(): boolean {
    if (this.failed || this.source.size < this.threshold) return false;
    const live = this.live;
    if (!live) return true;
    return live.uncovered.size >= Math.max(1000, this.source.size * 0.05);
  }

  private maybeBuild(): void {
    if (this.closed || !this.verified || this.building || !this.needsBuild()) return;
    // Another process builds it: search stays exact here until its file appears.
    if (!this.claim.take()) {
      this.watch();
      return;
    }
    this.building = true;
    this.build()
      .catch((error: Error) => {
        // Closed while it built (a command that ends, a server that stops): not a failure; the
        // next start builds it.
        if (this.closed) {
          this.options.logger.info(
            { file: ANN_FILE },
            `${ANN_FILE} not built: closed first; the next start builds it`,
          );
          return;
        }
        this.failed = true;
        this.options.logger.warn(
          { file: ANN_FILE, err: error.message },
          `could not build ${ANN_FILE}: search by meaning stays exact`,
        );
      })
      .finally(() => {
        this.claim.release();
        this.building = false;
        // What changed while it ran may call for the next one.
        this.maybeBuild();
      });
  }

  /**
   * Sends the builder the vectors the graph lacks (every vector, when too many of the graph's are
   * stale), a batch each time it asks, and takes each file it saves into use.
   */
  private async build(): Promise<void> {
    const live = this.live;
    const stale = live ? live.graph.size - (this.source.size - live.uncovered.size) : 0;
    const extend = live !== undefined && stale <= live.graph.size * 0.25;
    const ids = extend ? [...live.uncovered] : this.source.ids();
    this.options.logger.info(
      { file: ANN_FILE, vectors: ids.length, extend },
      'building the approximate index in the background',
    );
    const { dimensions, model } = this.shape;
    let answer = await this.ask({
      type: 'start',
      file: this.file,
      base: extend ? this.file : null,
      shape: this.shape,
      checkpoint: this.checkpoint,
    });
    let at = 0;
    for (;;) {
      if (answer.type === 'failed') throw new Error(answer.reason);
      if (answer.type === 'saved') {
        const { identity } = answer;
        this.adopting = this.adopting.then(() => this.adopt(identity));
        await this.adopting;
        if (answer.last) return;
        answer = await this.next();
        continue;
      }
      const keys: bigint[] = [];
      const vectors = new Float32Array(Math.min(BATCH, ids.length - at) * dimensions);
      while (at < ids.length && keys.length < BATCH) {
        const id = ids[at++] as string;
        const hash = this.source.hashOf(id);
        if (hash === undefined) continue;
        if (!this.source.copyVector(id, vectors, keys.length * dimensions)) continue;
        keys.push(BigInt(annKey(model, id, hash)));
      }
      this.claim.refresh();
      const rows = vectors.subarray(0, keys.length * dimensions).slice();
      const packed = BigUint64Array.from(keys);
      answer = await this.ask(
        { type: 'add', keys: packed, vectors: rows, last: at >= ids.length },
        [packed.buffer, rows.buffer],
      );
    }
  }

  /** The worker's next message, unprompted (after a save, the request for more). */
  private next(): Promise<FromWorker> {
    const queued = this.inbox.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  private ask(message: ToWorker, transfer: ArrayBuffer[] = []): Promise<FromWorker> {
    if (this.closed) return Promise.resolve({ type: 'failed', reason: 'closed' });
    const worker = this.startWorker();
    const answer = this.next();
    worker.postMessage(message, transfer);
    return answer;
  }

  private startWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = annThread();
    worker.on('message', (message: FromWorker) => {
      const waiting = this.waiting;
      this.waiting = undefined;
      if (waiting) waiting(message);
      else this.inbox.push(message);
    });
    worker.on('error', (error) => {
      this.worker = undefined;
      const waiting = this.waiting;
      this.waiting = undefined;
      if (waiting) waiting({ type: 'failed', reason: error.message });
      else this.inbox.push({ type: 'failed', reason: error.message });
    });
    this.worker = worker;
    return worker;
  }

  /**
   * Maps the file the worker just wrote or checked (usearch's view: the pages are read as search
   * touches them), and works out which vectors it holds in slices between yields; the graph in use
   * until then stays in use, with its own keys, so an answer never mixes the two.
   */
  private async adopt(identity: AnnFileIdentity): Promise<void> {
    if (this.closed) return;
    // usearch maps the file by its path: only if it is still the one checked (else look again).
    if (!isSameAnnFile(this.file, identity)) return this.watch();
    const graph = await AnnGraph.open(this.file, {
      ...this.shape,
      expansionSearch: this.beamFor(this.source.size),
    });
    if (!isSameAnnFile(this.file, identity)) {
      graph.close();
      return this.watch();
    }
    this.seen = identity;
    if (graph.dimensions !== this.shape.dimensions) {
      graph.close();
      throw new Error(`${ANN_FILE} changed under this process (of other dimensions)`);
    }
    this.dirty = new Set();
    const model = this.shape.model;
    const keyOf = (id: string) => {
      const hash = this.source.hashOf(id);
      return hash === undefined ? undefined : annKey(model, id, hash);
    };
    // Asked of the searcher a chunk at a time: the event loop answers calls meanwhile.
    const covered = await coverage(graph, this.source.ids(), keyOf, () => this.closed);
    if (!covered) {
      graph.close();
      return;
    }
    const { table, uncovered } = covered;
    // What changed meanwhile is judged against the new table.
    const dirty = this.dirty;
    this.dirty = undefined;
    for (const id of dirty) {
      const hash = this.source.hashOf(id);
      const current = hash !== undefined && this.source.has(id);
      if (current && table.get(annKey(model, id, hash)) === id) uncovered.delete(id);
      else if (current) uncovered.add(id);
      else uncovered.delete(id);
    }
    // A search still asking the graph let go answers from the exact vectors.
    const previous = this.live;
    this.live = { graph, table, uncovered };
    previous?.graph.close();
  }

  /** Looks again in a while for a file another process writes (or for its claim to go). */
  private watch(): void {
    if (this.watching || this.closed) return;
    this.watching = true;
    const check = () => {
      this.watching = false;
      if (this.closed) return;
      const now = annFileIdentity(this.file);
      const fresh = now && (!this.seen || !isSameAnnFile(this.file, this.seen));
      if (fresh) void this.verifyAndAdopt();
      else this.maybeBuild();
    };
    const schedule =
      this.options.schedule ?? ((run: () => void, ms: number) => setTimeout(run, ms).unref());
    schedule(check, WATCH_MS);
  }
}
