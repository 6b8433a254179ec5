// Finding memories again: a page of a search with review candidates blended in, memories opened
// in full, and one list over the memories and the vault's notes.
import type { OpenMemoriesInput, OpenMemoriesOutput } from '../contract/open-memories.js';
import type {
  SearchHit,
  SearchMemoryInput,
  SearchMemoryOutput,
} from '../contract/search-memory.js';
import {
  DEFAULT_LTM_WEIGHT,
  DEFAULT_STM_WEIGHT,
  type SearchUnifiedInput,
  type SearchUnifiedOutput,
  type UnifiedHit,
} from '../contract/search-unified.js';
import { DEFAULT_PREVIEW, DEFAULT_TOP_K } from '../contract/shared.js';
import { CONTEXT_PREVIEW, type Neighbours } from '../contract/when-where.js';
import { DAY, reviewPriority } from '../decay/index.js';
import type { Dynamics } from '../search/lexical-index.js';
import { withoutScaffolding } from '../search/question-words.js';
import { combinedRank, interleave, topN } from '../search/ranking.js';
import type { Top } from '../search/retriever.js';
import { MEMORY_STATUSES, type MemoryRecord, type MemoryStatus } from '../storage/records.js';
import { noteTitle } from '../vault/note.js';
import type { MemoryContext } from './context.js';
import { MAX_NAME_LIFT, nameLift, nameLiftOf, queryNames } from './entity-ranking.js';
import { MemoryError } from './errors.js';
import { supersessionOf } from './facts/chain.js';
import { NeighbourIndex } from './neighbour-index.js';
import { ageDays, preview, round } from './present.js';
import { LIFT_POOL, liftBest } from './query-lifts.js';
import {
  liftBySession,
  type Placed,
  placeOf,
  SESSION_POOL,
  spreadOverSessions,
} from './session-ranking.js';
import { MAX_TIME_LIFT, scoreWithin, timeLift, timeLiftOf, timeOf } from './time-ranking.js';
import { currentVersion, versionsOf } from './versions.js';
import { agoInWords, dayInWords, whenWhereOf } from './when.js';

/**
 * Matches by meaning that a search ranks at least: the closest ones above the threshold. Past a
 * few hundred, the rest only add to the work (a query's words match what the vectors miss).
 */
const MEANING_CANDIDATES = 200;

export class Recall {
  /** The sessions of this namespace's memories, built at the first ask for neighbours. */
  private readonly sessions: NeighbourIndex;

  constructor(private readonly ctx: MemoryContext) {
    this.sessions = new NeighbourIndex(ctx.engine);
  }

  async search(input: SearchMemoryInput): Promise<SearchMemoryOutput> {
    await this.ctx.sync();
    const now = this.ctx.clock();
    const s = this.ctx.settings;
    const pageSize = input.page_size ?? input.top_k ?? DEFAULT_TOP_K;
    const page = input.page ?? 1;
    const statuses: MemoryStatus[] = withSuperseded(
      input.status ?? ['active', 'promoted'],
      input.include_superseded,
    );
    const tagFilter = input.tags && input.tags.length > 0 ? new Set(input.tags.map(lower)) : null;
    const since = input.window_days !== undefined ? now - input.window_days * DAY : null;
    const minScore = input.min_score ?? null;
    const query = input.query?.trim() ?? '';
    const time = timeOf(query, now);
    if (input.time_filter && !time?.ranges.length) {
      throw new MemoryError(
        'time_filter is true but the query names no time (e.g. "in May 2023", "last week"): name one, or leave time_filter out',
        'time_filter',
      );
    }
    const names = queryNames(query);
    const score = (record: Dynamics) => this.ctx.score(record, now);

    // The meaning side brings its closest matches, enough for this page four times over.
    const limit = Math.max(MEANING_CANDIDATES, 4 * page * pageSize);
    const slots =
      input.include_review_candidates === false ? 0 : Math.floor(pageSize * s.reviewBlendRatio);
    const decayWeight = s.searchDecayWeight;
    // What this page can show: the primaries up to its end, past up to `slots` taken for review,
    // and the review candidates, drawn from the best by urgency past page 1's primaries.
    const tops: Top[] = [
      {
        // A time or a name in the query lifts the best matches, and their sessions the best
        // few: all of them are needed.
        count: Math.max(
          page * pageSize + slots,
          time || names ? LIFT_POOL : 0,
          query ? SESSION_POOL : 0,
        ),
        value: (relevance, score) => combinedRank(relevance, score, decayWeight),
        ceiling: combinedRank(1, 1, decayWeight),
      },
    ];
    if (slots > 0) {
      tops.push({
        count: pageSize,
        value: (relevance, score) => reviewPriority(score, s.dangerZone) * relevance,
        ceiling: 1,
        positive: true,
      });
    }
    const rows = await this.ctx.retriever.rank(
      withoutScaffolding(query),
      limit,
      {
        statuses,
        since,
        tags: tagFilter,
        // time_filter: a memory saved outside the time named scores below any minimum.
        score: input.time_filter && time ? scoreWithin(time.ranges, score) : score,
        minScore: input.time_filter ? (minScore ?? -Number.MAX_VALUE) : minScore,
      },
      tops,
    );

    const ranks = new Float64Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      ranks[i] = combinedRank(rows.relevance[i] as number, rows.score[i] as number, decayWeight);
    }
    if (time || names) {
      const maxLift = (time ? MAX_TIME_LIFT : 1) * (names ? MAX_NAME_LIFT : 1);
      // From the index's facts of a row; its record only when they cannot tell.
      liftBest(ranks, page * pageSize + slots, maxLift, (i) => {
        const facts = rows.facts(i);
        const byTime = !time
          ? 1
          : ((facts && timeLiftOf(facts, time)) ?? timeLift(rows.record(i), time));
        const byName = !names
          ? 1
          : ((facts && nameLiftOf(facts, names)) ?? nameLift(rows.record(i), names));
        return byTime * byName;
      });
    }

    if (query) {
      // A question that names a time is about that time, not about a session's other matches.
      const placeAt = (i: number): Placed => {
        const facts = rows.facts(i);
        return facts ? { key: facts.session, at: facts.createdAt } : placeOf(rows.record(i));
      };
      if (!time) liftBySession(ranks, placeAt);
      spreadOverSessions(ranks, placeAt);
    }

    // Review blending, decided on page 1 and kept out of the primary ranking on every page.
    let review: number[] = [];
    let firstPrimary: number[] = [];
    if (slots > 0) {
      firstPrimary = topN(ranks, pageSize - slots).map((r) => r.index);
      const inFirst = new Set(firstPrimary);
      const urgency = new Float64Array(rows.length);
      for (let i = 0; i < rows.length; i++) {
        const p = reviewPriority(rows.score[i] as number, s.dangerZone);
        urgency[i] = p > 0 && !inFirst.has(i) ? p * (rows.relevance[i] as number) : -1;
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

    const previewLength = input.preview_length ?? DEFAULT_PREVIEW;
    const shown = order.map((i) => rows.row(i));
    const neighbours = this.neighboursOf(
      shown.map((row) => row.record),
      input.neighbours,
    );
    const results = order.map((i, k): SearchHit => {
      const { record, score, relevance } = shown[k] as (typeof shown)[number];
      const around = neighbours.get(record.id);
      return {
        memory_id: record.id,
        content: preview(this.textOf(record), previewLength),
        tags: record.meta.tags,
        score: round(score),
        relevance: round(relevance),
        use_count: record.use_count,
        last_used: record.last_used,
        age_days: ageDays(record, now, 2),
        review_priority: round(reviewPriority(score, s.dangerZone)),
        review_candidate: reviewSet.has(i),
        ...(record.superseded_by !== undefined && record.status === 'superseded'
          ? { superseded_by: record.superseded_by }
          : {}),
        ...whenWhereOf(record, now, CONTEXT_PREVIEW),
        ...(around ? { neighbours: around } : {}),
      };
    });
    return { results, total: rows.matched, page };
  }

  /** Whole memories with their score, review priority and relations; opening is not a use. */
  async open({ memory_ids, neighbours: n }: OpenMemoriesInput): Promise<OpenMemoriesOutput> {
    await this.ctx.sync();
    const now = this.ctx.clock();
    const memories: OpenMemoriesOutput['memories'] = [];
    const missing: string[] = [];
    const found: MemoryRecord[] = [];
    for (const id of new Set(memory_ids)) {
      const record = this.ctx.engine.memories.get(id);
      if (record) found.push(record);
      else missing.push(id);
    }
    const neighbours = this.neighboursOf(found, n);
    for (const record of found) {
      const id = record.id;
      const around = neighbours.get(id);
      const score = this.ctx.score(record, now);
      // The stored record is not the answer: only the fields the contract names go out.
      memories.push({
        id: record.id,
        content: record.content,
        meta: {
          tags: record.meta.tags,
          source: record.meta.source,
          context: record.meta.context,
          extra: record.meta.extra,
        },
        entities: record.entities,
        created_at: record.created_at,
        date: dayInWords(record.created_at),
        ago: agoInWords(record.created_at, now),
        ...(around ? { neighbours: around } : {}),
        last_used: record.last_used,
        use_count: record.use_count,
        strength: record.strength,
        status: record.status,
        promoted_at: record.promoted_at,
        promoted_to: record.promoted_to,
        review_count: record.review_count,
        last_review_at: record.last_review_at,
        cross_domain_count: record.cross_domain_count,
        score: round(score),
        review_priority: round(reviewPriority(score, this.ctx.settings.dangerZone)),
        relations: this.ctx.engine.relationsOf(id).map((relation) => ({
          id: relation.id,
          from_memory_id: relation.from_memory_id,
          to_memory_id: relation.to_memory_id,
          relation_type: relation.relation_type,
          strength: relation.strength,
          created_at: relation.created_at,
          metadata: relation.metadata,
        })),
        ...supersessionOf(this.ctx.engine.memories, record),
        version: currentVersion(record),
        versions: versionsOf(record).map((v) => ({
          version: v.version,
          content: v.content,
          tags: v.tags,
          entities: v.entities,
          meta: v.meta,
          replaced_at: v.replaced_at,
        })),
      });
    }
    return { memories, not_found: missing };
  }

  /**
   * Memories and the vault's notes in one ranked list. Each side is scored by BM25 and divided
   * by its own best match (the two corpora have different word statistics, so raw scores do
   * not compare); a memory's relevance is then combined with its decay score as in search, and
   * each side is multiplied by its weight. A memory whose note also matches is listed once,
   * with its path.
   */
  async searchUnified(input: SearchUnifiedInput): Promise<SearchUnifiedOutput> {
    const query = input.query.trim();
    if (!query) {
      throw new MemoryError('query is empty: pass the words to look for', 'query');
    }
    const { vault } = this.ctx;
    await this.ctx.sync();
    if (vault) await this.ctx.readiness.wait('vault');
    const now = this.ctx.clock();
    const topK = input.top_k ?? DEFAULT_TOP_K;
    const stmWeight = input.stm_weight ?? DEFAULT_STM_WEIGHT;
    const ltmWeight = input.ltm_weight ?? DEFAULT_LTM_WEIGHT;
    // A weight of 0 leaves that side out.
    const ltm =
      vault && ltmWeight > 0
        ? visibleNotes(vault.notes.search(query), vault.visible)
        : { ids: [], scores: [], docs: [] };
    const ltmBest = maxOf(ltm.scores);

    // Memories: by their words and, with embeddings, by their meaning, as search_memory does.
    const stm =
      stmWeight > 0
        ? await this.ctx.retriever.rank(query, MEANING_CANDIDATES, {
            statuses: MEMORY_STATUSES.filter(
              (status) =>
                status !== 'archived' &&
                (status !== 'superseded' || input.include_superseded === true),
            ),
            score: (record) => this.ctx.score(record, now),
            minScore: null,
          })
        : null;

    // A memory's hit is made whole (its record read) only once it is among the results: a
    // common word matches most memories.
    type Hit = UnifiedHit & { row?: number };
    const hits: Hit[] = [];
    const byMemory = new Map<string, number>();
    const w = this.ctx.settings.searchDecayWeight;
    if (stm) {
      for (let i = 0; i < stm.length; i++) {
        const memoryId = stm.ids[i] as string;
        byMemory.set(memoryId, hits.length);
        const rank = combinedRank(stm.relevance[i] as number, stm.score[i] as number, w);
        hits.push({
          source: 'stm',
          memory_id: memoryId,
          title: '',
          content: '',
          score: stmWeight * rank,
          row: i,
        });
      }
    }
    ltm.docs.forEach((note, i) => {
      const score = (ltmWeight * (ltm.scores[i] as number)) / ltmBest;
      const known = note.memoryId !== undefined ? byMemory.get(note.memoryId) : undefined;
      const hit: UnifiedHit = {
        source: 'ltm',
        ...(note.memoryId !== undefined ? { memory_id: note.memoryId } : {}),
        path: note.path,
        title: note.title,
        content: preview(note.body, DEFAULT_PREVIEW),
        score,
      };
      if (known === undefined) {
        hits.push(hit);
        return;
      }
      // The memory and its note both matched: one result, the better of the two.
      const other = hits[known] as Hit;
      if (score > other.score) hits[known] = hit;
      else if (!other.path) other.path = note.path;
    });
    const ranks = Float64Array.from(hits, (h) => h.score);
    const best = topN(ranks, topK).map(({ index }) => {
      const { row, ...hit } = hits[index] as Hit;
      const record =
        row !== undefined && stm
          ? stm.record(row)
          : hit.memory_id !== undefined
            ? this.ctx.engine.memories.get(hit.memory_id)
            : undefined;
      return { row, hit, record };
    });
    const neighbours = this.neighboursOf(
      best.flatMap(({ record }) => (record ? [record] : [])),
      input.neighbours,
    );
    const results = best.map(({ row, hit, record }): UnifiedHit => {
      const dated = record ? this.unifiedWhen(record, now, neighbours.get(record.id)) : {};
      if (row === undefined || !stm || !record) {
        return { ...hit, score: round(hit.score), ...dated };
      }
      const note = vault?.sync.noteOf(record);
      const path =
        record.status === 'promoted' && record.promoted_to ? record.promoted_to : hit.path;
      return {
        source: hit.source,
        memory_id: hit.memory_id,
        ...(path ? { path } : {}),
        title: note?.title ?? noteTitle(record.content),
        content: preview(note?.body ?? record.content, DEFAULT_PREVIEW),
        score: round(hit.score),
        ...dated,
      };
    });
    return { results, total: hits.length };
  }

  /** A unified hit's when and where (its `source` says stm or ltm: these are meta_*). */
  private unifiedWhen(
    record: MemoryRecord,
    now: number,
    around: Neighbours | undefined,
  ): Partial<UnifiedHit> {
    const { date, ago, source, context } = whenWhereOf(record, now, CONTEXT_PREVIEW);
    return {
      date,
      ago,
      ...(source !== undefined ? { meta_source: source } : {}),
      ...(context !== undefined ? { meta_context: context } : {}),
      ...(around ? { neighbours: around } : {}),
    };
  }

  /** The neighbours of each record when `n` asks for some (none is an empty map). */
  private neighboursOf(records: readonly MemoryRecord[], n: number | undefined) {
    if (!n) return new Map<string, Neighbours>();
    return this.sessions.around(records, n);
  }

  /** A memory's text: its note's as a person left it once promoted, else its own. */
  private textOf(record: MemoryRecord): string {
    return this.ctx.vault?.sync.noteOf(record)?.body ?? record.content;
  }
}

const lower = (s: string) => s.toLowerCase();

/** The statuses asked for, with `superseded` when `include` says so. */
function withSuperseded(statuses: MemoryStatus[], include: boolean | undefined): MemoryStatus[] {
  return include === true && !statuses.includes('superseded')
    ? [...statuses, 'superseded']
    : statuses;
}

function maxOf(values: readonly number[]): number {
  let best = 0;
  for (const x of values) if (x > best) best = x;
  return best;
}

/** The hits of notes that `visible` keeps (another namespace's folder is not searched). */
function visibleNotes<T extends { ids: unknown[]; scores: number[]; docs: { path: string }[] }>(
  hits: T,
  visible: ((notePath: string) => boolean) | undefined,
): T {
  if (!visible) return hits;
  const keep = hits.docs.map((doc) => visible(doc.path));
  return {
    ...hits,
    ids: hits.ids.filter((_, i) => keep[i]),
    scores: hits.scores.filter((_, i) => keep[i]),
    docs: hits.docs.filter((_, i) => keep[i]),
  };
}
