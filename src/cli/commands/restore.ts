import { type CommandContext, UsageError } from '../command.js';
import { json } from '../format.js';
import { withMemory } from '../runtime.js';

/** `mnemo restore ID`: makes a forgotten or archived memory active again. */
export async function runRestore({ config, args, flags, out }: CommandContext): Promise<number> {
  const [id] = args;
  if (!id) throw new UsageError('restore needs the ID of a memory, e.g. mnemo restore 7f3c…');
  return withMemory(config, async ({ memory }) => {
    const done = await memory.forgetting.restore({ memory_id: id });
    const said = done.merged_into
      ? `${done.memory_id} has the same content as the live memory ${done.merged_into}: merged into it.`
      : `${done.memory_id} is ${done.status}.`;
    out(flags.json ? json(done) : said);
    return 0;
  });
}
