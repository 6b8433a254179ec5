import { MemoryError } from '../../memory/errors.js';
import type { CommandContext } from '../command.js';
import { json, progressBar } from '../format.js';
import { withMemory } from '../runtime.js';

/** `mnemo reindex`: computes the missing embeddings (every one with --all), progress on stderr. */
export async function runReindex({ config, flags, out, stderr }: CommandContext): Promise<number> {
  return withMemory(config, async ({ semantic, readiness }) => {
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
      out(json({ ...result, seconds }));
      return 0;
    }
    out(
      `Embedded ${result.embedded} of ${result.total} memories with ${result.model} in ${seconds.toFixed(1)} s` +
        (result.embedded === 0 ? ' (every vector was up to date).' : '.'),
    );
    return 0;
  });
}
