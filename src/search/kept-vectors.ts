// The vector store as the semantic index uses it: the vectors a start finds stored, those
// computed handed over, and the store compacted when mostly stale.
import type { Logger } from 'pino';
import type { StoredVector, VectorStore } from '../storage/vector-store.js';
import type { VectorIndex } from './vector-index.js';
import { quantise } from './vector-quantise.js';

/** A memory's vector as the index holds it, of the text whose hash is `hash`. */
export interface HeldVector {
  id: string;
  hash: string;
  vector: Float32Array;
}

export class KeptVectors {
  /** The model whose vectors are read and written (load). */
  private model = '';
  /** Written to once the model is there (start), until close. */
  private storing = false;
  /** Stored vectors of this model, by id, until the memory asks for them. */
  private readonly stored = new Map<string, StoredVector>();
  /** Stored entries that no longer count (old content, other models, memories gone). */
  private staleLines = 0;

  constructor(
    private readonly store: VectorStore,
    private readonly logger: Logger,
  ) {}

  /**
   * Reads the vector store: the last vector of each id for this model. One of the text `into`
   * wants for its memory goes into its index as it is read (no object is held for it); the
   * others are held here for `take`.
   */
  async load(
    model: string,
    into?: { index: VectorIndex; hashOf: (id: string) => string | undefined },
  ): Promise<void> {
    this.model = model;
    let taken = 0;
    const entries = await this.store.load((vector) => {
      if (vector.model !== model) return;
      const { id, hash, values } = vector;
      if (into && into.hashOf(id) === hash && values.length === into.index.dimensions) {
        into.index.set(id, values);
        // An earlier line of this id, held, is of another text.
        this.stored.delete(id);
        taken++;
      } else {
        this.stored.set(id, vector);
      }
    });
    this.staleLines = entries - this.stored.size - taken;
  }

  /**
   * Starts writing; what is left of the loaded vectors (of texts a note may still give) is
   * copied out of the snapshot's buffer, which can then go.
   */
  start(): void {
    this.storing = true;
    for (const stored of this.stored.values()) stored.values = stored.values.slice();
  }

  /**
   * The loaded vector of memory `id` if it is of this hash (then no longer held), as its int8
   * values (their direction is the vector: no float copy of a million vectors at start).
   */
  take(id: string, hash: string, dimensions: number): Int8Array | undefined {
    const stored = this.stored.get(id);
    if (!stored || stored.hash !== hash || stored.values.length !== dimensions) return undefined;
    this.stored.delete(id);
    return stored.values;
  }

  /** Lets go of the loaded vectors not taken. */
  forgetLoaded(): void {
    this.stored.clear();
  }

  /** Hands vectors to the store, unless closed (a store is not written after its close). */
  keep(vectors: HeldVector[]): void {
    if (this.storing && vectors.length > 0) this.store.append(vectors.map((v) => this.toStored(v)));
  }

  /**
   * The vectors stored now (another process's too) of this model and these texts, by id; none
   * when the store fails.
   */
  async lookup(texts: { id: string; hash: string }[]): Promise<Map<string, StoredVector>> {
    const found = new Map<string, StoredVector>();
    if (texts.length === 0) return found;
    const hashes = new Map(texts.map((t) => [t.id, t.hash]));
    try {
      for (const vector of await this.store.lookup([...hashes.keys()])) {
        if (vector.model === this.model && vector.hash === hashes.get(vector.id)) {
          found.set(vector.id, vector);
        }
      }
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'looking up stored vectors');
    }
    return found;
  }

  /** Compacts the store to `live` when stale entries outnumber the `size` live ones. */
  compact(size: number, live: Iterable<HeldVector>): void {
    if (!this.storing || this.staleLines <= size) return;
    this.store.compact(this.quantised(live));
    this.staleLines = 0;
  }

  /** The snapshot a next start reads instead of every line, if the store keeps one. */
  snapshot(live: () => Iterable<HeldVector>): void {
    if (this.storing) this.store.snapshot?.(() => this.quantised(live()));
  }

  /** Resolves once the store has written what it was given. */
  close(): Promise<void> {
    this.storing = false;
    return this.store.close().catch((error: Error) => {
      this.logger.warn({ err: error.message }, 'closing the vector store');
    });
  }

  private toStored({ id, hash, vector }: HeldVector): StoredVector {
    return { id, model: this.model, hash, ...quantise(vector) };
  }

  /** Quantised as stored, lazily (a store may not read them). */
  private *quantised(vectors: Iterable<HeldVector>): Iterable<StoredVector> {
    for (const vector of vectors) yield this.toStored(vector);
  }
}
