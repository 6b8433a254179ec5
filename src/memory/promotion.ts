// Graduating durable memories into notes of the Obsidian vault.
import type {
  PromoteMemoryInput,
  PromoteMemoryOutput,
  PromotionCandidate,
} from '../contract/promote-memory.js';
import { promotionVerdict } from '../decay/index.js';
import type { MemoryRecord } from '../storage/records.js';
import type { WrittenNote } from '../vault/writer.js';
import type { MemoryContext } from './context.js';
import { MemoryError } from './errors.js';
import { ageDays, oneLine, round } from './present.js';

/** The memory as a promotion candidate, when it qualifies at `now`. */
export function promotionCandidate(
  ctx: MemoryContext,
  record: MemoryRecord,
  now: number,
): PromotionCandidate | undefined {
  const verdict = promotionVerdict(record, ctx.score(record, now), now, ctx.settings.promotion);
  return verdict.eligible ? describeCandidate(ctx, record, now, verdict.reason) : undefined;
}

function describeCandidate(
  ctx: MemoryContext,
  record: MemoryRecord,
  now: number,
  reason: string,
): PromotionCandidate {
  return {
    memory_id: record.id,
    score: round(ctx.score(record, now)),
    use_count: record.use_count,
    age_days: ageDays(record, now, 1),
    reason,
    preview: oneLine(record.content),
  };
}

/** How `promote` answers, by the edge that calls it. */
export interface PromoteOptions {
  /**
   * What `failed` says of a memory whose note could not be written while others were: by
   * default the error's message, for the person at the machine (the CLI), which may name the
   * note's file (a slug of the memory's words). An edge with a remote caller tells it as it
   * tells a thrown error (tools/register.ts callerMessage). A promotion that writes no note
   * throws the first error instead, for the edge to tell the same way.
   */
  failure?: (error: unknown) => string;
}

export class Promotion {
  constructor(private readonly ctx: MemoryContext) {}

  /** Active memories that qualify for the vault, best first. */
  async candidates(): Promise<PromotionCandidate[]> {
    await this.ctx.sync();
    return this.collectCandidates();
  }

  async promote(
    input: PromoteMemoryInput,
    { failure = (error) => (error as Error).message }: PromoteOptions = {},
  ): Promise<PromoteMemoryOutput> {
    const { ctx } = this;
    const dryRun = input.dry_run ?? false;
    if (!input.memory_id && !input.auto_detect) {
      throw new MemoryError(
        'promote_memory needs memory_id, or auto_detect: true to promote every candidate',
        'memory_id',
      );
    }
    await ctx.sync();
    const now = ctx.clock();
    let candidates: PromotionCandidate[];
    if (input.memory_id) {
      const record = ctx.require(input.memory_id);
      if (record.status === 'archived' || record.status === 'superseded') {
        throw new MemoryError(
          `memory_id "${record.id}" is ${record.status}: restore_memory it first, then promote it`,
          'memory_id',
        );
      }
      const candidate = promotionCandidate(ctx, record, now);
      if (!candidate && !input.force) {
        const score = ctx.score(record, now);
        const verdict = promotionVerdict(record, score, now, ctx.settings.promotion);
        throw new MemoryError(
          `memory_id "${record.id}" does not qualify for promotion yet (${verdict.reason}); use it more, or force it (force: true; from a terminal, mnemo promote ID --force)`,
          'memory_id',
        );
      }
      candidates = [candidate ?? describeCandidate(ctx, record, now, 'forced')];
    } else {
      candidates = this.collectCandidates();
    }
    const summary = { candidates_found: candidates.length, candidates, dry_run: dryRun };
    const pickedActive = new Set(
      candidates
        .filter((c) => ctx.engine.memories.get(c.memory_id)?.status === 'active')
        .map((c) => c.memory_id),
    );
    if (dryRun) return { ...summary, promoted_count: 0, promoted: [], failed: [] };
    const vault = ctx.vault;
    if (!vault) {
      throw new MemoryError(
        'this mnemo has no Obsidian vault to promote into (a replica on MNEMO_DATABASE_URL has one only when MNEMO_VAULT_DIR is set): promote on the replica that has it, or call promote_memory with dry_run: true to see the candidates',
        'dry_run',
      );
    }
    // A note of this memory anywhere in the vault is found and updated, not written twice.
    await ctx.readiness.wait('vault');
    let created: boolean;
    try {
      created = vault.writer.ensure();
    } catch (error) {
      throw new MemoryError(`${(error as Error).message}; the memories stay active`, 'memory_id');
    }
    const written: WrittenNote[] = [];
    // The notes are written under the store's lock: finding a memory's note and writing it when
    // there is none is one step for every process, so two promotions never write two notes of
    // one memory, and a memory archived or deleted meanwhile gets no note naming it.
    const { promoted, failures } = await ctx.engine.transact(() => {
      const at = ctx.clock();
      const promoted: PromoteMemoryOutput['promoted'] = [];
      const failures: { memory_id: string; error: unknown }[] = [];
      const updates: MemoryRecord[] = [];
      for (const candidate of candidates) {
        const record = ctx.engine.memories.get(candidate.memory_id);
        if (!record || record.status === 'archived' || record.status === 'superseded') continue;
        // Picked while active, promoted since by another process (a replica running the same
        // promotion): it has its note already, so it is not promoted twice. A memory asked for
        // by id while promoted is written again, as asked.
        if (record.status === 'promoted' && pickedActive.has(record.id)) continue;
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
          failures.push({ memory_id: record.id, error });
          continue;
        }
        written.push(note);
        updates.push({ ...next, promoted_to: note.path });
        promoted.push({ memory_id: record.id, path: note.path });
      }
      const [first] = failures;
      if (promoted.length === 0 && first) {
        throw new MemoryError(
          `${(first.error as Error).message}${failures.length > 1 ? ` (and ${failures.length - 1} more)` : ''}; the memories stay active`,
          'memory_id',
        );
      }
      return { result: { promoted, failures }, memories: updates };
    });
    for (const note of written) vault.notes.upsert(note.path, note.text);
    if (created) {
      ctx.logger.info({ vault: vault.writer.vault }, 'vault made from the template');
    }
    void vault.notes.vaultCreated();
    const failed = failures.map((f) => ({ memory_id: f.memory_id, error: failure(f.error) }));
    return { ...summary, promoted_count: promoted.length, promoted, failed };
  }

  private collectCandidates(): PromotionCandidate[] {
    const now = this.ctx.clock();
    const out: PromotionCandidate[] = [];
    // Judged from the index's columns; only a candidate's record is read.
    const ids: string[] = [];
    const { promotion } = this.ctx.settings;
    this.ctx.retriever.eachMemory((id, status, memory) => {
      if (status !== 'active') return;
      if (promotionVerdict(memory, this.ctx.score(memory, now), now, promotion).eligible) {
        ids.push(id);
      }
    });
    for (const id of ids) {
      const record = this.ctx.engine.memories.get(id);
      const candidate = record && promotionCandidate(this.ctx, record, now);
      if (candidate) out.push(candidate);
    }
    return out.sort((a, b) => b.score - a.score);
  }

  /** Promoted memories related to this one (either direction), for the note's links. */
  private promotedNeighbours(id: string): MemoryRecord[] {
    const out = new Map<string, MemoryRecord>();
    for (const relation of this.ctx.engine.relationsOf(id)) {
      const other =
        relation.from_memory_id === id ? relation.to_memory_id : relation.from_memory_id;
      const record = this.ctx.engine.memories.get(other);
      if (record?.status === 'promoted' && record.promoted_to) out.set(other, record);
    }
    return [...out.values()];
  }
}
