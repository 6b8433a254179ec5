import path from 'node:path';
import { importInto } from '../../transfer/import.js';
import { IMPORT_SOURCES } from '../../transfer/sources/index.js';
import { IMPORT_FORMATS, type ImportFormat, type ImportSummary } from '../../transfer/types.js';
import { type CommandContext, UsageError } from '../command.js';
import { json, progressBar } from '../format.js';
import { clockFor, withMemory } from '../runtime.js';

/** Refusals listed one by one; past that, a count. */
const REFUSALS_SHOWN = 20;

/**
 * `mnemo import PATH --from FORMAT [--dry-run] [--namespace N]`: another memory server's data
 * into a namespace. Safe to run again: what an earlier run imported is skipped.
 */
export async function runImport({
  config,
  args,
  flags,
  out,
  stderr,
}: CommandContext): Promise<number> {
  const [source] = args;
  if (source === undefined || source.trim() === '') {
    throw new UsageError(
      'import needs the PATH to read: e.g. mnemo import ~/.local/share/server-memory/memory.jsonl --from server-memory',
    );
  }
  const format = flags.from;
  if (format === undefined) {
    throw new UsageError(`import needs --from: one of ${IMPORT_FORMATS.join(', ')}`);
  }
  if (!IMPORT_FORMATS.includes(format as ImportFormat)) {
    throw new UsageError(
      `--from ${format} is not a format mnemo imports: use one of ${IMPORT_FORMATS.join(', ')}`,
    );
  }
  const dryRun = flags['dry-run'] === true;
  return withMemory(config, async ({ store }) => {
    const progress = importProgress(stderr);
    const summary = await importInto({
      engine: store.namespace(config.namespace),
      source: IMPORT_SOURCES[format as ImportFormat],
      path: path.resolve(source),
      dryRun,
      clock: clockFor(config),
      onProgress: progress.update,
      onRead: progress.read,
    });
    progress.done();
    if (flags.json) {
      out(json(summary));
      return 0;
    }
    for (const line of describe(summary)) out(line);
    return 0;
  });
}

function describe(s: ImportSummary): string[] {
  const would = s.dry_run ? 'would import' : 'imported';
  const lines = [
    `${s.dry_run ? 'Dry run: nothing written. ' : ''}Read ${s.read} entries of ${s.source} (${s.format}) into namespace ${s.namespace}:`,
    `  ${would.padEnd(13)} ${s.imported} memories, ${s.relations} relations${s.forgotten > 0 ? `, ${s.forgotten} forgotten copies` : ''}`,
    `  ${'already there'.padEnd(13)} ${s.skipped_existing} (skipped)`,
    `  ${'refused'.padEnd(13)} ${s.refused.length}`,
  ];
  for (const r of s.refused.slice(0, REFUSALS_SHOWN)) lines.push(`    ${r.where}: ${r.why}`);
  if (s.refused.length > REFUSALS_SHOWN) {
    lines.push(`    ... and ${s.refused.length - REFUSALS_SHOWN} more (--json lists every one)`);
  }
  if (s.dry_run) lines.push('Run it again without --dry-run to import.');
  return lines;
}

/**
 * On a terminal: a bar over the source's bytes (a file source), else a line of counts redrawn
 * after each batch (a folder of notes). Nothing elsewhere (a log, CI).
 */
function importProgress(stream: NodeJS.WritableStream) {
  const tty = (stream as NodeJS.WriteStream).isTTY === true;
  const bar = progressBar(stream, 'importing (kB read)');
  let byBytes = false;
  let shown = -1;
  let drawn = false;
  return {
    read(done: number, total: number) {
      if (!tty || total === 0) return;
      byBytes = true;
      // Redrawn at each thousandth, not at each line.
      const permille = Math.floor((done / total) * 1000);
      if (permille === shown) return;
      shown = permille;
      bar.update(Math.round(done / 1024), Math.round(total / 1024));
      drawn = true;
    },
    update(s: Readonly<ImportSummary>) {
      if (!tty || byBytes) return;
      stream.write(
        `\rimporting: ${s.read} read, ${s.imported} memories and ${s.relations} relations ${s.dry_run ? 'to write' : 'written'}, ${s.skipped_existing} already there, ${s.refused.length} refused`,
      );
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\n');
    },
  };
}
