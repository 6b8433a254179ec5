// Finds memories by their words and their meaning. It owns both indexes and feeds them the one
// document each memory has (document.ts); the use cases page, rank and blend what it finds.
import type { Logger } from 'pino';
import type { StorageEngine, StoreListener } from '../storage/engine.js';
import type { MemoryRecord } from '../storage/records.js';
import { documentOf, type MemoryDocument, type NoteText, sameNote } from './document.js';
import { LexicalIndex } from './lexical-index.js';
import { fusedRelevance } from './ranking.js';
import { modelDefaults, type SemanticIndex } from './semantic-index.js';

export interface RetrieverSettings {
  /**
   * The share of relevance that comes from meaning (vectors) rather than words, 0..1; unset: the
   * model's own.
   */
  hybridWeight?: number | undefined;
  /** Cosines that count as a match by meaning; unset: the model's own (semantic-index.ts). */
  similarityThreshold?: number | undefined;
  /** Cosines at which a memory is a near-duplicate of another; unset: the model's own. */
  nearDuplicateThreshold?: number | undefined;
}

export interface RetrieverDeps {
  /** The live memories: what a match by meaning, or a search without words, is read from. */
  engine: Pick<StorageEngine, 'memories'>;
  /** Embeddings of the memories; without it, or with embeddings off, search is by words. */
  semantic?: SemanticIndex | undefined;
  settings: RetrieverSettings;
  logger: Logger;
}

/** A memory that a search found. */
export interface RankedRow {
  record: MemoryRecord;
  /** How well it matches, 0..1 relative to the best match found: words and meaning fused. */
  relevance: number;
  /** Its BM25 score for the query's words: 0 when only its meaning matched, 1 without a query. */
  lexical: number;
  /** The cosine of its meaning to the query's, when that is a match. */
  similarity: number | undefined;
  /** Its decay score, as `accept` answered it. */
  score: number;
}

/**
 * What a search found, one row a memory. Kept in columns: a query's words can match most of the
 * store, and an object a row would cost more (time, and garbage to collect) than the search
 * itself. `row(i)` (or iterating) gives one row as an object, for the few a page shows.
 */
export class RankedRows implements Iterable<RankedRow> {
  readonly records: MemoryRecord[] = [];
  readonly lexical: number[] = [];
  readonly score: number[] = [];
  /** Filled by the retriever once every row is in. */
  relevance: Float64Array = new Float64Array(0);
  /** With meaning on: NaN where it did not match (a number, so the column stays doubles). */
  readonly similarity: number[] = [];

  constructor(private readonly withMeaning: boolean) {}

  get length(): number {
    return this.records.length;
  }

  push(record: MemoryRecord, lexical: number, similarity: number | undefined, score: number): void {
    this.records.push(record);
    this.lexical.push(lexical);
    this.score.push(score);
    if (this.withMeaning) this.similarity.push(similarity ?? Number.NaN);
  }

  similarityOf(i: number): number | undefined {
    const similarity = this.withMeaning ? (this.similarity[i] as number) : Number.NaN;
    return Number.isNaN(similarity) ? undefined : similarity;
  }

  row(i: number): RankedRow {
    return {
      record: this.records[i] as MemoryRecord,
      relevance: this.relevance[i] as number,
      lexical: this.lexical[i] as number,
      similarity: this.similarityOf(i),
      score: this.score[i] as number,
    };
  }

  *[Symbol.iterator](): Iterator<RankedRow> {
    for (let i = 0; i < this.length; i++) yield this.row(i);
  }
}

/** A memory's decay score for a search, or null to leave it out. */
export type Accept = (record: MemoryRecord) => number | null;

export class Retriever implements StoreListener {
  private readonly lexical = new LexicalIndex();
  /** The notes promoted memories are searched by, once the vault says what they are. */
  private readonly notes = new Map<string, NoteText>();
  private readonly engine: Pick<StorageEngine, 'memories'>;
  private readonly semantic: SemanticIndex | undefined;
  private readonly settings: RetrieverSettings;
  private readonly logger: Logger;

  constructor(deps: RetrieverDeps) {
    this.engine = deps.engine;
    this.semantic = deps.semantic;
    this.settings = deps.settings;
    this.logger = deps.logger;
  }

  /** The vectors are one index for every namespace: a search keeps this one's memories. */
  private readonly held = (id: string) => this.engine.memories.has(id);

  /** What a memory is searched by: its note's text once promoted and edited, else its own. */
  documentOf(record: MemoryRecord): MemoryDocument {
    return documentOf(record, this.notes.get(record.id));
  }

  upsert(record: MemoryRecord, previous: MemoryRecord | undefined): void {
    const doc = this.documentOf(record);
    const before = previous && { record: previous, words: this.documentOf(previous).words };
    this.lexical.upsert(record, doc.words, before);
    this.semantic?.upsert(record.id, doc.text);
  }

  remove(previous: MemoryRecord): void {
    this.lexical.remove(previous, this.documentOf(previous).words);
    this.semantic?.remove(previous.id);
  }

  reset(): void {
    this.lexical.reset();
    this.semantic?.reset();
  }

  /** Makes a memory searched by this note (or by its own content again, with undefined). */
  setNote(memoryId: string, note: NoteText | undefined): void {
    const before = this.notes.get(memoryId);
    if (sameNote(before, note)) return;
    const record = this.engine.memories.get(memoryId);
    const old = record && this.documentOf(record);
    if (note) {
      this.notes.set(memoryId, { title: note.title, tags: [...note.tags], body: note.body });
    } else {
      this.notes.delete(memoryId);
    }
    if (!record || !old) return;
    const doc = this.documentOf(record);
    this.lexical.upsert(record, doc.words, { record, words: old.words });
    this.semantic?.upsert(memoryId, doc.text);
  }

  /**
   * The memories that `accept` keeps and that match `query` by their words or, with embeddings,
   * by their meaning (the `limit` closest), each with its relevance (0..1, relative to the best
   * match kept); every memory, with relevance 1, when there is no query. This runs for thousands
   * of memories per query.
   */
  async rank(query: string, limit: number, accept: Accept): Promise<RankedRows> {
    const hits = query ? this.lexical.search(query) : null;
    const meaning = query ? await this.meaningHits(query, limit) : null;
    const sims = new Map(meaning?.ids.map((id, i) => [id, meaning.sims[i] as number]));
    const rows = new RankedRows(meaning !== null);
    const take = (record: MemoryRecord, lexical: number, similarity: number | undefined) => {
      const score = accept(record);
      if (score !== null) rows.push(record, lexical, similarity, score);
    };
    if (hits) {
      const seen = new Set<string>();
      for (let i = 0; i < hits.docs.length; i++) {
        const record = hits.docs[i];
        if (!record) continue;
        const sim = meaning ? sims.get(record.id) : undefined;
        if (sim !== undefined) seen.add(record.id);
        take(record, hits.scores[i] as number, sim);
      }
      // Matches by meaning that the words missed, with no lexical score.
      for (const [id, sim] of sims) {
        const record = seen.has(id) ? undefined : this.engine.memories.get(id);
        if (record) take(record, 0, sim);
      }
    } else {
      for (const record of this.engine.memories.values()) take(record, 1, undefined);
    }
    const n = rows.length;
    const { lexical } = rows;
    let best = 0;
    for (let i = 0; i < n; i++) if ((lexical[i] as number) > best) best = lexical[i] as number;
    const relevance = new Float64Array(n);
    if (meaning) {
      let bestSim = meaning.threshold;
      for (let i = 0; i < n; i++) bestSim = Math.max(bestSim, rows.similarityOf(i) ?? 0);
      for (let i = 0; i < n; i++) {
        const { threshold, weight } = meaning;
        const sim = rows.similarityOf(i);
        relevance[i] = fusedRelevance(lexical[i] as number, best, sim, bestSim, threshold, weight);
      }
    } else {
      for (let i = 0; i < n; i++) relevance[i] = (lexical[i] as number) / best;
    }
    rows.relevance = relevance;
    return rows;
  }

  /** The id of a live memory with the same content (case and white space aside), if any. */
  duplicateOf(content: string): string | undefined {
    return this.lexical.duplicateOf(content);
  }

  /** The vector of one text, or undefined when embeddings are off or fail (logged). */
  async embed(text: string): Promise<Float32Array | undefined> {
    if (!this.semantic) return undefined;
    try {
      const [vector] = (await this.semantic.embed([text])) ?? [];
      return vector;
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'embedding failed: words only');
      return undefined;
    }
  }

  /** Keeps a vector `embed` computed for a memory whose text it is of, not computing it again. */
  adopt(memoryId: string, text: string, vector: Float32Array): void {
    this.semantic?.adopt(memoryId, text, vector);
  }

  /**
   * The memories `keep` keeps whose meaning is within the near-duplicate threshold of `vector`,
   * closest first, out of the `limit` closest.
   */
  async nearDuplicates(
    vector: Float32Array,
    limit: number,
    keep: (record: MemoryRecord) => boolean,
  ): Promise<{ record: MemoryRecord; similarity: number }[]> {
    const semantic = this.semantic;
    if (!semantic) return [];
    const threshold =
      this.settings.nearDuplicateThreshold ?? modelDefaults(semantic.model).nearDuplicate;
    const hits = await semantic.search(vector, threshold, limit, this.held);
    const out: { record: MemoryRecord; similarity: number }[] = [];
    hits.ids.forEach((id, i) => {
      const record = this.engine.memories.get(id);
      if (record && keep(record)) out.push({ record, similarity: hits.sims[i] as number });
    });
    return out.sort((a, b) => b.similarity - a.similarity);
  }

  /**
   * The memories that match the query by meaning (cosine at or above the threshold), with the
   * weight their side gets; null when search is by words alone.
   */
  private async meaningHits(query: string, limit: number) {
    const semantic = this.semantic;
    if (!semantic || this.settings.hybridWeight === 0) return null;
    const vector = await this.embed(query);
    if (!vector || !semantic.enabled) return null;
    const defaults = modelDefaults(semantic.model);
    const threshold = this.settings.similarityThreshold ?? defaults.similarity;
    const weight = this.settings.hybridWeight ?? defaults.hybridWeight;
    const hits = await semantic.search(vector, threshold, limit, this.held);
    return { ...hits, threshold, weight };
  }
}
