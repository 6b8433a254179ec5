// The memory at a glance: counts, the spread of scores, what is due for review, gc or the vault.
import { quantileSorted } from 'simple-statistics';
import type { MemoryStatsOutput } from '../contract/memory-stats.js';
import { reviewPriority, shouldForget } from '../decay/index.js';
import type { MemoryStatus } from '../storage/records.js';
import type { MemoryContext } from './context.js';
import { round } from './present.js';
import { promotionCandidate } from './promotion.js';

export class Stats {
  constructor(private readonly ctx: MemoryContext) {}

  async summary(): Promise<MemoryStatsOutput> {
    const { ctx } = this;
    await ctx.sync();
    const now = ctx.clock();
    const byStatus: Record<MemoryStatus, number> = { active: 0, promoted: 0, archived: 0 };
    const scores: number[] = [];
    let danger = 0;
    let gc = 0;
    let promotable = 0;
    for (const record of ctx.engine.memories.values()) {
      byStatus[record.status]++;
      const score = ctx.score(record, now);
      if (record.status === 'archived') continue;
      scores.push(score);
      if (reviewPriority(score, ctx.settings.dangerZone) > 0) danger++;
      if (shouldForget(score, record.status, ctx.settings.forgetThreshold)) gc++;
      if (record.status === 'active' && promotionCandidate(ctx, record, now)) promotable++;
    }
    scores.sort((a, b) => a - b);
    const q = (p: number) => round(quantileSorted(scores, p));
    return {
      total: ctx.engine.memories.size,
      by_status: byStatus,
      score_quantiles:
        scores.length > 0
          ? { p10: q(0.1), p25: q(0.25), p50: q(0.5), p75: q(0.75), p90: q(0.9) }
          : null,
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
