import { applyFlag, type CommandContext, UsageError } from '../command.js';
import { clip, json, table } from '../format.js';
import { withMemory } from '../runtime.js';

/** `mnemo promote [ID]`: the memories durable enough for the vault; writes their notes on --apply. */
export async function runPromote({ config, args, flags, out }: CommandContext): Promise<number> {
  const apply = applyFlag(flags);
  const [id] = args;
  if (flags.force && !id) {
    throw new UsageError(
      '--force promotes one memory: give its ID, e.g. mnemo promote 7f3c… --force',
    );
  }
  return withMemory(config, async ({ memory }) => {
    const result = await memory.promotion.promote({
      ...(id ? { memory_id: id } : { auto_detect: true }),
      dry_run: !apply,
      force: flags.force === true,
    });
    if (flags.json) {
      out(json(result));
      return 0;
    }
    const paths = new Map(result.promoted.map((p) => [p.memory_id, p.path]));
    if (result.candidates.length > 0) {
      out(
        table(
          ['ID', 'SCORE', 'USES', 'AGE', apply ? 'NOTE' : 'WHY', 'PREVIEW'],
          result.candidates.map((c) => [
            c.memory_id,
            c.score.toFixed(3),
            String(c.use_count),
            `${c.age_days}d`,
            apply ? (paths.get(c.memory_id) ?? 'failed') : c.reason,
            clip(c.preview, 40),
          ]),
        ),
      );
    }
    for (const f of result.failed) out(`${f.memory_id}: ${f.error}`);
    out(
      apply
        ? `Promoted ${result.promoted_count} of ${result.candidates_found} to ${config.vaultDir}.`
        : `${result.candidates_found} ${result.candidates_found === 1 ? 'memory qualifies' : 'memories qualify'} for the vault.` +
            (result.candidates_found > 0
              ? ` Run \`mnemo promote${id ? ` ${id}` : ''} --apply${flags.force ? ' --force' : ''}\` to write ${result.candidates_found === 1 ? 'its note' : 'their notes'}.`
              : ''),
    );
    return 0;
  });
}
