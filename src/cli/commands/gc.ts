import type { GcCandidate } from '../../contract/gc.js';
import { applyFlag, type CommandContext, positiveInt } from '../command.js';
import { clip, json, table, utcMinute } from '../format.js';
import { withMemory } from '../runtime.js';

/** `mnemo gc`: what has faded below the forget threshold; forgets (or archives) it on --apply. */
export async function runGc({ config, flags, out }: CommandContext): Promise<number> {
  const apply = applyFlag(flags);
  const archive = flags.archive === true;
  const limit = positiveInt(flags.limit, '--limit');
  return withMemory(config, async ({ memory, store }) => {
    const result = await memory.forgetting.gc({ dry_run: !apply, archive_instead: archive, limit });
    if (flags.json) {
      out(json(result));
      return 0;
    }
    const at = utcMinute(memory.now());
    if (result.candidates.length > 0) out(gcTable(result.candidates, apply));
    const total = store.memories.size + (apply && !archive ? result.total_affected : 0);
    const verb = apply
      ? archive
        ? 'Archived'
        : 'Forgot'
      : archive
        ? 'Would archive'
        : 'Would forget';
    out(
      `${verb} ${result.total_affected} of ${total} memories (score below ${config.forgetThreshold} at ${at} UTC).` +
        (apply
          ? archive
            ? ' `mnemo restore ID` makes one active again.'
            : ' They are kept among the forgotten (forgotten.jsonl, or mnemo_forgotten in PostgreSQL): `mnemo restore ID` brings one back.'
          : result.total_affected > 0
            ? ` Run \`mnemo gc --apply${archive ? ' --archive' : ''}\` to do it.`
            : ''),
    );
    return 0;
  });
}

function gcTable(rows: GcCandidate[], applied: boolean): string {
  const header = ['ID', 'AGE', 'SCORE', 'PREVIEW', applied ? 'DONE' : 'WOULD'];
  const body = rows.map((r) => [
    r.memory_id,
    `${r.age_days}d`,
    r.score.toFixed(4),
    clip(r.preview, 48),
    applied ? (r.action === 'archive' ? 'archived' : 'forgotten') : r.action,
  ]);
  return table(header, body);
}
