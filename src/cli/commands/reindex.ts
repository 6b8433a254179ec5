import { MemoryError } from '../../memory/errors.js';
import type { CommandContext } from '../command.js';
import { json, progressBar } from '../format.js';
import { withMemory } from '../runtime.js';

/**
 * `mnemo reindex`: computes the missing embeddings (every one with --all) of every namespace,
 * progress on stderr. The vectors are one file (one table) for the whole store, so it works on
 * the whole store, as the person who runs it holds the data dir (or the database URL) anyway.
 */
export async function runReindex({ config, flags, out, stderr }: CommandContext): Promise<number> {
  return withMemory(config, async ({ semantic, readiness, namespaces, memoryFor }) => {
    // The index wants the memories of the namespaces in use only: use each one.
    const names = namespaces();
    for (const name of names) memoryFor(name);
    await readiness.wait('embeddings');
    if (!semantic.enabled) {
      throw new MemoryError(
        `no embedding model to index with (MNEMO_EMBEDDINGS=${config.embeddings}): set MNEMO_EMBEDDINGS to auto or static`,
        'MNEMO_EMBEDDINGS',
      );
    }
    const bar = progressBar(stderr, 'embedding');
    const started = performance.now();
    const result = await semantic.reindex({ all: flags.all === true, onProgress: bar.update });
    bar.done();
    const seconds = (performance.now() - started) / 1000;
    if (flags.json) {
      out(json({ ...result, namespaces: names.length, seconds }));
      return 0;
    }
    const across = names.length > 1 ? ` in ${names.length} namespaces` : '';
    out(
      `Embedded ${result.embedded} of ${result.total} memories${across} with ${result.model} in ${seconds.toFixed(1)} s` +
        (result.embedded === 0 ? ' (every vector was up to date).' : '.'),
    );
    return 0;
  });
}
