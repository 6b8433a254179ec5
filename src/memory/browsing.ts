// The memory as a person looks through it (the web page): every memory sorted by a column, and
// the spread of scores, saves and last uses. Nothing here writes.
import { DAY } from '../decay/index.js';
import { topN } from '../search/ranking.js';
import type { MemoryRecord, MemoryStatus } from '../storage/records.js';
import type { MemoryContext } from './context.js';
import { round } from './present.js';

export const BROWSE_SORTS = ['score', 'last_used', 'use_count'] as const;
export type BrowseSort = (typeof BROWSE_SORTS)[number];

export interface BrowseInput {
  statuses: readonly MemoryStatus[];
  /** Only memories with one of these tags (case aside), when given: their records are read. */
  tags?: readonly string[];
  sort: BrowseSort;
  offset: number;
  limit: number;
}

export interface BrowseRow {
  record: MemoryRecord;
  score: number;
}

export interface Distribution {
  /** Counts of non-archived memories by score, in `bins` of equal width from 0 to `top`. */
  scores: { top: number; counts: number[] };
  /** Per UTC day of the last `days` (oldest first, day starts in epoch seconds). */
  days: number[];
  saves: number[];
  /** The record keeps a memory's last use only, so a day counts the memories last used then. */
  lastUses: number[];
}

const HISTOGRAM_BINS = 20;

export class Browsing {
  constructor(private readonly ctx: MemoryContext) {}

  /**
   * One page of the memories of `statuses`, highest `sort` first (ties in store order), and how
   * many there are. Scored from the index's columns; only the page's records are read, and
   * with a tag filter every candidate's.
   */
  async list(input: BrowseInput): Promise<{ total: number; rows: BrowseRow[] }> {
    const { ctx } = this;
    await ctx.sync();
    const now = ctx.clock();
    const statuses = new Set(input.statuses);
    const tags = input.tags?.length ? new Set(input.tags.map((t) => t.toLowerCase())) : null;
    const ids: string[] = [];
    const keys: number[] = [];
    ctx.retriever.eachMemory((id, status, memory) => {
      if (!statuses.has(status)) return;
      if (tags) {
        const record = ctx.engine.memories.get(id);
        if (!record?.meta.tags.some((t) => tags.has(t.toLowerCase()))) return;
      }
      ids.push(id);
      keys.push(
        input.sort === 'score'
          ? ctx.score(memory, now)
          : input.sort === 'last_used'
            ? memory.last_used
            : memory.use_count,
      );
    });
    const rows: BrowseRow[] = [];
    const best = topN(Float64Array.from(keys), input.offset + input.limit).slice(input.offset);
    for (const { index } of best) {
      const record = ctx.engine.memories.get(ids[index] as string);
      if (record) rows.push({ record, score: round(ctx.score(record, now)) });
    }
    return { total: ids.length, rows };
  }

  /** Scores of the live memories in a histogram; saves and last uses a day over `days` days. */
  async distribution(days: number): Promise<Distribution> {
    const { ctx } = this;
    await ctx.sync();
    const now = ctx.clock();
    const scores: number[] = [];
    const firstDay = Math.floor(now / DAY) * DAY - (days - 1) * DAY;
    const saves = new Array<number>(days).fill(0);
    const lastUses = new Array<number>(days).fill(0);
    const dayOf = (t: number) => Math.floor((t - firstDay) / DAY);
    ctx.retriever.eachMemory((_id, status, memory) => {
      const saved = dayOf(memory.created_at);
      if (saved >= 0 && saved < days) saves[saved] = (saves[saved] as number) + 1;
      const used = dayOf(memory.last_used);
      if (memory.use_count > 0 && used >= 0 && used < days) {
        lastUses[used] = (lastUses[used] as number) + 1;
      }
      if (status !== 'archived' && status !== 'superseded') scores.push(ctx.score(memory, now));
    });
    // The top is a round number over the best score, so the bins read well: 0.05 wide for 1.
    let max = 0;
    for (const s of scores) if (s > max) max = s;
    const top = Math.max(1, Math.ceil(max * 2) / 2);
    const counts = new Array<number>(HISTOGRAM_BINS).fill(0);
    for (const s of scores) {
      const bin = Math.min(HISTOGRAM_BINS - 1, Math.floor((s / top) * HISTOGRAM_BINS));
      counts[bin] = (counts[bin] as number) + 1;
    }
    return {
      scores: { top, counts },
      days: Array.from({ length: days }, (_, i) => firstDay + i * DAY),
      saves,
      lastUses,
    };
  }
}
