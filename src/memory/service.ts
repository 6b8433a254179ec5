import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { quantileSorted } from 'simple-statistics';
import {
  clampStrength,
  DAY,
  type DangerZone,
  type DecayParams,
  decayScorer,
  isCrossDomain,
  type PromotionParams,
  promotionVerdict,
  reinforce,
  reviewPriority,
  shouldForget,
} from '../decay/index.js';
import { type Cluster, clusterVectors, DEFAULT_CLUSTER_OPTIONS } from '../search/clustering.js';
import { normalizeContent } from '../search/lexical-index.js';
import { combinedRank, interleave, topN } from '../search/ranking.js';
import type { Retriever } from '../search/retriever.js';
import type { EmbeddingsStatus, SemanticIndex } from '../search/semantic-index.js';
import { dot } from '../search/vector-index.js';
import type { StorageEngine } from '../storage/engine.js';
import {
  type MemoryRecord,
  type MemoryStatus,
  newMemoryRecord,
  type RelationRecord,
  type RelationType,
} from '../storage/records.js';
import { noteTitle } from '../vault/note.js';
import type { VaultIndex } from '../vault/note-index.js';
import type { VaultWriter, WrittenNote } from '../vault/writer.js';
import { type MergePlan, mergeMemories } from './consolidate.js';
import { MemoryError, notFound } from './errors.js';
import { contentProblem, jsonObjectProblem } from './input-rules.js';
import type { NoteSync } from './note-sync.js';
import { mergedFrom, mergeRestored } from './restore.js';

export interface MemorySettings {
  decay: DecayParams;
  dangerZone: DangerZone;
  promotion: PromotionParams;
  forgetThreshold: number;
  reviewBlendRatio: number;
  searchDecayWeight: number;
  autoReinforce: boolean;
  /** The share of relevance that comes from meaning (vectors) rather than words, 0..1; unset: the model's own. */
  hybridWeight?: number | undefined;
  /** Cosines that count as a match by meaning; unset: the model's own (semantic-index.ts). */
  similarityThreshold?: number | undefined;
  /** Cosines at which save_memory lists a memory under similar_to; unset: the model's own. */
  nearDuplicateThreshold?: number | undefined;
}

/** The Obsidian vault: where promoted memories are written, and the index of its notes. */
export interface VaultDeps {
  writer: VaultWriter;
  notes: VaultIndex;
  sync: NoteSync;
}

export interface MemoryServiceDeps {
  store: StorageEngine;
  retriever: Retriever;
  clock: () => number;
  settings: MemorySettings;
  logger: Logger;
  vault?: VaultDeps;
  /** Embeddings of the memories; without it, or with embeddings off, search is by words. */
  semantic?: SemanticIndex;
}

export interface SaveInput {
  content: string;
  tags?: string[];
  entities?: string[];
  source?: string;
  context?: string;
  meta?: Record<string, unknown>;
  strength?: number;
}

export interface SearchInput {
  query?: string;
  tags?: string[];
  status?: MemoryStatus[];
  top_k?: number;
  window_days?: number;
  min_score?: number;
  include_review_candidates?: boolean;
  page?: number;
  page_size?: number;
  preview_length?: number;
}

export interface SearchHit {
  memory_id: string;
  content: string;
  tags: string[];
  score: number;
  relevance: number;
  use_count: number;
  last_used: number;
  age_days: number;
  review_priority: number;
  review_candidate: boolean;
}

export interface SimilarMemory {
  memory_id: string;
  similarity: number;
  preview: string;
}

export interface SaveResult {
  memory_id: string;
  deduplicated: boolean;
  /** Near-duplicates by meaning (kept apart: nothing is merged or dropped by a threshold). */
  similar_to: SimilarMemory[];
}

/**
 * Matches by meaning that a search ranks at least: the closest ones above the threshold. Past a
 * few hundred, the rest only add to the work (a query's words match what the vectors miss).
 */
const MEANING_CANDIDATES = 200;

/** At most this many near-duplicates are listed on save. */
const SIMILAR_SHOWN = 5;

export interface ClusterInput {
  threshold?: number;
  max_cluster_size?: number;
  /** Only clusters close enough to merge without a second look (cohesion >= 0.9). */
  find_duplicates?: boolean;
}

export type ConsolidateMode = 'preview' | 'apply' | 'link';

export interface Consolidation {
  cluster_id: string;
  member_ids: string[];
  cohesion: number;
  /** The merged memory: its id once applied, null in a preview or when linking. */
  memory_id: string | null;
  merged: MergePlan;
  relation_ids: string[];
  archived_ids: string[];
}

/** Progress of a long call: `done` of `total` steps. */
export type Progress = (done: number, total: number, message?: string) => void;

export interface GcCandidate {
  memory_id: string;
  score: number;
  age_days: number;
  last_used: number;
  use_count: number;
  preview: string;
  action: 'forget' | 'archive';
}

export interface PromotionCandidate {
  memory_id: string;
  score: number;
  use_count: number;
  age_days: number;
  reason: string;
  preview: string;
}

export interface UnifiedInput {
  query: string;
  top_k?: number;
  stm_weight?: number;
  ltm_weight?: number;
  preview_length?: number;
}

export interface UnifiedHit {
  source: 'stm' | 'ltm';
  memory_id?: string;
  path?: string;
  title: string;
  content: string;
  score: number;
}

export type PromoteResult = {
  candidates_found: number;
  promoted_count: number;
  promoted: { memory_id: string; path: string }[];
  failed: { memory_id: string; error: string }[];
  candidates: PromotionCandidate[];
  dry_run: boolean;
};

const round = (x: number, digits = 4) => Math.round(x * 10 ** digits) / 10 ** digits;

export function preview(content: string, length: number): string {
  return content.length <= length ? content : `${content.slice(0, Math.max(0, length - 1))}…`;
}

/**
 * The memory: what the MCP tools and the CLI call. It reads the clock it was given, never the
 * wall clock, and every method starts by picking up other processes' writes.
 */
export class MemoryService {
  private readonly store: StorageEngine;
  private readonly retriever: Retriever;
  private readonly clock: () => number;
  readonly settings: MemorySettings;
  private readonly logger: Logger;
  private readonly vault: VaultDeps | undefined;
  private readonly semantic: SemanticIndex | undefined;
  private readonly scoreAt: (record: MemoryRecord, now: number) => number;

  constructor(deps: MemoryServiceDeps) {
    this.store = deps.store;
    this.retriever = deps.retriever;
    this.clock = deps.clock;
    this.settings = deps.settings;
    this.scoreAt = decayScorer(deps.settings.decay);
    this.logger = deps.logger;
    this.vault = deps.vault;
    this.semantic = deps.semantic;
  }

  now(): number {
    return this.clock();
  }

  score(record: MemoryRecord, now = this.clock()): number {
    return this.scoreAt(record, now);
  }

  async save(input: SaveInput): Promise<SaveResult> {
    const blank = contentProblem(input.content);
    if (blank !== undefined) throw new MemoryError(blank, 'content');
    const badMeta = jsonObjectProblem(input.meta, 'meta');
    if (badMeta !== undefined) throw new MemoryError(badMeta, 'meta');
    // The meaning of the new content, before it is written: what it is close to is listed, and
    // its vector is kept, not computed again.
    const vector = await this.retriever.embed(input.content);
    const saved = await this.store.transact<{ memory_id: string; deduplicated: boolean }>(() => {
      const now = this.clock();
      const duplicateId = this.retriever.duplicateOf(input.content);
      const duplicate = duplicateId ? this.store.memories.get(duplicateId) : undefined;
      if (duplicate && duplicate.status !== 'archived') {
        // Saving it again is a use; what the new save adds is kept, nothing it says is lost.
        const reinforced = reinforce(
          duplicate,
          now,
          { kind: 'touch' },
          this.settings.decay,
          this.settings.dangerZone,
        );
        const updated: MemoryRecord = {
          ...duplicate,
          ...reinforced,
          strength:
            input.strength === undefined
              ? reinforced.strength
              : Math.max(reinforced.strength, clampStrength(input.strength)),
          meta: {
            ...duplicate.meta,
            tags: union(duplicate.meta.tags, input.tags ?? []),
            source: duplicate.meta.source ?? input.source ?? null,
            context: duplicate.meta.context ?? input.context ?? null,
            extra: { ...duplicate.meta.extra, ...input.meta },
          },
          entities: union(duplicate.entities, input.entities ?? []),
        };
        return { result: { memory_id: duplicate.id, deduplicated: true }, memories: [updated] };
      }
      const record = newMemoryRecord(randomUUID(), input.content, now, {
        meta: {
          tags: dedupe(input.tags ?? []),
          source: input.source ?? null,
          context: input.context ?? null,
          extra: input.meta ?? {},
        },
        entities: dedupe(input.entities ?? []),
        strength: clampStrength(input.strength ?? 1),
      });
      return { result: { memory_id: record.id, deduplicated: false }, memories: [record] };
    });
    if (!vector) return { ...saved, similar_to: [] };
    if (!saved.deduplicated) this.retriever.adopt(saved.memory_id, input.content, vector);
    const similar = await this.retriever.nearDuplicates(
      vector,
      SIMILAR_SHOWN + 1,
      (record) => record.id !== saved.memory_id && record.status !== 'archived',
    );
    return {
      ...saved,
      similar_to: similar.slice(0, SIMILAR_SHOWN).map(({ record, similarity }) => ({
        memory_id: record.id,
        similarity: round(similarity),
        preview: preview(record.content, 120),
      })),
    };
  }

  async search(input: SearchInput): Promise<{ results: SearchHit[]; total: number; page: number }> {
    await this.sync();
    const now = this.clock();
    const s = this.settings;
    const pageSize = input.page_size ?? input.top_k ?? 10;
    const page = input.page ?? 1;
    const statuses = new Set<MemoryStatus>(input.status ?? ['active', 'promoted']);
    const tagFilter = input.tags && input.tags.length > 0 ? new Set(input.tags.map(lower)) : null;
    const since = input.window_days !== undefined ? now - input.window_days * DAY : null;
    const minScore = input.min_score ?? null;
    const query = input.query?.trim() ?? '';

    // The meaning side brings its closest matches, enough for this page four times over.
    const limit = Math.max(MEANING_CANDIDATES, 4 * page * pageSize);
    const rows = await this.retriever.rank(query, limit, (record) => {
      if (!statuses.has(record.status)) return null;
      if (since !== null && record.last_used < since) return null;
      if (tagFilter && !record.meta.tags.some((t) => tagFilter.has(t.toLowerCase()))) return null;
      const score = this.scoreAt(record, now);
      return minScore !== null && score < minScore ? null : score;
    });
    const records = rows.map((r) => r.record);
    const relevance = rows.map((r) => r.relevance);
    const scores = rows.map((r) => r.score);

    const ranks = new Float64Array(records.length);
    for (let i = 0; i < records.length; i++) {
      ranks[i] = combinedRank(relevance[i] as number, scores[i] as number, s.searchDecayWeight);
    }

    // Review blending, decided on page 1 and kept out of the primary ranking on every page.
    const slots =
      input.include_review_candidates === false ? 0 : Math.floor(pageSize * s.reviewBlendRatio);
    let review: number[] = [];
    let firstPrimary: number[] = [];
    if (slots > 0) {
      firstPrimary = topN(ranks, pageSize - slots).map((r) => r.index);
      const inFirst = new Set(firstPrimary);
      const urgency = new Float64Array(records.length);
      for (let i = 0; i < records.length; i++) {
        const p = reviewPriority(scores[i] as number, s.dangerZone);
        urgency[i] = p > 0 && !inFirst.has(i) ? p * (relevance[i] as number) : -1;
      }
      review = topN(urgency, slots, (i) => (urgency[i] as number) > 0).map((r) => r.index);
    }
    const reviewSet = new Set(review);
    const firstCount = pageSize - review.length;
    const offset = page <= 1 ? 0 : firstCount + (page - 2) * pageSize;
    const count = page <= 1 ? firstCount : pageSize;
    // Page 1 with every review slot filled is exactly the first primaries found above.
    const primary =
      page <= 1 && slots > 0 && review.length === slots
        ? firstPrimary
        : topN(ranks, offset + count, (i) => !reviewSet.has(i))
            .slice(offset)
            .map((r) => r.index);
    const order = page <= 1 ? interleave(primary, review) : primary;

    const previewLength = input.preview_length ?? 300;
    const results = order.map((i): SearchHit => {
      const record = records[i] as MemoryRecord;
      const score = scores[i] as number;
      return {
        memory_id: record.id,
        content: preview(this.textOf(record), previewLength),
        tags: record.meta.tags,
        score: round(score),
        relevance: round(relevance[i] as number),
        use_count: record.use_count,
        last_used: record.last_used,
        age_days: round((now - record.created_at) / DAY, 2),
        review_priority: round(reviewPriority(score, s.dangerZone)),
        review_candidate: reviewSet.has(i),
      };
    });
    return { results, total: records.length, page };
  }

  async touch(
    memoryId: string,
    boostStrength = false,
  ): Promise<{
    memory_id: string;
    old_score: number;
    new_score: number;
    use_count: number;
    strength: number;
  }> {
    return this.store.transact(() => {
      const now = this.clock();
      const record = this.require(memoryId);
      const next: MemoryRecord = {
        ...record,
        ...reinforce(
          record,
          now,
          { kind: 'touch', boostStrength },
          this.settings.decay,
          this.settings.dangerZone,
        ),
      };
      return {
        result: {
          memory_id: record.id,
          old_score: round(this.score(record, now)),
          new_score: round(this.score(next, now)),
          use_count: next.use_count,
          strength: next.strength,
        },
        memories: [next],
      };
    });
  }

  async observe(
    memoryIds: string[],
    contextTags: string[],
  ): Promise<{
    results: {
      memory_id: string;
      cross_domain: boolean;
      use_count: number;
      strength: number;
      review_priority: number;
    }[];
    not_found: string[];
    reinforced: boolean;
  }> {
    const plan = () => {
      const now = this.clock();
      const results = [];
      const notFoundIds: string[] = [];
      const updates: MemoryRecord[] = [];
      for (const id of dedupe(memoryIds)) {
        const record = this.store.memories.get(id);
        if (!record) {
          notFoundIds.push(id);
          continue;
        }
        const crossDomain = isCrossDomain(record.meta.tags, contextTags);
        const next: MemoryRecord = this.settings.autoReinforce
          ? {
              ...record,
              ...reinforce(
                record,
                now,
                { kind: 'observe', crossDomain },
                this.settings.decay,
                this.settings.dangerZone,
              ),
            }
          : record;
        if (this.settings.autoReinforce) updates.push(next);
        results.push({
          memory_id: id,
          cross_domain: crossDomain,
          use_count: next.use_count,
          strength: next.strength,
          review_priority: round(reviewPriority(this.score(next, now), this.settings.dangerZone)),
        });
      }
      return {
        result: { results, not_found: notFoundIds, reinforced: this.settings.autoReinforce },
        memories: updates,
      };
    };
    if (!this.settings.autoReinforce) {
      await this.sync();
      return plan().result;
    }
    return this.store.transact(plan);
  }

  /** Active memories whose score fell under the forget threshold, weakest first. */
  async gcCandidates(limit?: number, archive = false): Promise<GcCandidate[]> {
    await this.sync();
    return this.collectGcCandidates(limit, archive);
  }

  private collectGcCandidates(limit: number | undefined, archive: boolean): GcCandidate[] {
    const now = this.clock();
    const out: GcCandidate[] = [];
    for (const record of this.store.memories.values()) {
      const score = this.score(record, now);
      if (!shouldForget(score, record.status, this.settings.forgetThreshold)) continue;
      out.push({
        memory_id: record.id,
        score: round(score, 6),
        age_days: round((now - record.created_at) / DAY, 1),
        last_used: record.last_used,
        use_count: record.use_count,
        preview: preview(record.content.replace(/\s+/g, ' '), 80),
        action: archive ? 'archive' : 'forget',
      });
    }
    out.sort((a, b) => a.score - b.score || a.last_used - b.last_used);
    return limit !== undefined ? out.slice(0, limit) : out;
  }

  async gc(options: { dry_run?: boolean; archive_instead?: boolean; limit?: number }): Promise<{
    dry_run: boolean;
    removed_count: number;
    archived_count: number;
    total_affected: number;
    memory_ids: string[];
    candidates: GcCandidate[];
  }> {
    const dryRun = options.dry_run ?? true;
    const archive = options.archive_instead ?? false;
    const summarize = (candidates: GcCandidate[]) => ({
      dry_run: dryRun,
      removed_count: archive ? 0 : candidates.length,
      archived_count: archive ? candidates.length : 0,
      total_affected: candidates.length,
      memory_ids: candidates.map((c) => c.memory_id),
      candidates,
    });
    if (dryRun) return summarize(await this.gcCandidates(options.limit, archive));
    return this.store.transact(() => {
      const candidates = this.collectGcCandidates(options.limit, archive);
      const records = candidates.map((c) => this.require(c.memory_id));
      const result = summarize(candidates);
      if (archive) {
        return { result, memories: records.map((r) => ({ ...r, status: 'archived' as const })) };
      }
      return { result, forgotten: records, deletes: records.map((r) => r.id) };
    });
  }

  async promotionCandidates(): Promise<PromotionCandidate[]> {
    await this.sync();
    return this.collectPromotionCandidates();
  }

  private collectPromotionCandidates(): PromotionCandidate[] {
    const now = this.clock();
    const out: PromotionCandidate[] = [];
    for (const record of this.store.memories.values()) {
      if (record.status !== 'active') continue;
      const candidate = this.promotionCandidate(record, now);
      if (candidate) out.push(candidate);
    }
    return out.sort((a, b) => b.score - a.score);
  }

  async promote(options: {
    memory_id?: string;
    auto_detect?: boolean;
    dry_run?: boolean;
    force?: boolean;
  }): Promise<PromoteResult> {
    const dryRun = options.dry_run ?? false;
    if (!options.memory_id && !options.auto_detect) {
      throw new MemoryError(
        'promote_memory needs memory_id, or auto_detect: true to promote every candidate',
        'memory_id',
      );
    }
    await this.sync();
    const now = this.clock();
    let candidates: PromotionCandidate[];
    if (options.memory_id) {
      const record = this.require(options.memory_id);
      if (record.status === 'archived') {
        throw new MemoryError(
          `memory_id "${record.id}" is archived: restore_memory it first, then promote it`,
          'memory_id',
        );
      }
      const candidate = this.promotionCandidate(record, now);
      if (!candidate && !options.force) {
        const verdict = promotionVerdict(
          record,
          this.score(record, now),
          now,
          this.settings.promotion,
        );
        throw new MemoryError(
          `memory_id "${record.id}" does not qualify for promotion yet (${verdict.reason}); use it more, or pass force: true`,
          'memory_id',
        );
      }
      candidates = [candidate ?? this.describeCandidate(record, now, 'forced')];
    } else {
      candidates = this.collectPromotionCandidates();
    }
    const summary = { candidates_found: candidates.length, candidates, dry_run: dryRun };
    if (dryRun) return { ...summary, promoted_count: 0, promoted: [], failed: [] };
    const vault = this.vault;
    if (!vault) {
      throw new MemoryError(
        'this mnemo has no Obsidian vault to promote into: call promote_memory with dry_run: true to see the candidates',
        'dry_run',
      );
    }
    // A note of this memory anywhere in the vault is found and updated, not written twice.
    await vault.notes.indexed;
    let created: boolean;
    try {
      created = vault.writer.ensure();
    } catch (error) {
      throw new MemoryError(`${(error as Error).message}; the memories stay active`, 'memory_id');
    }
    const written: WrittenNote[] = [];
    const result = await this.store.transact(() => {
      const at = this.clock();
      const promoted: { memory_id: string; path: string }[] = [];
      const failed: { memory_id: string; error: string }[] = [];
      const updates: MemoryRecord[] = [];
      for (const candidate of candidates) {
        const record = this.store.memories.get(candidate.memory_id);
        if (!record || record.status === 'archived') continue;
        const next: MemoryRecord = {
          ...record,
          status: 'promoted',
          promoted_at: record.status === 'promoted' ? (record.promoted_at ?? at) : at,
        };
        // The note is on disk before the record says so: a crash in between leaves a note
        // that names an active memory, which the vault watcher then promotes.
        let note: WrittenNote;
        try {
          note = vault.writer.write(next, this.promotedNeighbours(record.id));
        } catch (error) {
          failed.push({ memory_id: record.id, error: (error as Error).message });
          continue;
        }
        written.push(note);
        updates.push({ ...next, promoted_to: note.path });
        promoted.push({ memory_id: record.id, path: note.path });
      }
      if (promoted.length === 0 && failed.length > 0) {
        throw new MemoryError(
          `${failed[0]?.error}${failed.length > 1 ? ` (and ${failed.length - 1} more)` : ''}; the memories stay active`,
          'memory_id',
        );
      }
      return {
        result: { ...summary, promoted_count: promoted.length, promoted, failed },
        memories: updates,
      };
    });
    for (const note of written) vault.notes.upsert(note.path, note.text);
    if (created) {
      this.logger.info({ vault: vault.writer.vault }, 'vault made from the template');
    }
    void vault.notes.vaultCreated();
    return result;
  }

  /**
   * Memories and the vault's notes in one ranked list. Each side is scored by BM25 and divided
   * by its own best match (the two corpora have different word statistics, so raw scores do
   * not compare); a memory's relevance is then combined with its decay score as in search, and
   * each side is multiplied by its weight. A memory whose note also matches is listed once,
   * with its path.
   */
  async searchUnified(input: UnifiedInput): Promise<{ results: UnifiedHit[]; total: number }> {
    const query = input.query.trim();
    if (!query) {
      throw new MemoryError('query is empty: pass the words to look for', 'query');
    }
    await this.sync();
    if (this.vault) await this.vault.notes.indexed;
    const now = this.clock();
    const topK = input.top_k ?? 10;
    const stmWeight = input.stm_weight ?? 1;
    const ltmWeight = input.ltm_weight ?? 0.7;
    const previewLength = input.preview_length ?? 300;
    // A weight of 0 leaves that side out.
    const ltm =
      this.vault && ltmWeight > 0
        ? this.vault.notes.search(query)
        : { ids: [], scores: [], docs: [] };
    const ltmBest = maxOf(ltm.scores);

    // Memories: by their words and, with embeddings, by their meaning, as search_memory does.
    const stm =
      stmWeight > 0
        ? await this.retriever.rank(query, MEANING_CANDIDATES, (record) =>
            record.status === 'archived' ? null : this.scoreAt(record, now),
          )
        : [];

    const hits: UnifiedHit[] = [];
    const byMemory = new Map<string, number>();
    for (const { record, relevance, score } of stm) {
      const note = this.vault?.sync.noteOf(record);
      byMemory.set(record.id, hits.length);
      hits.push({
        source: 'stm',
        memory_id: record.id,
        ...(record.status === 'promoted' && record.promoted_to ? { path: record.promoted_to } : {}),
        title: note?.title ?? noteTitle(record.content),
        content: preview(note?.body ?? record.content, previewLength),
        score: stmWeight * combinedRank(relevance, score, this.settings.searchDecayWeight),
      });
    }
    ltm.docs.forEach((note, i) => {
      const score = (ltmWeight * (ltm.scores[i] as number)) / ltmBest;
      const known = note.memoryId !== undefined ? byMemory.get(note.memoryId) : undefined;
      const hit: UnifiedHit = {
        source: 'ltm',
        ...(note.memoryId !== undefined ? { memory_id: note.memoryId } : {}),
        path: note.path,
        title: note.title,
        content: preview(note.body, previewLength),
        score,
      };
      if (known === undefined) {
        hits.push(hit);
        return;
      }
      // The memory and its note both matched: one result, the better of the two.
      const other = hits[known] as UnifiedHit;
      if (score > other.score) hits[known] = hit;
      else if (!other.path) other.path = note.path;
    });
    const ranks = Float64Array.from(hits, (h) => h.score);
    const results = topN(ranks, topK).map(({ index }) => {
      const hit = hits[index] as UnifiedHit;
      return { ...hit, score: round(hit.score) };
    });
    return { results, total: hits.length };
  }

  async open(memoryIds: string[]): Promise<{
    memories: (MemoryRecord & {
      score: number;
      review_priority: number;
      relations: RelationRecord[];
    })[];
    not_found: string[];
  }> {
    await this.sync();
    const now = this.clock();
    const memories = [];
    const missing: string[] = [];
    for (const id of dedupe(memoryIds)) {
      const record = this.store.memories.get(id);
      if (!record) {
        missing.push(id);
        continue;
      }
      const score = this.score(record, now);
      memories.push({
        ...record,
        score: round(score),
        review_priority: round(reviewPriority(score, this.settings.dangerZone)),
        relations: this.store.relationsOf(id),
      });
    }
    return { memories, not_found: missing };
  }

  async archive(memoryId: string): Promise<{ memory_id: string; status: string }> {
    return this.setStatus(memoryId, 'archived');
  }

  /**
   * Brings back an archived memory, or one that gc or delete_memory forgot. A promoted one comes
   * back promoted when its note is still in the vault (at the note's path now), else active with
   * promoted_to cleared. When a live memory holds the same content (saved again meanwhile), the
   * restored one is merged into it rather than made a second copy (restore.ts).
   */
  async restore(
    memoryId: string,
  ): Promise<{ memory_id: string; status: string; merged_into?: string }> {
    const vault = this.vault;
    if (vault) await vault.notes.indexed;
    const result = await this.store.transact<{
      memory_id: string;
      status: string;
      merged_into?: string;
    }>(() => {
      const live = this.store.memories.get(memoryId);
      if (live && live.status !== 'archived') {
        return { result: { memory_id: memoryId, status: live.status } };
      }
      const source = live ?? this.store.findForgotten(memoryId);
      if (!source) {
        throw new MemoryError(
          `memory_id "${memoryId}" is neither a live memory nor in forgotten.jsonl: check the id (mnemo gc lists what it forgot)`,
          'memory_id',
        );
      }
      const now = this.clock();
      const twin = this.liveTwin(source);
      if (twin) {
        const merged = { memory_id: memoryId, status: 'merged', merged_into: twin.id };
        if (mergedFrom(twin).includes(memoryId)) return { result: merged };
        const next = mergeRestored(twin, source, now);
        next.review_priority = reviewPriority(this.score(next, now), this.settings.dangerZone);
        return { result: merged, memories: [next] };
      }
      // Without a vault, or with a note in another vault, its promotion is kept as it was.
      const link = vault?.sync.restoredLink(source) ?? {
        status: source.status === 'promoted' ? ('promoted' as const) : ('active' as const),
        promoted_to: source.promoted_to,
      };
      const restored: MemoryRecord = {
        ...source,
        ...link,
        // A forgotten one comes back as if just used, so that the next gc does not forget it
        // again at once.
        last_used: live ? source.last_used : now,
      };
      return { result: { memory_id: memoryId, status: restored.status }, memories: [restored] };
    });
    // What it is searched by: its note's text again, or its own.
    if (vault && result.status !== 'merged') await vault.sync.recheck(memoryId);
    return result;
  }

  /** A live (not archived) memory, other than this one, with the same normalized content. */
  private liveTwin(record: MemoryRecord): MemoryRecord | undefined {
    const content = normalizeContent(record.content);
    for (const other of this.store.memories.values()) {
      if (other.id === record.id || other.status === 'archived') continue;
      if (normalizeContent(other.content) === content) return other;
    }
    return undefined;
  }

  /** Deletes recoverably: the record goes to forgotten.jsonl first. */
  async delete(memoryId: string): Promise<{ memory_id: string; status: string }> {
    return this.store.transact(() => {
      const record = this.require(memoryId);
      return {
        result: { memory_id: memoryId, status: 'deleted' },
        forgotten: [record],
        deletes: [record.id],
      };
    });
  }

  /**
   * Groups active memories whose meanings are close (single linkage over cosine, strongest links
   * first, clusters capped). Needs embeddings.
   */
  async cluster(input: ClusterInput = {}, onProgress?: Progress): Promise<Cluster[]> {
    await this.sync();
    const semantic = this.semantic;
    await semantic?.ready;
    if (!semantic?.enabled) {
      throw new MemoryError(
        'clustering compares meanings and embeddings are off: set MNEMO_EMBEDDINGS to auto or static',
        'threshold',
      );
    }
    const entries = await semantic.entries((done, total) =>
      onProgress?.(done, total, 'embedding memories'),
    );
    const items = entries.filter((e) => this.store.memories.get(e.id)?.status === 'active');
    const clusters = clusterVectors(
      items,
      {
        threshold: input.threshold ?? DEFAULT_CLUSTER_OPTIONS.threshold,
        maxClusterSize: input.max_cluster_size ?? DEFAULT_CLUSTER_OPTIONS.maxClusterSize,
      },
      (done, total) => onProgress?.(done, total, 'comparing memories'),
    );
    return input.find_duplicates
      ? clusters.filter((c) => c.suggested_action === 'auto-merge')
      : clusters;
  }

  /**
   * Acts on clusters that cluster() returned: `preview` shows the merged memory; `apply` saves
   * it, links it to each member (consolidated_from) and archives the members; `link` relates each
   * member to the cluster's most central one and merges nothing. Nothing is deleted.
   */
  async consolidate(
    input: ClusterInput & { cluster_id?: string; auto_detect?: boolean; mode?: ConsolidateMode },
    onProgress?: Progress,
  ): Promise<{ mode: ConsolidateMode; consolidations: Consolidation[] }> {
    const mode = input.mode ?? 'preview';
    if (!input.cluster_id && !input.auto_detect) {
      throw new MemoryError(
        'consolidate_memories needs cluster_id (from cluster_memories), or auto_detect: true to take every auto-merge cluster',
        'cluster_id',
      );
    }
    const clusters = await this.cluster(input, onProgress);
    let chosen: Cluster[];
    if (input.cluster_id) {
      const found = clusters.find((c) => c.id === input.cluster_id);
      if (!found) {
        throw new MemoryError(
          `cluster_id "${input.cluster_id}" is not among the current clusters (its memories changed, or another threshold was used): call cluster_memories again and pass an id it returns`,
          'cluster_id',
        );
      }
      chosen = [found];
    } else {
      chosen = clusters.filter((c) => c.suggested_action === 'auto-merge');
    }
    const plans = chosen.map((cluster) => {
      const members = cluster.memory_ids.map((id) => this.require(id));
      return { cluster, members, merged: mergeMemories(members) };
    });
    const base = (p: (typeof plans)[number]): Consolidation => ({
      cluster_id: p.cluster.id,
      member_ids: p.cluster.memory_ids,
      cohesion: p.cluster.cohesion,
      memory_id: null,
      merged: p.merged,
      relation_ids: [],
      archived_ids: [],
    });
    if (mode === 'preview' || plans.length === 0) {
      return { mode, consolidations: plans.map(base) };
    }
    const consolidations = await this.store.transact(() => {
      const now = this.clock();
      const memories: MemoryRecord[] = [];
      const relations: RelationRecord[] = [];
      const out: Consolidation[] = [];
      for (const plan of plans) {
        const result = base(plan);
        const relate = (from: string, to: string, type: RelationType): void => {
          const relation: RelationRecord = {
            id: randomUUID(),
            from_memory_id: from,
            to_memory_id: to,
            relation_type: type,
            strength: 1,
            created_at: now,
            metadata: { cluster_id: plan.cluster.id, cohesion: plan.cluster.cohesion },
          };
          relations.push(relation);
          result.relation_ids.push(relation.id);
        };
        // Another process may have changed a member since the clusters were made.
        const live = plan.members.map((m) => this.store.memories.get(m.id));
        if (live.some((m) => m?.status !== 'active')) {
          throw new MemoryError(
            `a member of cluster "${plan.cluster.id}" is no longer active: call cluster_memories again`,
            'cluster_id',
          );
        }
        if (mode === 'link') {
          const hub = this.medoid(plan.cluster.memory_ids);
          for (const id of plan.cluster.memory_ids) if (id !== hub) relate(hub, id, 'related');
        } else {
          const m = plan.merged;
          const merged = newMemoryRecord(randomUUID(), m.content, now, {
            meta: {
              tags: m.tags,
              source: m.source,
              context: m.context,
              extra: { consolidated_from: plan.cluster.memory_ids },
            },
            entities: m.entities,
            created_at: m.created_at,
            last_used: m.last_used,
            use_count: m.use_count,
            strength: m.strength,
          });
          memories.push(merged);
          result.memory_id = merged.id;
          for (const member of live as MemoryRecord[]) {
            relate(merged.id, member.id, 'consolidated_from');
            memories.push({ ...member, status: 'archived' });
            result.archived_ids.push(member.id);
          }
        }
        out.push(result);
      }
      return { result: out, memories, relations };
    });
    return { mode, consolidations };
  }

  /** The member closest to all the others (the most central), by the sum of cosines. */
  private medoid(ids: readonly string[]): string {
    const vectors = ids.map((id) => this.semantic?.vectorOf(id));
    let best = ids[0] as string;
    let bestSum = Number.NEGATIVE_INFINITY;
    ids.forEach((id, i) => {
      const v = vectors[i];
      if (!v) return;
      let sum = 0;
      for (const w of vectors) if (w) sum += dot(v, w);
      if (sum > bestSum) {
        bestSum = sum;
        best = id;
      }
    });
    return best;
  }

  async createRelation(input: {
    from_memory_id: string;
    to_memory_id: string;
    relation_type: RelationType;
    strength?: number;
    metadata?: Record<string, unknown>;
  }): Promise<{ relation_id: string }> {
    const problem = jsonObjectProblem(input.metadata, 'metadata');
    if (problem !== undefined) throw new MemoryError(problem, 'metadata');
    return this.store.transact(() => {
      this.require(input.from_memory_id, 'from_memory_id');
      this.require(input.to_memory_id, 'to_memory_id');
      if (input.from_memory_id === input.to_memory_id) {
        throw new MemoryError(
          'from_memory_id and to_memory_id are the same memory: relate two different ones',
          'to_memory_id',
        );
      }
      const relation: RelationRecord = {
        id: randomUUID(),
        from_memory_id: input.from_memory_id,
        to_memory_id: input.to_memory_id,
        relation_type: input.relation_type,
        strength: input.strength ?? 1,
        created_at: this.clock(),
        metadata: input.metadata ?? {},
      };
      return { result: { relation_id: relation.id }, relations: [relation] };
    });
  }

  async stats(): Promise<{
    total: number;
    by_status: Record<MemoryStatus, number>;
    score_quantiles: { p10: number; p25: number; p50: number; p75: number; p90: number } | null;
    danger_zone_count: number;
    gc_candidates: number;
    promotion_candidates: number;
    relations: number;
    store_bytes: Record<string, number>;
    embeddings: EmbeddingsStatus;
  }> {
    await this.sync();
    const now = this.clock();
    const byStatus: Record<MemoryStatus, number> = { active: 0, promoted: 0, archived: 0 };
    const scores: number[] = [];
    let danger = 0;
    let gc = 0;
    let promotable = 0;
    for (const record of this.store.memories.values()) {
      byStatus[record.status]++;
      const score = this.score(record, now);
      if (record.status === 'archived') continue;
      scores.push(score);
      if (reviewPriority(score, this.settings.dangerZone) > 0) danger++;
      if (shouldForget(score, record.status, this.settings.forgetThreshold)) gc++;
      if (record.status === 'active' && this.promotionCandidate(record, now)) promotable++;
    }
    scores.sort((a, b) => a - b);
    const q = (p: number) => round(quantileSorted(scores, p));
    return {
      total: this.store.memories.size,
      by_status: byStatus,
      score_quantiles:
        scores.length > 0
          ? { p10: q(0.1), p25: q(0.25), p50: q(0.5), p75: q(0.75), p90: q(0.9) }
          : null,
      danger_zone_count: danger,
      gc_candidates: gc,
      promotion_candidates: promotable,
      relations: this.store.relations.size,
      store_bytes: this.store.sizes(),
      embeddings: this.semantic?.status() ?? { state: 'off', model: null, vectors: 0, backlog: 0 },
    };
  }

  private async setStatus(
    memoryId: string,
    status: MemoryStatus,
  ): Promise<{ memory_id: string; status: string }> {
    return this.store.transact(() => {
      const record = this.require(memoryId);
      if (record.status === status) return { result: { memory_id: memoryId, status } };
      return { result: { memory_id: memoryId, status }, memories: [{ ...record, status }] };
    });
  }

  /** A memory's text: its note's as a person left it once promoted, else its own. */
  private textOf(record: MemoryRecord): string {
    return this.vault?.sync.noteOf(record)?.body ?? record.content;
  }

  /** Promoted memories related to this one (either direction), for the note's links. */
  private promotedNeighbours(id: string): MemoryRecord[] {
    const out = new Map<string, MemoryRecord>();
    for (const relation of this.store.relationsOf(id)) {
      const other =
        relation.from_memory_id === id ? relation.to_memory_id : relation.from_memory_id;
      const record = this.store.memories.get(other);
      if (record?.status === 'promoted' && record.promoted_to) out.set(other, record);
    }
    return [...out.values()];
  }

  /** Waits for the initial load, then picks up other processes' writes. */
  private async sync(): Promise<void> {
    await this.store.ready;
    this.store.refresh();
  }

  private require(id: string, field = 'memory_id'): MemoryRecord {
    const record = this.store.memories.get(id);
    if (!record) throw notFound(id, field);
    return record;
  }

  private promotionCandidate(record: MemoryRecord, now: number): PromotionCandidate | undefined {
    const verdict = promotionVerdict(record, this.score(record, now), now, this.settings.promotion);
    return verdict.eligible ? this.describeCandidate(record, now, verdict.reason) : undefined;
  }

  private describeCandidate(record: MemoryRecord, now: number, reason: string): PromotionCandidate {
    return {
      memory_id: record.id,
      score: round(this.score(record, now)),
      use_count: record.use_count,
      age_days: round((now - record.created_at) / DAY, 1),
      reason,
      preview: preview(record.content.replace(/\s+/g, ' '), 80),
    };
  }
}

const lower = (s: string) => s.toLowerCase();

function maxOf(values: readonly number[]): number {
  let best = 0;
  for (const x of values) if (x > best) best = x;
  return best;
}

function dedupe(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return dedupe([...a, ...b]);
}
