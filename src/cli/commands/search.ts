import { searchMemoryInput } from '../../contract/search-memory.js';
import { type CommandContext, positiveInt, UsageError } from '../command.js';
import { json, table } from '../format.js';
import { withMemory } from '../runtime.js';

/** `mnemo search QUERY`: the memories search_memory would return. */
export async function runSearch({ config, args, flags, out }: CommandContext): Promise<number> {
  const query = args.join(' ').trim();
  if (!query) throw new UsageError('search needs a QUERY, e.g. mnemo search "who is ralph"');
  const topK = positiveInt(flags['top-k'], '--top-k');
  if (topK !== undefined && topK > 100) throw new UsageError('--top-k must be at most 100');
  const tags = flags.tags
    ?.split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  // What search_memory would refuse is refused here too, naming the flag ("no match" would hide it).
  const checked = searchMemoryInput.safeParse({ query, top_k: topK, tags });
  if (!checked.success) {
    const [issue] = checked.error.issues;
    const field = String(issue?.path[0] ?? '');
    const flag = { query: 'QUERY', tags: '--tags', top_k: '--top-k' }[field] ?? field;
    throw new UsageError((issue?.message ?? 'bad input').replace(field, flag));
  }
  return withMemory(config, async ({ memory, readiness }) => {
    // A one-shot search waits for the model (a server searches by words until it is there).
    await readiness.wait('embeddings');
    const found = await memory.recall.search({ query, top_k: topK, tags });
    if (flags.json) {
      out(json(found));
      return 0;
    }
    if (found.results.length === 0) {
      out('No memory matches.');
      return 0;
    }
    out(
      table(
        ['ID', 'SCORE', 'RELEVANCE', 'CONTENT'],
        found.results.map((r) => [
          r.memory_id,
          r.score.toFixed(3),
          r.relevance.toFixed(3),
          `${r.review_candidate ? '[review] ' : ''}${r.content.replace(/\s+/g, ' ').slice(0, 70)}`,
        ]),
      ),
    );
    out(`${found.results.length} of ${found.total} matches.`);
    return 0;
  });
}
