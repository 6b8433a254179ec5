// The memory at a glance: counts, the spread of scores, what is due for review, gc or the vault.
import type { MemoryStatsOutput } from '../contract/memory-stats.js';
import { promotionRule, reviewPriority, shouldForget } from '../decay/index.js';
import type { MemoryStatus } from '../storage/records.js';
import type { MemoryContext } from './context.js';
import { round } from './present.js';

export class Stats {
  constructor(private readonly ctx: MemoryContext) {}

  async summary(): Promise<MemoryStatsOutput> {
    const { ctx } = this;
    await ctx.sync();
    const now = ctx.clock();
    const s = ctx.settings;
    const byStatus: Record<MemoryStatus, number> = {
      active: 0,
      promoted: 0,
      archived: 0,
      superseded: 0,
    };
    // Typed, and sorted as numbers natively: a million scores in a few tens of ms.
    const scores = new Float64Array(ctx.engine.memories.size);
    let scored = 0;
    let danger = 0;
    let gc = 0;
    let promotable = 0;
    // From the index's columns: a memory's record is not read to be counted.
    ctx.retriever.eachMemory((_id, status, memory) => {
      byStatus[status]++;
      const score = ctx.score(memory, now);
      // Out of date or out of search: not among what the spread and the queues count.
      if (status === 'archived' || status === 'superseded') return;
      if (scored < scores.length) scores[scored++] = score;
      if (reviewPriority(score, ctx.settings.dangerZone) > 0) danger++;
      if (shouldForget(score, status, ctx.settings.forgetThreshold)) gc++;
      if (status === 'active' && promotionRule(memory, score, now, s.promotion) !== null) {
        promotable++;
      }
    });
    const sorted = scores.subarray(0, scored).sort();
    // Loaded here, not on every start: only this answer uses it.
    const { quantileSorted } = await import('simple-statistics');
    const q = (p: number) => round(quantileSorted(sorted as unknown as number[], p));
    return {
      total: ctx.engine.memories.size,
      by_status: byStatus,
      score_quantiles:
        scored > 0 ? { p10: q(0.1), p25: q(0.25), p50: q(0.5), p75: q(0.75), p90: q(0.9) } : null,
      danger_zone_count: danger,
      gc_candidates: gc,
      promotion_candidates: promotable,
      relations: ctx.engine.relations.size,
      store_bytes: await ctx.engine.sizes(),
      embeddings: ctx.semantic?.statusOf(ctx.engine.memories.keys()) ?? {
        state: 'off',
        model: null,
        vectors: 0,
        backlog: 0,
      },
    };
  }
}
