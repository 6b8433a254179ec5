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
