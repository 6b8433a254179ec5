import { redactUrl } from '../../storage/postgres/database.js';
import type { CommandContext } from '../command.js';
import { json } from '../format.js';
import { withMemory } from '../runtime.js';

/** `mnemo stats`: counts, score spread, review, gc and promotion candidates. */
export async function runStats({ config, flags, out }: CommandContext): Promise<number> {
  return withMemory(config, async ({ memory }) => {
    const s = await memory.stats.summary();
    if (flags.json) {
      out(json(s));
      return 0;
    }
    const q = s.score_quantiles;
    out(
      config.databaseUrl
        ? `database      ${redactUrl(config.databaseUrl)}`
        : `data dir      ${config.dataDir}`,
    );
    out(
      `memories      ${s.total} (${s.by_status.active} active, ${s.by_status.promoted} promoted, ${s.by_status.archived} archived)`,
    );
    out(`relations     ${s.relations}`);
    out(
      `scores        ${q ? `p10 ${q.p10}  p25 ${q.p25}  p50 ${q.p50}  p75 ${q.p75}  p90 ${q.p90}` : 'none'}`,
    );
    out(`due review    ${s.danger_zone_count}`);
    out(`gc would      forget ${s.gc_candidates}`);
    out(`promotable    ${s.promotion_candidates}`);
    out(
      `on disk       ${Object.entries(s.store_bytes)
        .map(([f, b]) => `${f} ${b} B`)
        .join(', ')}`,
    );
    return 0;
  });
}
