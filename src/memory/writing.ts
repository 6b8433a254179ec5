// Saving memories, using them, relating them.
import { randomUUID } from 'node:crypto';
import type { CreateRelationInput, CreateRelationOutput } from '../contract/create-relation.js';
import type { DeleteRelationInput, DeleteRelationOutput } from '../contract/delete-relation.js';
import type {
  ObserveMemoryUsageInput,
  ObserveMemoryUsageOutput,
} from '../contract/observe-memory-usage.js';
import { contentProblem, jsonObjectProblem, storableProblem } from '../contract/rules.js';
import type { SaveMemoryInput, SaveMemoryOutput } from '../contract/save-memory.js';
import type { TouchMemoryInput, TouchMemoryOutput } from '../contract/touch-memory.js';
import { clampStrength, isCrossDomain, reinforce, reviewPriority } from '../decay/index.js';
import type { VectorHits } from '../search/vector-index.js';
import { type MemoryRecord, newMemoryRecord, type RelationRecord } from '../storage/records.js';
import type { MemoryContext } from './context.js';
import { MemoryError } from './errors.js';
import { factCandidates, factLinks, type LinkedMemory } from './facts/links.js';
import { preview, round } from './present.js';

/** Plans that read the records and answer what to write: nothing else (see TransactOptions). */
const PURE = { pure: true } as const;

/** At most this many near-duplicates are listed on save. */
const SIMILAR_SHOWN = 5;

export class Writing {
  constructor(private readonly ctx: MemoryContext) {}

  async save(input: SaveMemoryInput): Promise<SaveMemoryOutput> {
    const { engine, retriever, settings } = this.ctx;
    const blank = contentProblem(input.content);
    if (blank !== undefined) throw new MemoryError(blank, 'content');
    const badMeta = jsonObjectProblem(input.meta, 'meta');
    if (badMeta !== undefined) throw new MemoryError(badMeta, 'meta');
    const unstorable = storableProblem(input);
    if (unstorable !== undefined) throw new MemoryError(`the memory ${unstorable}`, 'content');
    // What it is compared with (near-duplicates, the facts it may change) is what the store
    // holds once loaded: a save at start, or in a namespace a replica had let go of, found none.
    // (Not a catch-up with other replicas: the write itself catches up under the lock.)
    await engine.held();
    // The meaning of the new content, before it is written: what it is close to is listed, and
    // its vector is kept, not computed again.
    const vector = await retriever.embed(input.content);
    // What it is close to, asked now: the graph searches on its thread while the write is made.
    // A hint: a failure there lists nothing rather than say a save that was made failed.
    const near = vector
      ? retriever.nearDuplicates(vector, SIMILAR_SHOWN + 1).catch((error: unknown) => {
          this.ctx.logger.warn({ err: (error as Error).message }, 'near-duplicates: none listed');
          return { ids: [], sims: [] };
        })
      : undefined;
    // The facts it may change, judged before the lock (the judge is pure); a repeat reinforces,
    // and a memory that states no fact the judge reads changes none (no candidates looked up).
    const mayJudge = this.ctx.judgeFacts.mayJudge?.(input.content) ?? true;
    const candidates =
      !mayJudge || this.isRepeat(input.content)
        ? []
        : await factCandidates(this.ctx, input.content, vector);
    const verdicts =
      candidates.length === 0
        ? []
        : this.ctx.judgeFacts({ content: input.content, createdAt: this.ctx.clock() }, candidates);
    type Saved = {
      memory_id: string;
      deduplicated: boolean;
      supersedes: LinkedMemory[];
      conflicts: LinkedMemory[];
    };
    const saved = await engine.transact<Saved>(() => {
      const now = this.ctx.clock();
      const duplicateId = retriever.duplicateOf(input.content);
      const duplicate = duplicateId ? engine.memories.get(duplicateId) : undefined;
      if (duplicate && duplicate.status !== 'archived') {
        // Saving it again is a use; what the new save adds is kept, nothing it says is lost.
        const reinforced = reinforce(
          duplicate,
          now,
          { kind: 'touch' },
          settings.decay,
          settings.dangerZone,
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
        return {
          result: { memory_id: duplicate.id, deduplicated: true, supersedes: [], conflicts: [] },
          memories: [updated],
        };
      }
      const id = randomUUID();
      const links = factLinks(this.ctx, id, now, candidates, verdicts);
      const record = newMemoryRecord(id, input.content, now, {
        meta: {
          tags: dedupe(input.tags ?? []),
          source: input.source ?? null,
          context: input.context ?? null,
          extra: input.meta ?? {},
        },
        entities: dedupe(input.entities ?? []),
        strength: clampStrength(input.strength ?? 1),
      });
      if (links.superseded.length > 0) record.supersedes = links.superseded.map((m) => m.id);
      return {
        result: {
          memory_id: record.id,
          deduplicated: false,
          supersedes: links.supersedes,
          conflicts: links.conflictsWith,
        },
        memories: [record, ...links.superseded],
        ...(links.conflicts.length > 0 ? { relations: links.conflicts } : {}),
      };
    }, PURE);
    if (!vector || !near) return { ...saved, similar_to: [] };
    if (!saved.deduplicated) retriever.adopt(saved.memory_id, input.content, vector);
    return { ...saved, similar_to: this.similarTo(await near, saved.memory_id) };
  }

  /** Of a save's near-duplicates, the live ones but the saved memory, as they are after it. */
  private similarTo(hits: VectorHits, savedId: string): SaveMemoryOutput['similar_to'] {
    const similar: { record: MemoryRecord; similarity: number }[] = [];
    hits.ids.forEach((id, i) => {
      const record = this.ctx.engine.memories.get(id);
      if (!record || id === savedId) return;
      if (record.status === 'archived' || record.status === 'superseded') return;
      similar.push({ record, similarity: hits.sims[i] as number });
    });
    similar.sort((a, b) => b.similarity - a.similarity);
    return similar.slice(0, SIMILAR_SHOWN).map(({ record, similarity }) => ({
      memory_id: record.id,
      similarity: round(similarity),
      preview: preview(record.content, 120),
    }));
  }

  /** Whether saving `content` reinforces a memory that holds it already (no fact changes). */
  private isRepeat(content: string): boolean {
    const id = this.ctx.retriever.duplicateOf(content);
    return id !== undefined && this.ctx.engine.memories.get(id)?.status !== 'archived';
  }

  async touch({ memory_id, boost_strength }: TouchMemoryInput): Promise<TouchMemoryOutput> {
    const { settings } = this.ctx;
    return this.ctx.engine.transact(() => {
      const now = this.ctx.clock();
      const record = this.ctx.require(memory_id);
      const next: MemoryRecord = {
        ...record,
        ...reinforce(
          record,
          now,
          { kind: 'touch', boostStrength: boost_strength ?? false },
          settings.decay,
          settings.dangerZone,
        ),
      };
      return {
        result: {
          memory_id: record.id,
          old_score: round(this.ctx.score(record, now)),
          new_score: round(this.ctx.score(next, now)),
          use_count: next.use_count,
          strength: next.strength,
        },
        memories: [next],
      };
    }, PURE);
  }

  async observe({
    memory_ids,
    context_tags = [],
  }: ObserveMemoryUsageInput): Promise<ObserveMemoryUsageOutput> {
    const { settings } = this.ctx;
    const plan = () => {
      const now = this.ctx.clock();
      const results: ObserveMemoryUsageOutput['results'] = [];
      const notFoundIds: string[] = [];
      const updates: MemoryRecord[] = [];
      for (const id of dedupe(memory_ids)) {
        const record = this.ctx.engine.memories.get(id);
        if (!record) {
          notFoundIds.push(id);
          continue;
        }
        const crossDomain = isCrossDomain(record.meta.tags, context_tags);
        const next: MemoryRecord = settings.autoReinforce
          ? {
              ...record,
              ...reinforce(
                record,
                now,
                { kind: 'observe', crossDomain },
                settings.decay,
                settings.dangerZone,
              ),
            }
          : record;
        if (settings.autoReinforce) updates.push(next);
        results.push({
          memory_id: id,
          cross_domain: crossDomain,
          use_count: next.use_count,
          strength: next.strength,
          review_priority: round(reviewPriority(this.ctx.score(next, now), settings.dangerZone)),
        });
      }
      return {
        result: { results, not_found: notFoundIds, reinforced: settings.autoReinforce },
        memories: updates,
      };
    };
    if (!settings.autoReinforce) {
      await this.ctx.sync();
      return plan().result;
    }
    return this.ctx.engine.transact(plan, PURE);
  }

  async createRelation(input: CreateRelationInput): Promise<CreateRelationOutput> {
    const unstorable = storableProblem(input.metadata);
    const problem =
      jsonObjectProblem(input.metadata, 'metadata') ?? (unstorable && `metadata ${unstorable}`);
    if (problem !== undefined) throw new MemoryError(problem, 'metadata');
    return this.ctx.engine.transact(() => {
      this.ctx.require(input.from_memory_id, 'from_memory_id');
      this.ctx.require(input.to_memory_id, 'to_memory_id');
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
        created_at: this.ctx.clock(),
        metadata: input.metadata ?? {},
      };
      return { result: { relation_id: relation.id }, relations: [relation] };
    });
  }

  /** Deletes one relation of this namespace; the memories it joined stay. */
  async deleteRelation({ relation_id }: DeleteRelationInput): Promise<DeleteRelationOutput> {
    return this.ctx.engine.transact(() => {
      if (!this.ctx.engine.relations.has(relation_id)) {
        throw new MemoryError(
          `relation_id "${relation_id}" is not a known relation: find ids with open_memories or read_graph`,
          'relation_id',
        );
      }
      return {
        result: { relation_id, deleted: true as const },
        relationDeletes: [relation_id],
      };
    });
  }
}

function dedupe(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return dedupe([...a, ...b]);
}
