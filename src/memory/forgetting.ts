// Letting memories go, recoverably: gc of what faded, archive, delete, and restore of any of them.
import type { ArchiveMemoryInput, ArchiveMemoryOutput } from '../contract/archive-memory.js';
import type { DeleteMemoryInput, DeleteMemoryOutput } from '../contract/delete-memory.js';
import type { GcCandidate, GcInput, GcOutput } from '../contract/gc.js';
import type { RestoreMemoryInput, RestoreMemoryOutput } from '../contract/restore-memory.js';
import { reviewPriority, shouldForget } from '../decay/index.js';
import { normalizeContent } from '../search/lexical-index.js';
import type { Mutation } from '../storage/engine.js';
import type { MemoryRecord } from '../storage/records.js';
import type { MemoryContext } from './context.js';
import { MemoryError } from './errors.js';
import { ChainExits } from './facts/chain-exits.js';
import { type LinkedMemory, unlinkSupersession } from './facts/links.js';
import { ageDays, oneLine, round } from './present.js';
import { mergedFrom, mergeRestored } from './restore.js';

export class Forgetting {
  constructor(private readonly ctx: MemoryContext) {}

  /** Active memories whose score fell under the forget threshold, weakest first. */
  async gcCandidates(limit?: number, archive = false): Promise<GcCandidate[]> {
    await this.ctx.sync();
    return this.collectGcCandidates(limit, archive);
  }

  async gc(input: GcInput): Promise<GcOutput> {
    const dryRun = input.dry_run ?? true;
    const archive = input.archive_instead ?? false;
    const summarize = (candidates: GcCandidate[]): GcOutput => ({
      dry_run: dryRun,
      removed_count: archive ? 0 : candidates.length,
      archived_count: archive ? candidates.length : 0,
      total_affected: candidates.length,
      memory_ids: candidates.map((c) => c.memory_id),
      candidates,
    });
    if (dryRun) {
      // What the run would undo, worked out as it would be and not written.
      const candidates = await this.gcCandidates(input.limit, archive);
      const exits = new ChainExits(this.ctx.engine.memories);
      for (const c of candidates) exits.leave(this.ctx.require(c.memory_id));
      return withUndone(summarize(candidates), exits.reinstated);
    }
    return this.ctx.engine.transact(() => {
      const candidates = this.collectGcCandidates(input.limit, archive);
      const exits = new ChainExits(this.ctx.engine.memories);
      const records = candidates.map((c) => exits.leave(this.ctx.require(c.memory_id)));
      const result = withUndone(summarize(candidates), exits.reinstated);
      if (archive) {
        const archived = records.map((r) => ({ ...r, status: 'archived' as const }));
        return { result, memories: [...archived, ...exits.others] };
      }
      return {
        result,
        forgotten: records,
        deletes: records.map((r) => r.id),
        memories: exits.others,
      };
    });
  }

  async archive({ memory_id }: ArchiveMemoryInput): Promise<ArchiveMemoryOutput> {
    return this.ctx.engine.transact(() => {
      const record = this.ctx.require(memory_id);
      const status = 'archived';
      if (record.status === status) return { result: { memory_id, status } };
      // Out of search, it supersedes nothing any more: what it superseded is current again.
      const exits = new ChainExits(this.ctx.engine.memories);
      const leaving = exits.leave(record);
      return {
        result: withUndone({ memory_id, status }, exits.reinstated),
        memories: [{ ...leaving, status }, ...exits.others],
      };
    });
  }

  /** Deletes recoverably: the record goes to forgotten.jsonl first. */
  async delete({ memory_id }: DeleteMemoryInput): Promise<DeleteMemoryOutput> {
    return this.ctx.engine.transact(() => {
      const record = this.ctx.require(memory_id);
      const exits = new ChainExits(this.ctx.engine.memories);
      const leaving = exits.leave(record);
      return {
        result: withUndone({ memory_id, status: 'deleted' }, exits.reinstated),
        forgotten: [leaving],
        deletes: [record.id],
        memories: exits.others,
      };
    });
  }

  /**
   * Brings back an archived memory, or one that gc or delete_memory forgot. A promoted one comes
   * back promoted when its note is still in the vault (at the note's path now), else active with
   * promoted_to cleared. When a live memory holds the same content (saved again meanwhile), the
   * restored one is merged into it rather than made a second copy (restore.ts).
   */
  async restore({ memory_id: memoryId }: RestoreMemoryInput): Promise<RestoreMemoryOutput> {
    const { engine, vault } = this.ctx;
    if (vault) {
      await this.ctx.sync();
      await this.ctx.readiness.wait('vault');
    }
    // Read before the transaction (a query, for a database): a forgotten copy is never changed,
    // only added to, and the plan checks again whether the memory is live.
    const forgotten = engine.memories.has(memoryId)
      ? undefined
      : await engine.findForgotten(memoryId);
    const result = await engine.transact<RestoreMemoryOutput>(() => {
      const live = engine.memories.get(memoryId);
      if (live?.status === 'superseded') return this.unsupersede(live);
      if (live && live.status !== 'archived') {
        return { result: { memory_id: memoryId, status: live.status } };
      }
      const source = live ?? forgotten;
      if (!source) {
        throw new MemoryError(
          `memory_id "${memoryId}" is neither a live memory nor a forgotten one: check the id (mnemo gc lists what it forgot)`,
          'memory_id',
        );
      }
      const now = this.ctx.clock();
      const twin = this.liveTwin(source);
      // A member of a consolidation brought back undoes it for that member: the merged memory
      // holds its uses already, so it comes back as itself rather than merged into it again.
      if (twin && !this.consolidatedInto(twin.id, memoryId)) {
        const merged = { memory_id: memoryId, status: 'merged', merged_into: twin.id };
        if (mergedFrom(twin).includes(memoryId)) return { result: merged };
        const next = mergeRestored(twin, source, now);
        next.review_priority = reviewPriority(
          this.ctx.score(next, now),
          this.ctx.settings.dangerZone,
        );
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
      // Superseded, then archived or forgotten: it comes back current, so the link goes too.
      const unlinked =
        restored.superseded_by !== undefined ? unlinkSupersession(this.ctx, restored) : undefined;
      return {
        result: { memory_id: memoryId, status: restored.status },
        memories: [unlinked?.record ?? restored, ...(unlinked?.others ?? [])],
      };
    });
    // What it is searched by: its note's text again, or its own.
    if (vault && result.status !== 'merged') await vault.sync.recheck(memoryId);
    return result;
  }

  /** A superseded memory made current again: the supersession undone, both sides. */
  private unsupersede(record: MemoryRecord): Mutation<RestoreMemoryOutput> {
    const unlinked = unlinkSupersession(this.ctx, record);
    if (!unlinked) return { result: { memory_id: record.id, status: record.status } };
    return {
      result: {
        memory_id: record.id,
        status: unlinked.record.status,
        superseded_undone: unlinked.reinstated,
      },
      memories: [unlinked.record, ...unlinked.others],
    };
  }

  private collectGcCandidates(limit: number | undefined, archive: boolean): GcCandidate[] {
    const now = this.ctx.clock();
    const out: GcCandidate[] = [];
    // Scored from the index's columns; only a candidate's record is read.
    const ids: string[] = [];
    this.ctx.retriever.eachMemory((id, status, memory) => {
      if (shouldForget(this.ctx.score(memory, now), status, this.ctx.settings.forgetThreshold)) {
        ids.push(id);
      }
    });
    for (const id of ids) {
      const record = this.ctx.engine.memories.get(id);
      if (!record) continue;
      const score = this.ctx.score(record, now);
      out.push({
        memory_id: record.id,
        score: round(score, 6),
        age_days: ageDays(record, now, 1),
        last_used: record.last_used,
        use_count: record.use_count,
        preview: oneLine(record.content),
        action: archive ? 'archive' : 'forget',
      });
    }
    out.sort((a, b) => a.score - b.score || a.last_used - b.last_used);
    return limit !== undefined ? out.slice(0, limit) : out;
  }

  /** A live (not archived) memory, other than this one, with the same normalized content. */
  /** Whether memory `from` was made by consolidating `member` (a consolidated_from link). */
  private consolidatedInto(from: string, member: string): boolean {
    return this.ctx.engine
      .relationsOf(member)
      .some(
        (r) =>
          r.relation_type === 'consolidated_from' &&
          r.from_memory_id === from &&
          r.to_memory_id === member,
      );
  }

  private liveTwin(record: MemoryRecord): MemoryRecord | undefined {
    const content = normalizeContent(record.content);
    for (const other of this.ctx.engine.memories.values()) {
      if (other.id === record.id || other.status === 'archived') continue;
      if (normalizeContent(other.content) === content) return other;
    }
    return undefined;
  }
}

/** `result` naming the memories current again, when there are any (else as it was). */
function withUndone<T extends object>(
  result: T,
  undone: LinkedMemory[],
): T & { superseded_undone?: LinkedMemory[] } {
  return undone.length > 0 ? { ...result, superseded_undone: undone } : result;
}
