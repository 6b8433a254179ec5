// Conflicts a person settles: two memories the fact judge saw contradict, not clearly as an
// update. Each is a `conflicts_with` relation (from the newer to the older), saved with the newer
// one: a pair, in the namespace's relations, on either engine, exported and imported as any
// relation. It waits in the review queue until settled; settling marks it (metadata.settled) and
// keeps one (the other superseded by it), both, or their merge (as consolidation merges).
import { randomUUID } from 'node:crypto';
import type { SettleConflictInput, SettleConflictOutput } from '../contract/settle-conflict.js';
import type { Mutation } from '../storage/engine.js';
import type { MemoryRecord, MemoryStatus, RelationRecord } from '../storage/records.js';
import type { MemoryContext } from './context.js';
import { MemoryError } from './errors.js';
import { ChainExits } from './facts/chain-exits.js';
import { type LinkedMemory, linked } from './facts/links.js';
import { mergedRecord, mergeMemories } from './merge.js';

/** An open conflict: the pair, newer first, and when it was seen. */
export interface OpenConflict {
  relation_id: string;
  created_at: number;
  first: LinkedMemory;
  second: LinkedMemory;
}

/** Statuses a side of an open conflict has: one superseded or archived since has settled it. */
const CURRENT: readonly MemoryStatus[] = ['active', 'promoted'];

const isOpen = (relation: RelationRecord) =>
  relation.relation_type === 'conflicts_with' && relation.metadata.settled === undefined;

export class Conflicts {
  constructor(private readonly ctx: MemoryContext) {}

  /** The open conflicts of this namespace, newest first, at most `limit`. */
  async open(limit: number): Promise<OpenConflict[]> {
    await this.ctx.sync();
    const { memories, relations } = this.ctx.engine;
    const out: OpenConflict[] = [];
    for (const relation of relations.values()) {
      if (!isOpen(relation)) continue;
      const first = memories.get(relation.from_memory_id);
      const second = memories.get(relation.to_memory_id);
      if (!first || !second || !CURRENT.includes(first.status) || !CURRENT.includes(second.status))
        continue;
      out.push({
        relation_id: relation.id,
        created_at: relation.created_at,
        first: linked(first),
        second: linked(second),
      });
    }
    out.sort((a, b) => b.created_at - a.created_at || a.relation_id.localeCompare(b.relation_id));
    return out.slice(0, limit);
  }

  /** Settles the open conflict between two memories as `keep` says. */
  async settle(input: SettleConflictInput): Promise<SettleConflictOutput> {
    const { memory_id: firstId, other_id: secondId, keep } = input;
    if (firstId === secondId) {
      throw new MemoryError(
        'memory_id and other_id are the same memory: name the two sides of a conflict (mnemo://review lists them)',
        'other_id',
      );
    }
    return this.ctx.engine.transact<SettleConflictOutput>(() => {
      const now = this.ctx.clock();
      const first = this.ctx.require(firstId, 'memory_id');
      const second = this.ctx.require(secondId, 'other_id');
      const relation = this.ctx.engine
        .relationsOf(firstId)
        .find(
          (r) =>
            isOpen(r) &&
            ((r.from_memory_id === firstId && r.to_memory_id === secondId) ||
              (r.from_memory_id === secondId && r.to_memory_id === firstId)),
        );
      if (!relation) {
        throw new MemoryError(
          `no open conflict between memory_id "${firstId}" and other_id "${secondId}": mnemo://review lists the open ones`,
          'other_id',
        );
      }
      const settled: RelationRecord = {
        ...relation,
        metadata: { ...relation.metadata, settled: keep, settled_at: now },
      };
      const base = { relation_id: relation.id, keep, superseded: [] as string[], archived: [] };
      if (keep === 'both') {
        return {
          result: { ...base, kept: [firstId, secondId], memory_id: null },
          relations: [settled],
        };
      }
      if (keep === 'merge') return this.merge(first, second, settled, base, input.content, now);
      const [winner, loser] = keep === 'first' ? [first, second] : [second, first];
      const supersedes = [...new Set([...(winner.supersedes ?? []), loser.id])];
      return {
        result: { ...base, kept: [winner.id], superseded: [loser.id], memory_id: null },
        memories: [
          { ...winner, supersedes },
          { ...loser, status: 'superseded', superseded_by: winner.id },
        ],
        relations: [settled],
      };
    });
  }

  /** Both into one new memory, as consolidate_memories merges; the two archived. */
  private merge(
    first: MemoryRecord,
    second: MemoryRecord,
    settled: RelationRecord,
    base: Pick<SettleConflictOutput, 'relation_id' | 'keep' | 'superseded'>,
    content: string | undefined,
    now: number,
  ): Mutation<SettleConflictOutput> {
    const plan = mergeMemories([first, second]);
    if (content !== undefined) plan.content = content;
    const members = [first.id, second.id];
    const merged = mergedRecord(randomUUID(), plan, members, now);
    const relations: RelationRecord[] = members.map((member) => ({
      id: randomUUID(),
      from_memory_id: merged.id,
      to_memory_id: member,
      relation_type: 'consolidated_from',
      strength: 1,
      created_at: now,
      metadata: { conflict: settled.id },
    }));
    // What either superseded, the merged memory supersedes (as consolidation does).
    const exits = new ChainExits(this.ctx.engine.memories);
    const archived = [first, second].map((m) => ({
      ...exits.leave(m, merged.id),
      status: 'archived' as const,
    }));
    if (exits.handed.length > 0) merged.supersedes = exits.handed;
    return {
      result: { ...base, kept: [merged.id], archived: members, memory_id: merged.id },
      memories: [merged, ...archived, ...exits.others],
      relations: [settled, ...relations],
    };
  }
}
