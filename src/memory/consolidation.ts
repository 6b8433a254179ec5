// Memories that say the same: found by their meaning, then merged or linked.
import { randomUUID } from 'node:crypto';
import type { ClusterMemoriesInput, ClusterMemoriesOutput } from '../contract/cluster-memories.js';
import type {
  ClusterConsolidation,
  ConsolidateMemoriesInput,
  ConsolidateMemoriesOutput,
} from '../contract/consolidate-memories.js';
import { type Cluster, clusterVectors, DEFAULT_CLUSTER_OPTIONS } from '../search/clustering.js';
import { dot } from '../search/vector-index.js';
import type { MemoryRecord, RelationRecord, RelationType } from '../storage/records.js';
import type { MemoryContext, Progress } from './context.js';
import { MemoryError } from './errors.js';
import { ChainExits } from './facts/chain-exits.js';
import { mergedRecord, mergeMemories } from './merge.js';

export class Consolidation {
  constructor(private readonly ctx: MemoryContext) {}

  /**
   * Groups active memories whose meanings are close (single linkage over cosine, strongest links
   * first, clusters capped). Needs embeddings.
   */
  async cluster(
    input: ClusterMemoriesInput,
    onProgress?: Progress,
  ): Promise<ClusterMemoriesOutput> {
    return { clusters: await this.clusters(input, onProgress) };
  }

  /**
   * Acts on clusters that cluster() returned: `preview` shows the merged memory; `apply` saves
   * it, links it to each member (consolidated_from) and archives the members; `link` relates each
   * member to the cluster's most central one and merges nothing. Nothing is deleted.
   */
  async consolidate(
    input: ConsolidateMemoriesInput,
    onProgress?: Progress,
  ): Promise<ConsolidateMemoriesOutput> {
    const mode = input.mode ?? 'preview';
    if (!input.cluster_id && !input.auto_detect) {
      throw new MemoryError(
        'consolidate_memories needs cluster_id (from cluster_memories), or auto_detect: true to take every auto-merge cluster',
        'cluster_id',
      );
    }
    const clusters = await this.clusters(input, onProgress);
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
      const members = cluster.memory_ids.map((id) => this.ctx.require(id));
      return { cluster, members, merged: mergeMemories(members) };
    });
    const base = (p: (typeof plans)[number]): ClusterConsolidation => ({
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
    const consolidations = await this.ctx.engine.transact(() => {
      const now = this.ctx.clock();
      const memories: MemoryRecord[] = [];
      const relations: RelationRecord[] = [];
      const out: ClusterConsolidation[] = [];
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
        const live = plan.members.map((m) => this.ctx.engine.memories.get(m.id));
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
          const merged = mergedRecord(randomUUID(), plan.merged, plan.cluster.memory_ids, now);
          memories.push(merged);
          result.memory_id = merged.id;
          // What a member superseded, the merged memory supersedes: it holds the member's fact.
          const exits = new ChainExits(this.ctx.engine.memories);
          for (const member of live as MemoryRecord[]) {
            relate(merged.id, member.id, 'consolidated_from');
            memories.push({ ...exits.leave(member, merged.id), status: 'archived' });
            result.archived_ids.push(member.id);
          }
          if (exits.handed.length > 0) merged.supersedes = exits.handed;
          memories.push(...exits.others);
        }
        out.push(result);
      }
      return { result: out, memories, relations };
    });
    return { mode, consolidations };
  }

  private async clusters(input: ClusterMemoriesInput, onProgress?: Progress): Promise<Cluster[]> {
    await this.ctx.sync();
    const semantic = this.ctx.semantic;
    await this.ctx.readiness.wait('embeddings');
    if (!semantic?.enabled) {
      throw new MemoryError(
        'clustering compares meanings and embeddings are off: set MNEMO_EMBEDDINGS to auto or static',
        'threshold',
      );
    }
    const entries = await semantic.entries((done, total) =>
      onProgress?.(done, total, 'embedding memories'),
    );
    const items = entries.filter((e) => this.ctx.engine.memories.get(e.id)?.status === 'active');
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

  /** The member closest to all the others (the most central), by the sum of cosines. */
  private medoid(ids: readonly string[]): string {
    const vectors = ids.map((id) => this.ctx.semantic?.vectorOf(id));
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
}
