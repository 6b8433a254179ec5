import type { StorageEngine } from '../../storage/engine.js';
import type { MemoryRecord } from '../../storage/records.js';
import { exportMarkdown } from '../../transfer/export-markdown.js';
import { serverMemoryExportLines } from '../../transfer/export-server-memory.js';
import { mnemoExportLines } from '../../transfer/mnemo-format.js';
import { EXPORT_FORMATS, type ExportFormat } from '../../transfer/types.js';
import { writeLinesToFile, writeLinesToStream } from '../../transfer/write-lines.js';
import { type CommandContext, UsageError } from '../command.js';
import { clockFor, withMemory } from '../runtime.js';

/**
 * `mnemo export [--format mnemo|markdown|server-memory] [--out PATH] [--namespace N]`: one
 * namespace's memories in an open format; to stdout unless --out names a new file (markdown: a
 * folder).
 */
export async function runExport({
  config,
  flags,
  stdout,
  stderr,
}: CommandContext): Promise<number> {
  const format = (flags.format ?? 'mnemo') as ExportFormat;
  if (!EXPORT_FORMATS.includes(format)) {
    throw new UsageError(
      `--format ${flags.format} is not a format mnemo exports: use one of ${EXPORT_FORMATS.join(', ')}`,
    );
  }
  const outPath = flags.out;
  if (outPath !== undefined && outPath.trim() === '') {
    throw new UsageError('--out is empty: give a new file (a folder for --format markdown)');
  }
  if (format === 'markdown' && outPath === undefined) {
    throw new UsageError(
      '--format markdown writes a note a memory: give the folder with --out, e.g. --out ~/mnemo-notes',
    );
  }
  return withMemory(config, async ({ store }) => {
    const engine = store.namespace(config.namespace);
    await engine.ready;
    let what: string;
    if (format === 'markdown') {
      const { written } = await exportMarkdown({
        records: liveRecords(engine),
        relationsOf: (id) => engine.relationsOf(id),
        outDir: outPath as string,
      });
      what = `${written} notes into ${outPath}`;
    } else {
      const lines =
        format === 'mnemo'
          ? mnemoExportLines(engine, clockFor(config)())
          : serverMemoryExportLines(engine);
      const count =
        outPath === undefined
          ? await writeLinesToStream(stdout, lines)
          : await writeLinesToFile(outPath, lines);
      what = `${count} lines to ${outPath ?? 'stdout'}`;
    }
    // The summary goes to stderr: stdout may be the export itself.
    stderr.write(
      `Exported namespace ${engine.namespaceName} (${engine.memories.size} memories, ${engine.relations.size} relations) as ${format}: ${what}.\n`,
    );
    return 0;
  });
}

function* liveRecords(engine: StorageEngine): Generator<MemoryRecord> {
  for (const id of [...engine.memories.keys()]) {
    const record = engine.memories.get(id);
    if (record) yield record;
  }
}
