// mnemo's own export format (`mnemo export --format mnemo`, `mnemo import FILE --from mnemo`):
// JSON Lines, a header first, then one object a line, each record exactly as the data dir
// stores it (the fields mnemo does not use too), so an import gives back the same memories:
//
//   {"format":"mnemo-export","version":1,"namespace":"default","exported_at":1767225600}
//   {"memory":{"id":"…","content":"…",…}}
//   {"relation":{"id":"…","from_memory_id":"…",…}}
//   {"forgotten":{"id":"…",…}}
//
// Memories come before the relations between them.

import fs from 'node:fs';
import type { StorageEngine } from '../storage/engine.js';
import { storedShape } from '../storage/records.js';
import { lines, ReadProgress, type ReadReport } from './sources/lines.js';
import { ImportSourceError } from './sources/source-error.js';
import type { ImportEntry, ImportSource } from './types.js';

export const MNEMO_EXPORT_FORMAT = 'mnemo-export';
export const MNEMO_EXPORT_VERSION = 1;

export interface MnemoExportHeader {
  format: typeof MNEMO_EXPORT_FORMAT;
  version: number;
  namespace: string;
  exported_at: number;
}

/** The lines of an export of `engine`'s namespace (each without its newline). */
export async function* mnemoExportLines(
  engine: StorageEngine,
  now: number,
): AsyncGenerator<string> {
  await engine.ready;
  const header: MnemoExportHeader = {
    format: MNEMO_EXPORT_FORMAT,
    version: MNEMO_EXPORT_VERSION,
    namespace: engine.namespaceName,
    exported_at: now,
  };
  yield JSON.stringify(header);
  // The ids first: a record is read (parsed from its line) only as it is written out.
  for (const id of [...engine.memories.keys()]) {
    const record = engine.memories.get(id);
    if (record) yield JSON.stringify({ memory: storedShape(record) });
  }
  for (const id of [...engine.relations.keys()]) {
    const relation = engine.relations.get(id);
    if (relation) yield JSON.stringify({ relation: storedShape(relation) });
  }
  for (const record of await engine.forgottenRecords()) {
    yield JSON.stringify({ forgotten: storedShape(record) });
  }
}

export const mnemoSource: ImportSource = {
  format: 'mnemo',
  entries: mnemoEntries,
};

/** The key of the memory with this id. */
const keyOf = (id: unknown) => `mnemo:${String(id)}`;

async function* mnemoEntries(file: string, report?: ReadReport): AsyncGenerator<ImportEntry> {
  let first = true;
  let numbered: AsyncGenerator<{ number: number; line: string }>;
  try {
    await checkReadable(file);
    numbered = lines(file, ReadProgress.of([file], report));
  } catch (error) {
    throw error instanceof ImportSourceError ? error : sourceError(file, error);
  }
  for await (const { number, line } of numbered) {
    const where = `${file}:${number}`;
    let value: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(line);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
        value = parsed as Record<string, unknown>;
      }
    } catch {
      // refused below, or the file is refused when it is the header
    }
    if (first) {
      first = false;
      checkHeader(file, value);
      continue;
    }
    if (value === undefined) {
      yield { kind: 'refused', where, why: 'not a JSON line (cut short, or edited by hand)' };
      continue;
    }
    const { memory, relation, forgotten } = value as {
      memory?: Record<string, unknown>;
      relation?: Record<string, unknown>;
      forgotten?: Record<string, unknown>;
    };
    if (isObject(memory)) {
      yield {
        kind: 'memory',
        key: keyOf(memory.id),
        where,
        content: typeof memory.content === 'string' ? memory.content : '',
        record: memory,
      };
    } else if (isObject(relation)) {
      yield {
        kind: 'relation',
        where,
        fromKey: keyOf(relation.from_memory_id),
        toKey: keyOf(relation.to_memory_id),
        relation_type: 'related',
        record: relation,
      };
    } else if (isObject(forgotten)) {
      yield { kind: 'forgotten', where, record: forgotten };
    } else {
      yield {
        kind: 'refused',
        where,
        why: 'neither {"memory":…}, {"relation":…} nor {"forgotten":…}',
      };
    }
  }
  if (first) {
    throw new ImportSourceError(
      `--from mnemo: ${file} is empty: give a file mnemo export --format mnemo wrote`,
    );
  }
}

function checkHeader(file: string, value: Record<string, unknown> | undefined): void {
  if (value?.format !== MNEMO_EXPORT_FORMAT) {
    throw new ImportSourceError(
      `--from mnemo: ${file} is not a mnemo export (its first line is not {"format":"${MNEMO_EXPORT_FORMAT}",…}): give a file mnemo export --format mnemo wrote; a data dir's memories.jsonl imports with --from cortexgraph and its folder`,
    );
  }
  // Not String(version): an object's own "toString" (the header's {"toString":""}) threw.
  if (typeof value.version !== 'number') {
    throw new ImportSourceError(
      `--from mnemo: ${file} is not a mnemo export (the "version" of its first line is not a number): give a file mnemo export --format mnemo wrote`,
    );
  }
  if (value.version > MNEMO_EXPORT_VERSION) {
    throw new ImportSourceError(
      `--from mnemo: ${file} is an export of version ${value.version}, newer than this mnemo reads (${MNEMO_EXPORT_VERSION}): import it with the mnemo that wrote it, or a newer one`,
    );
  }
}

async function checkReadable(file: string): Promise<void> {
  const stat = await fs.promises.stat(file);
  if (stat.isDirectory()) {
    throw new ImportSourceError(
      `--from mnemo: ${file} is a folder: give the file mnemo export --format mnemo --out FILE wrote`,
    );
  }
  // The lines are read lazily: a file that cannot be opened is refused here, by name.
  await fs.promises.access(file, fs.constants.R_OK);
}

function sourceError(file: string, error: unknown): ImportSourceError {
  const code = (error as NodeJS.ErrnoException).code ?? String(error);
  return new ImportSourceError(
    `--from mnemo: cannot read ${file} (${code}): give the file mnemo export --format mnemo --out FILE wrote`,
  );
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
