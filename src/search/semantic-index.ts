// Embeddings of the memories: computed in the background, kept in a vector store, searched by
// cosine.
import type { Logger } from 'pino';
import type { VectorStore } from '../storage/vector-store.js';
import { AnnIndex, type AnnOptions, type AnnStatus, type SearchDepth } from './ann-index.js';
import { annSourceOf } from './ann-source.js';
import type { EmbeddingProvider } from './embeddings.js';
import { type HeldVector, KeptVectors } from './kept-vectors.js';
import { contentHash } from './lexical-index.js';
import { type MatVec, type VectorHits, VectorIndex } from './vector-index.js';
import { dequantise } from './vector-quantise.js';

/** Texts embedded per call: large enough to keep the model busy, small enough to yield often. */
const BATCH = 32;
/** A search waits for the vectors still to compute when there are at most this many. */
const SEARCH_WAITS_FOR = 256;

export function textHash(content: string): string {
  return contentHash(content).toString(36);
}

export interface SemanticIndexOptions {
  dataDir: string;
  logger: Logger;
  /** The provider, once loaded; null when embeddings are off or could not be loaded. */
  provider: Promise<EmbeddingProvider | null>;
  /** A faster matrix-vector product than plain JS (the ONNX runtime's), when there is one. */
  matVec?: Promise<MatVec | undefined>;
  /** false (embeddings off): track nothing, so a store of words alone pays nothing. */
  enabled?: boolean;
  /**
   * Settles when the texts are known (the vault's notes read): the vectors still to compute at
   * start are computed then, so an edited note's stored vector is found, not computed again.
   */
  textsSettled?: Promise<unknown>;
  /**
   * Where the vectors are kept between runs (the engine's: storage/open.ts). The index closes
   * it. One shared with other processes (PostgreSQL) is asked, before a vector is computed,
   * whether another process stored it already.
   */
  store: VectorStore;
  /** The approximate index (vectors.ann), from its threshold of vectors on; false: exact only. */
  ann?: Omit<AnnOptions, 'dataDir' | 'logger'> | false;
}

export interface EmbeddingsStatus {
  /** loading: the model is not there yet (search is by words meanwhile). */
  state: 'loading' | 'ready' | 'off';
  model: string | null;
  vectors: number;
  /** Memories whose vector is still to compute. */
  backlog: number;
  /** The approximate index: whether one is in use, and how many vectors it holds. */
  ann?: AnnStatus;
}

export type ReindexProgress = (done: number, total: number) => void;

/**
 * Keeps a vector for every live memory, of the text the retriever gives it (document.ts: its
 * note's once promoted and edited, else its content), keyed by memory id, the text's hash and
 * model id: nothing is embedded again for an unchanged text, and a change of model embeds
 * everything again. Vectors are derived data: the vector store is written without the memory
 * store's lock, and a vector lost to a crash or to another process is simply computed again.
 */
export class SemanticIndex {
  private provider: EmbeddingProvider | null = null;
  private vectors: VectorIndex | undefined;
  /** The index while the stored vectors are read into it (`vectors` once they are). */
  private filling: VectorIndex | undefined;
  /** Candidates by meaning at a large store; none below its threshold, or with ann: false. */
  private ann: AnnIndex | undefined;
  /** Where vectors are kept between runs. */
  private readonly kept: KeptVectors;
  /** What each live memory's vector must be of: id → the hash of its text. */
  private readonly wanted = new Map<string, string>();
  /**
   * The texts of the memories that may still need embedding (until a vector is found or
   * computed): the others' texts are not held. One not here is asked of `textSource`.
   */
  private readonly texts = new Map<string, string>();
  /** A memory's text now, for one whose text was not given (a start from the sidecar). */
  textSource: ((id: string) => string | undefined) | undefined;
  private readonly pending = new Set<string>();
  /** Memories to embed again whatever is stored (reindex all). */
  private readonly fresh = new Set<string>();
  /** Vectors kept across a reset(), by id, until their memories come back. */
  private readonly retained = new Map<string, { hash: string; vector: Float32Array }>();
  private readonly listeners = new Set<ReindexProgress>();
  /** Vectors computed by this process. */
  private embeddedCount = 0;
  /** embeddedCount when reindex last answered. */
  private reportedCount = 0;
  private draining: Promise<void> | undefined;
  private loaded = false;
  private settled = false;
  private closed = false;
  readonly ready: Promise<void>;

  constructor(private readonly options: SemanticIndexOptions) {
    this.kept = new KeptVectors(options.store, options.logger);
    this.ready = this.start()
      .catch((error: Error) => {
        options.logger.warn({ err: error.message }, 'embeddings stopped: search is by words');
        this.provider = null;
      })
      .finally(() => {
        this.settled = true;
      });
  }

  /** The model's id, or null when search is lexical only. */
  get model(): string | null {
    return this.provider?.id ?? null;
  }

  get enabled(): boolean {
    return this.provider !== null;
  }

  /** Whether embeddings were asked for at all (MNEMO_EMBEDDINGS is not off). */
  get requested(): boolean {
    return this.options.enabled !== false;
  }

  /** Memories whose vector is still to compute. */
  get backlog(): number {
    return this.pending.size;
  }

  get size(): number {
    return this.vectors?.size ?? 0;
  }

  status(): EmbeddingsStatus {
    const ann = this.ann?.status();
    return {
      state: !this.settled ? 'loading' : this.provider ? 'ready' : 'off',
      model: this.model,
      vectors: this.size,
      backlog: this.backlog,
      ...(ann ? { ann } : {}),
    };
  }

  /** Wants the vector of this text for the memory `id` (computed again only if it changed). */
  upsert(id: string, text: string): void {
    if (this.options.enabled === false) return;
    const hash = textHash(text);
    if (this.wanted.get(id) === hash) return;
    this.wanted.set(id, hash);
    this.texts.set(id, text);
    this.deleteVector(id);
    if (this.provider) this.want(id);
  }

  /**
   * Wants the vector of memory `id`'s text, known by its hash alone (a start from the sidecar):
   * the text is read from `textSource` only if no vector of it is stored.
   */
  restoreWanted(id: string, hash: string): void {
    if (this.options.enabled === false || this.wanted.get(id) === hash) return;
    this.wanted.set(id, hash);
    this.texts.delete(id);
    this.deleteVector(id);
    if (this.provider) this.want(id);
  }

  /** A text no longer needed here: let go when `textSource` can give it again. */
  private dropText(id: string): void {
    if (this.textSource) this.texts.delete(id);
  }

  /** The hash of the text memory `id`'s vector is (to be) of. */
  hashOf(id: string): string | undefined {
    return this.wanted.get(id);
  }

  remove(id: string): void {
    this.wanted.delete(id);
    this.texts.delete(id);
    this.pending.delete(id);
    this.fresh.delete(id);
    this.deleteVector(id);
  }

  reset(): void {
    // Everything comes back at once (another process compacted): keep what was computed.
    for (const [id, hash] of this.wanted) {
      const vector = this.vectors?.get(id);
      if (vector) this.retained.set(id, { hash, vector });
    }
    this.wanted.clear();
    this.texts.clear();
    this.pending.clear();
    this.fresh.clear();
    this.clearVectors();
  }

  /**
   * Embeds texts with the model; null when embeddings are off, or while the model is still
   * loading (a download can take minutes: search goes on by words meanwhile, never waits).
   */
  async embed(texts: readonly string[]): Promise<Float32Array[] | null> {
    return this.loaded && this.provider ? this.provider.embed(texts) : null;
  }

  /** Takes a vector computed elsewhere (save_memory's) for a memory whose text it is of. */
  adopt(id: string, text: string, vector: Float32Array): void {
    const hash = this.wanted.get(id);
    const provider = this.provider;
    if (!hash || !provider || !this.vectors || hash !== textHash(text)) return;
    if (this.vectors.has(id) && !this.pending.has(id)) return;
    this.setVector(id, vector);
    this.pending.delete(id);
    this.fresh.delete(id);
    this.dropText(id);
    this.kept.keep([{ id, hash, vector }]);
  }

  /** The vector of a memory, once computed. */
  vectorOf(id: string): Float32Array | undefined {
    return this.vectors?.get(id);
  }

  /**
   * Memories at least `minSim` close to `vector` (the `limit` closest of those `keep` keeps);
   * waits for a small backlog first. `depth`: how hard the approximate index looks (SearchDepth).
   */
  async search(
    vector: Float32Array,
    minSim: number,
    limit?: number,
    keep?: (id: string) => boolean,
    depth: SearchDepth = 'full',
  ): Promise<VectorHits> {
    if (!this.vectors) return { ids: [], sims: [] };
    if (this.pending.size > 0 && this.pending.size <= SEARCH_WAITS_FOR) await this.drain();
    const vectors = this.vectors;
    const wanted = limit ?? Number.POSITIVE_INFINITY;
    const hits = await this.ann?.search(vector, minSim, wanted, keep, depth);
    return hits ?? vectors.search(vector, minSim, limit, keep);
  }

  /** Whether a search by meaning runs on another thread now (the approximate index's graph). */
  get searchesOffThread(): boolean {
    return this.ann?.searchesGraph ?? false;
  }

  /** Resolves once the approximate index covers every vector (or there is none): tests, bench. */
  async annSettled(): Promise<void> {
    await this.ready;
    await this.ann?.settled();
  }

  /** status(), its counts of these memories only (one namespace's). */
  statusOf(ids: Iterable<string>): EmbeddingsStatus {
    let vectors = 0;
    let backlog = 0;
    for (const id of ids) {
      if (this.vectors?.has(id)) vectors++;
      if (this.pending.size > 0 && this.pending.has(id)) backlog++;
    }
    return { ...this.status(), vectors, backlog };
  }

  /** Every memory with its vector, for clustering (after computing what is missing). */
  async entries(onProgress?: ReindexProgress): Promise<{ id: string; vector: Float32Array }[]> {
    await this.ready;
    await this.drain(onProgress);
    return this.vectors?.entries() ?? [];
  }

  /**
   * Computes every missing vector now, reporting progress; with `all`, drops every stored vector
   * and embeds every memory again.
   */
  async reindex({ all = false, onProgress }: { all?: boolean; onProgress?: ReindexProgress } = {}) {
    await this.ready;
    if (!this.provider) return { model: null, embedded: 0, total: this.wanted.size };
    if (all) {
      this.kept.forgetLoaded();
      this.clearVectors();
      for (const id of this.wanted.keys()) {
        this.pending.add(id);
        this.fresh.add(id);
      }
    }
    // The background pass that starts with the model may be done already, or under way: a
    // reindex counts what this process computed since the last one (or since it opened).
    const before = all ? this.embeddedCount : this.reportedCount;
    await this.drain(onProgress);
    const embedded = this.embeddedCount - before;
    this.reportedCount = this.embeddedCount;
    onProgress?.(embedded, embedded);
    this.compact();
    return { model: this.provider.id, embedded, total: this.wanted.size };
  }

  /** Resolves when every vector wanted so far is computed; `onProgress` follows the work. */
  async drain(onProgress?: ReindexProgress): Promise<void> {
    if (onProgress) this.listeners.add(onProgress);
    try {
      while (!this.closed && this.provider && (this.draining || this.pending.size > 0)) {
        if (!this.draining) {
          this.draining = this.work().finally(() => {
            this.draining = undefined;
          });
        }
        await this.draining;
      }
    } finally {
      if (onProgress) this.listeners.delete(onProgress);
    }
  }

  /** Stops embedding; resolves once the vector store has written what it was given. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    // The snapshot a next start reads instead of every line, if it is behind.
    if (this.vectors && this.provider) this.kept.snapshot(() => this.liveVectors());
    this.closed = true;
    this.ann?.close();
    return this.kept.close();
  }

  private async start(): Promise<void> {
    const { logger } = this.options;
    try {
      this.provider = await this.options.provider;
    } catch (error) {
      logger.warn({ err: (error as Error).message }, 'embeddings unavailable: search is lexical');
      this.provider = null;
    }
    if (!this.provider || this.closed) return;
    const matVec = await this.options.matVec?.catch(() => undefined);
    if (this.closed) return;
    // Room for every memory at once: growing by doubling would hold two matrices for a while.
    const room = () => Math.max(1024, Math.ceil(this.wanted.size * 1.05));
    const vectors = new VectorIndex(this.provider.dimensions, room(), { matVec, int8: true });
    // The index answers once the stored vectors are read (until then what is upserted waits in
    // `wanted`); those of texts wanted already go into it as they are read, the others below.
    this.filling = vectors;
    const hashOf = (id: string) => (this.fresh.has(id) ? undefined : this.wanted.get(id));
    await this.kept.load(this.provider.id, { index: vectors, hashOf }).finally(() => {
      this.filling = undefined;
    });
    if (this.closed) return;
    // Keyed by the memories' own id strings, not the store's copies of them.
    vectors.rekey(this.wanted.keys());
    vectors.reserve(room());
    this.vectors = vectors;
    for (const id of this.wanted.keys()) {
      if (vectors.has(id)) this.dropText(id);
      else this.want(id);
    }
    this.kept.start();
    this.loaded = true;
    this.openAnn(this.provider, vectors);
    // In the background, once the notes' texts are known (until then the stored vectors stay at
    // hand for them): the missing vectors, then the sidecar rewritten if mostly stale.
    void Promise.resolve(this.options.textsSettled)
      .catch(() => {})
      .then(() => {
        this.kept.forgetLoaded();
        if (this.closed || !this.provider) return;
        if (this.pending.size > 0) {
          logger.info(
            { model: this.provider.id, missing: this.pending.size },
            'embedding memories',
          );
        }
        return this.drain().then(() => this.compact());
      })
      .catch((error: Error) => logger.warn({ err: error.message }, 'embedding stopped'));
  }

  /** The approximate index over `vectors`, checked and built on a worker thread. */
  private openAnn(provider: EmbeddingProvider, vectors: VectorIndex): void {
    const settings = this.options.ann;
    if (settings === false) return;
    const { wanted } = this;
    this.ann = new AnnIndex(
      annSourceOf(provider.id, vectors, (id) => wanted.get(id)),
      { ...settings, dataDir: this.options.dataDir, logger: this.options.logger },
    );
    void this.ann.open();
  }

  private setVector(id: string, vector: Float32Array | Int8Array): void {
    this.vectors?.set(id, vector);
    this.ann?.changed(id);
  }

  private deleteVector(id: string): void {
    (this.vectors ?? this.filling)?.delete(id);
    this.ann?.removed(id);
  }

  private clearVectors(): void {
    (this.vectors ?? this.filling)?.clear();
    this.ann?.cleared();
  }

  /**
   * The vectors of `batch` another process stored since the load (same model, same text), taken
   * into the index; answers the rest, to compute.
   */
  private async takeStored<T extends { id: string; hash: string }>(batch: T[]): Promise<T[]> {
    const found = await this.kept.lookup(batch.filter((b) => !this.fresh.has(b.id)));
    if (found.size === 0) return batch;
    return batch.filter((b) => {
      const stored = found.get(b.id);
      if (!stored) return true;
      // The memory may have changed or gone while the store answered.
      if (this.wanted.get(b.id) !== b.hash) return false;
      const vector = this.vectors && dequantise(stored, this.vectors.dimensions);
      if (!vector) return true;
      this.setVector(b.id, vector);
      this.dropText(b.id);
      return false;
    });
  }

  private want(id: string): void {
    const hash = this.wanted.get(id);
    if (!hash || !this.vectors) return;
    // Kept across a reset, else read from the store at start.
    const retained = this.retained.get(id);
    this.retained.delete(id);
    const vector =
      retained?.hash === hash ? retained.vector : this.kept.take(id, hash, this.vectors.dimensions);
    if (!vector) {
      this.pending.add(id);
      return;
    }
    this.setVector(id, vector);
    this.pending.delete(id);
    this.dropText(id);
  }

  private async work(): Promise<void> {
    const provider = this.provider;
    if (!provider || !this.vectors) return;
    this.retained.clear();
    let done = 0;
    const report = () => {
      for (const listener of this.listeners) listener(done, done + this.pending.size);
    };
    report();
    while (this.pending.size > 0 && !this.closed) {
      const batch: { id: string; hash: string; text: string }[] = [];
      for (const id of this.pending) {
        const hash = this.wanted.get(id);
        const text = hash === undefined ? undefined : (this.texts.get(id) ?? this.textSource?.(id));
        // A text read now may be newer than the hash: its vector waits for its upsert.
        if (hash !== undefined && text !== undefined && textHash(text) === hash) {
          batch.push({ id, hash, text });
        }
        this.pending.delete(id);
        if (batch.length === BATCH) break;
      }
      if (batch.length === 0) continue;
      const missing = await this.takeStored(batch);
      if (this.closed) return;
      const vectors = missing.length > 0 ? await provider.embed(missing.map((b) => b.text)) : [];
      const computed: HeldVector[] = [];
      missing.forEach((b, i) => {
        // The memory may have changed or gone while the model worked.
        if (this.wanted.get(b.id) !== b.hash) return;
        const vector = vectors[i] as Float32Array;
        this.setVector(b.id, vector);
        this.fresh.delete(b.id);
        this.dropText(b.id);
        computed.push({ id: b.id, hash: b.hash, vector });
      });
      if (this.closed) return;
      this.kept.keep(computed);
      done += batch.length;
      this.embeddedCount += computed.length;
      report();
    }
  }

  /** Compacts the store when stale entries outnumber live ones. */
  private compact(): void {
    if (this.closed || !this.vectors || !this.provider) return;
    this.kept.compact(this.vectors.size, this.liveVectors());
  }

  /** Every vector held (lazily: a store may not read them). */
  private *liveVectors(): Iterable<HeldVector> {
    const { wanted, vectors } = this;
    if (!vectors) return;
    for (const { id, vector } of vectors.eachRow()) {
      const hash = wanted.get(id);
      if (hash) yield { id, hash, vector };
    }
  }
}
