// Finds memories by their words and their meaning. It owns both indexes and feeds them the one
// document each memory has (document.ts); the use cases page, rank and blend what it finds.
import type { Logger } from 'pino';
import type {
  ListenerPersistence,
  LogLine,
  LogSpan,
  MemoryWatcher,
  PreparedRecord,
  ReadAhead,
  StorageEngine,
  StoreListener,
} from '../storage/engine.js';
import type { MemoryRecord, MemoryStatus } from '../storage/records.js';
import type { Matches } from './bm25.js';
import { documentOf, type MemoryDocument, type NoteText, sameNote } from './document.js';
import { prunable, rowsByWordsAndMeaning } from './hybrid-rows.js';
import { type Dynamics, LAST_USED, LexicalIndex } from './lexical-index.js';
import { modelDefaults } from './model-defaults.js';
import { RankFactsFill } from './rank-facts-fill.js';
import { RankedRows } from './ranked-rows.js';
import { fusedRelevance } from './ranking.js';
import { retrieverPersistence } from './retriever-sidecar.js';
import type { SemanticIndex } from './semantic-index.js';
import {
  contenders,
  type Filter,
  hasTag,
  rowsByRareWords,
  rowsByWords,
  type Top,
} from './top-rows.js';
import type { VectorHits } from './vector-index.js';
import { WordsAhead } from './words-ahead.js';

export { type RankedRow, RankedRows } from './ranked-rows.js';
export type { Filter, Top } from './top-rows.js';

export interface RetrieverSettings {
  /** The share of relevance from meaning (vectors) rather than words, 0..1; unset: the model's. */
  hybridWeight?: number | undefined;
  /** Cosines that count as a match by meaning; unset: the model's own (model-defaults.ts). */
  similarityThreshold?: number | undefined;
  /** Cosines at which a memory is a near-duplicate of another; unset: the model's own. */
  nearDuplicateThreshold?: number | undefined;
  /** Rank every match, even with `tops`: the reference the pruned ranking is tested against. */
  exhaustive?: boolean | undefined;
  /**
   * false: a long load tokenizes every memory on the main thread (the reference the load on two
   * threads is tested against). Default: a worker thread tokenizes ahead.
   */
  readAhead?: boolean | undefined;
  /** How long the index rests before the rank facts a load left unknown are filled in (ms). */
  fillIdleMs?: number | undefined;
  /** The longest log span whose rank facts a long load's workers read (FACTS_IN_LOAD_BYTES). */
  factsInLoadBytes?: number | undefined;
}

export interface RetrieverDeps {
  /** The live memories: what a match by meaning, or a search without words, is read from. */
  engine: Pick<StorageEngine, 'memories'>;
  /** Embeddings of the memories; without it, or with embeddings off, search is by words. */
  semantic?: SemanticIndex | undefined;
  settings: RetrieverSettings;
  logger: Logger;
}

/** What a memory is searched by without a note: its own content, tags and entities. */
const ownWords = (record: MemoryRecord) => documentOf(record, undefined).words;

export class Retriever implements StoreListener {
  readonly lexical: LexicalIndex;
  /** The notes promoted memories are searched by, once the vault says what they are. */
  private readonly notes = new Map<string, NoteText>();
  private readonly engine: Pick<StorageEngine, 'memories'>;
  private readonly semantic: SemanticIndex | undefined;
  private readonly settings: RetrieverSettings;
  private readonly logger: Logger;

  constructor(deps: RetrieverDeps) {
    this.engine = deps.engine;
    this.lexical = new LexicalIndex((id) => this.engine.memories.get(id));
    this.ahead = new WordsAhead(
      this.lexical,
      (id) => !this.notes.has(id) && this.semantic?.requested !== true,
      { factsUpToBytes: deps.settings.factsInLoadBytes },
    );
    this.fill = new RankFactsFill(this.lexical, deps.settings.fillIdleMs);
    this.semantic = deps.semantic;
    this.settings = deps.settings;
    this.logger = deps.logger;
    this.persistence = retrieverPersistence({
      lexical: this.lexical,
      notes: this.notes,
      semantic: this.semantic,
      textOf: (id) => this.textOf(id),
      watchers: this.watchers,
    });
  }

  private readonly lookup = (id: string) => this.engine.memories.get(id);

  /** The vectors are one index for every namespace: a search keeps this one's memories. */
  private readonly held = (id: string) => this.engine.memories.has(id);

  /** What a memory is searched by: its note's text once promoted and edited, else its own. */
  documentOf(record: MemoryRecord): MemoryDocument {
    return documentOf(record, this.notes.get(record.id));
  }

  upsert(record: MemoryRecord, previous: MemoryRecord | undefined, line?: LogLine): void {
    const before = previous && { record: previous, words: this.documentOf(previous).words };
    // A note speaks for the memory it was read with. Whoever changed the memory's own words (this
    // process or another) rewrote its note too, and what the note says now is known here only
    // once the vault index reads it again (NoteSync sets it then): until then the memory is
    // searched by what the log says, and a sidecar written meanwhile keeps that, never the
    // note's old text (which made `mnemo search` miss it by its current words).
    if (previous && this.notes.has(record.id) && ownWords(previous) !== ownWords(record)) {
      this.notes.delete(record.id);
    }
    const doc = this.documentOf(record);
    // The worker read a memory as if it had no note: one with a note is tokenized here.
    const prepared = line && !this.notes.has(record.id) ? this.ahead.words(line) : undefined;
    this.lexical.upsert(record, doc.words, before, prepared);
    this.semantic?.upsert(record.id, doc.text);
    for (const watcher of this.watchers) watcher.changed(record.id);
  }

  private readonly watchers: MemoryWatcher[] = [];
  /** Tells `watcher` of every memory changed, added or removed from now on, and of a reset. */
  watch(watcher: MemoryWatcher): void {
    this.watchers.push(watcher);
  }

  /** A long load's worker (words-ahead.ts), while it runs. */
  private readonly ahead: WordsAhead;

  /** Tokenizes the log's lines in `span` on another thread, ahead of the store: two cores. */
  readAhead(span: LogSpan): ReadAhead | undefined {
    this.ahead.stop();
    return this.settings.readAhead === false ? undefined : this.ahead.start(span);
  }

  upsertPrepared(record: PreparedRecord, line: LogLine): void {
    this.ahead.add(record, line);
    for (const watcher of this.watchers) watcher.changed(record.id);
  }

  /** The fill of the rank facts a load left unknown (rank-facts-fill.ts), while it runs. */
  private readonly fill: RankFactsFill;

  /** Once the store has read the log: fills in the rank facts a load left unknown, and more. */
  loaded(span: LogSpan, saveLearnt: () => void): () => void {
    this.fill.start(span, (kept, ms) => {
      this.logger.info({ memories: kept, ms: Math.round(ms) }, 'rank facts filled in');
      if (kept > 0) saveLearnt();
    });
    const stops = this.watchers.map((watcher) => watcher.persisted?.loaded?.(saveLearnt));
    return () => {
      this.fill.stop();
      for (const stop of stops) stop?.();
    };
  }

  remove(previous: MemoryRecord): void {
    this.lexical.remove(previous, this.documentOf(previous).words);
    this.semantic?.remove(previous.id);
    for (const watcher of this.watchers) watcher.changed(previous.id);
  }

  reset(): void {
    // The log was read again (replaced, cut): what the workers read is of another file.
    this.ahead.stop();
    this.fill.stop();
    this.lexical.reset();
    this.semantic?.reset();
    for (const watcher of this.watchers) watcher.reset();
  }

  /** The words index, kept in the sidecar (retriever-sidecar.ts). */
  readonly persistence: ListenerPersistence;

  /** Memory `id`'s text as its vector is of, if it is one of this retriever's. */
  textOf(id: string): string | undefined {
    const record = this.engine.memories.get(id);
    return record && this.documentOf(record).text;
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
   * The memories that `filter` keeps and that match `query` by their words or, with embeddings,
   * by their meaning (the `limit` closest), each with its relevance (0..1, relative to the best
   * match kept); every memory, with relevance 1, when there is no query.
   *
   * With `tops`, the rows are only those that could be among the `count` best of some top (and
   * `matched` still counts them all): a row whose relevance times the top's ceiling is below
   * what `count` rows already scored is left out without computing its decay score. Whoever
   * takes the best rows of each top from these rows gets the same rows, in the same order and
   * with the same numbers, as from all of them: the rows kept stay in the order all the rows
   * would have, so ties break the same way.
   */
  async rank(
    query: string,
    limit: number,
    filter: Filter,
    tops?: readonly Top[],
  ): Promise<RankedRows> {
    if (!query) return this.everyMemory(filter);
    // Every match the filter keeps, in the order the rows come in; decay scores come later.
    // A row is an ordinal of the lexical index (its record read only when needed: a common
    // word matches most memories) or, for a match by meaning alone, -1 - its place in `others`.
    const { meaning, early } = await this.meaningBeside(query, limit, filter.statuses);
    // Nothing awaits from here on, so the ordinals stay valid: words matched during the await
    // count only if neither the index nor the match buffers moved since.
    const pruned = tops !== undefined && tops.length > 0 && !this.settings.exhaustive;
    if (pruned && filter.minScore === null && !meaning) {
      // A query with very common words: the memories holding only those seldom reach a page.
      const plain = (filter.since ?? null) === null && (filter.tags ?? null) === null;
      const rare = plain ? this.lexical.matchRare(query, filter.statuses) : undefined;
      const rows = rare && rowsByRareWords(this.lexical, this.lookup, rare, filter, tops);
      if (rows) return rows;
      const matches = this.lexical.match(query, filter.statuses);
      return rowsByWords(this.lexical, this.lookup, matches, filter, tops);
    }
    const matches =
      early && early.stamp === this.lexical.matchStamp
        ? early.matches
        : this.lexical.match(query, filter.statuses);
    if (pruned && filter.minScore === null && meaning && prunable(meaning.weight)) {
      return rowsByWordsAndMeaning(this.lexical, this.lookup, matches, filter, tops, meaning);
    }
    const sims = new Map(meaning?.ids.map((id, i) => [id, meaning.sims[i] as number]));
    const cap = matches.count + sims.size;
    let ordinals = new Int32Array(cap);
    let lexical = new Float64Array(cap);
    let similarity = new Float64Array(meaning ? cap : 0);
    const others: MemoryRecord[] = [];
    const since = filter.since ?? null;
    const tags = filter.tags ?? null;
    const keep = (record: MemoryRecord) =>
      (since === null || record.last_used >= since) && (tags === null || hasTag(record, tags));
    const seen = new Set<string>();
    let n = 0;
    for (let j = 0; j < matches.count; j++) {
      const ordinal = matches.ordinals[j] as number;
      if (since !== null && this.lexical.valueAt(ordinal, LAST_USED) < since) continue;
      if (tags !== null && !hasTag(this.lexical.recordAt(ordinal), tags)) continue;
      if (meaning) {
        const id = this.lexical.idAt(ordinal);
        const sim = sims.get(id);
        if (sim !== undefined) seen.add(id);
        similarity[n] = sim ?? Number.NaN;
      }
      ordinals[n] = ordinal;
      lexical[n++] = matches.scores[j] as number;
    }
    // Matches by meaning that the words missed, with no lexical score.
    const statuses = new Set(filter.statuses);
    for (const [id, sim] of sims) {
      const record = seen.has(id) ? undefined : this.engine.memories.get(id);
      if (!record || !statuses.has(record.status) || !keep(record)) continue;
      ordinals[n] = -1 - others.length;
      others.push(record);
      lexical[n] = 0;
      similarity[n++] = sim;
    }
    const dynamics: Dynamics = { created_at: 0, last_used: 0, use_count: 0, strength: 0 };
    const scoreOf = (i: number): number => {
      const ordinal = ordinals[i] as number;
      return filter.score(
        ordinal >= 0
          ? this.lexical.dynamicsAt(ordinal, dynamics)
          : (others[-1 - ordinal] as MemoryRecord),
      );
    };
    const idOf = (i: number): string => {
      const ordinal = ordinals[i] as number;
      return ordinal >= 0 ? this.lexical.idAt(ordinal) : (others[-1 - ordinal] as MemoryRecord).id;
    };

    let scores = new Float64Array(n).fill(Number.NaN);
    const { minScore } = filter;
    if (minScore !== null || !pruned) {
      // A minimum score decides what matched (and so the count and the best match): every
      // match needs its score.
      let kept = 0;
      for (let i = 0; i < n; i++) {
        const score = scoreOf(i);
        if (minScore !== null && score < minScore) continue;
        ordinals[kept] = ordinals[i] as number;
        lexical[kept] = lexical[i] as number;
        if (meaning) similarity[kept] = similarity[i] as number;
        scores[kept++] = score;
      }
      n = kept;
      ordinals = ordinals.subarray(0, n);
      lexical = lexical.subarray(0, n);
      similarity = similarity.subarray(0, meaning ? n : 0);
      scores = scores.subarray(0, n);
    }

    let best = 0;
    for (let i = 0; i < n; i++) if ((lexical[i] as number) > best) best = lexical[i] as number;
    const relevance = new Float64Array(n);
    if (meaning) {
      const { threshold, weight } = meaning;
      let bestSim = threshold;
      for (let i = 0; i < n; i++) {
        const sim = similarity[i] as number;
        if (!Number.isNaN(sim)) bestSim = Math.max(bestSim, sim);
      }
      for (let i = 0; i < n; i++) {
        const sim = similarity[i] as number;
        relevance[i] = fusedRelevance(
          lexical[i] as number,
          best,
          Number.isNaN(sim) ? undefined : sim,
          bestSim,
          threshold,
          weight,
        );
      }
    } else {
      for (let i = 0; i < n; i++) relevance[i] = (lexical[i] as number) / best;
    }

    const wanted = pruned ? contenders(scoreOf, n, relevance, scores, tops) : null;
    const rows = new RankedRows(meaning !== null, this.lookup, this.lexical);
    rows.matched = n;
    const kept = new Float64Array(wanted ? wanted.count : n);
    let k = 0;
    for (let i = 0; i < n; i++) {
      if (wanted && !wanted.rows[i]) continue;
      const sim = meaning ? (similarity[i] as number) : Number.NaN;
      rows.push(
        idOf(i),
        lexical[i] as number,
        Number.isNaN(sim) ? undefined : sim,
        scores[i] as number,
        ordinals[i] as number,
      );
      kept[k++] = relevance[i] as number;
    }
    rows.relevance = kept;
    return rows;
  }

  /**
   * A search without words: every memory the filter keeps, with relevance 1, in the order of the
   * live memories, scored from the index's columns (a record is read only for a tag filter).
   */
  private everyMemory(filter: Filter): RankedRows {
    const rows = new RankedRows(false, this.lookup);
    const statuses = new Set(filter.statuses);
    const since = filter.since ?? null;
    const tags = filter.tags ?? null;
    const dynamics: Dynamics = { created_at: 0, last_used: 0, use_count: 0, strength: 0 };
    for (const id of this.engine.memories.keys()) {
      const ordinal = this.lexical.ordinalOf(id);
      let score: number;
      if (ordinal === undefined) {
        // Not indexed (not this retriever's namespace's): read as it is.
        const record = this.lookup(id);
        if (!record || !statuses.has(record.status)) continue;
        if (since !== null && record.last_used < since) continue;
        if (tags !== null && !hasTag(record, tags)) continue;
        score = filter.score(record);
      } else {
        if (!this.lexical.hasStatus(ordinal, statuses)) continue;
        if (since !== null && this.lexical.valueAt(ordinal, LAST_USED) < since) continue;
        if (tags !== null && !hasTag(this.lexical.recordAt(ordinal), tags)) continue;
        score = filter.score(this.lexical.dynamicsAt(ordinal, dynamics));
      }
      if (filter.minScore === null || score >= filter.minScore) rows.push(id, 1, undefined, score);
    }
    rows.matched = rows.length;
    rows.relevance = new Float64Array(rows.length).fill(1);
    return rows;
  }

  /**
   * Every live memory's status and decay numbers, from the index's columns (a record is read
   * only for one the index does not hold): what counting and scoring them all needs.
   */
  eachMemory(visit: (id: string, status: MemoryStatus, memory: Dynamics) => void): void {
    const dynamics: Dynamics = { created_at: 0, last_used: 0, use_count: 0, strength: 0 };
    const lexical = this.lexical;
    // Every memory in the index (the usual case): walked by ordinal, with no lookup by id.
    if (lexical.size === this.engine.memories.size) {
      lexical.eachOrdinal((ordinal, id) => {
        visit(id, lexical.statusAt(ordinal), lexical.dynamicsAt(ordinal, dynamics));
      });
      return;
    }
    for (const id of this.engine.memories.keys()) {
      const ordinal = this.lexical.ordinalOf(id);
      if (ordinal !== undefined) {
        visit(id, this.lexical.statusAt(ordinal), this.lexical.dynamicsAt(ordinal, dynamics));
      } else {
        const record = this.lookup(id);
        if (record) visit(id, record.status, record);
      }
    }
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
   * The memories whose meaning is within the near-duplicate threshold of `vector`, closest first,
   * out of the `limit` closest: what a save lists as close in meaning, from the approximate index's
   * first candidates (SearchDepth 'first'). A save asks before its write, so that the graph (a
   * thread of its own) searches meanwhile, and reads the records after it.
   */
  async nearDuplicates(vector: Float32Array, limit: number): Promise<VectorHits> {
    const semantic = this.semantic;
    if (!semantic) return { ids: [], sims: [] };
    const threshold =
      this.settings.nearDuplicateThreshold ?? modelDefaults(semantic.model).nearDuplicate;
    return semantic.search(vector, threshold, limit, this.held, 'first');
  }

  /**
   * The query's matches by meaning, and its words matched meanwhile when the meaning side runs
   * elsewhere: with the approximate index's graph in use (a thread of its own) the graph is asked
   * first, and a turn of the event loop lets the query's embedding reach it before the words are
   * matched here. What the words matched is read after the await only if `stamp` still holds.
   */
  private async meaningBeside(
    query: string,
    limit: number,
    statuses: Iterable<MemoryStatus>,
  ): Promise<{
    meaning: Awaited<ReturnType<Retriever['meaningHits']>>;
    early?: { matches: Matches; stamp: string };
  }> {
    // Searched here (a small store, or the graph not in use yet): one after the other.
    if (!this.semantic?.searchesOffThread || this.settings.hybridWeight === 0) {
      return { meaning: await this.meaningHits(query, limit) };
    }
    const asked = this.meaningHits(query, limit);
    // Handled by the await below; a rejection before it is not an unhandled one.
    asked.catch(() => {});
    await new Promise((resolve) => setImmediate(resolve));
    const matches = this.lexical.match(query, statuses);
    const stamp = this.lexical.matchStamp;
    return { meaning: await asked, early: { matches, stamp } };
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
