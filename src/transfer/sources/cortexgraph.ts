// `mnemo import PATH --from cortexgraph`: a cortexgraph (mnemex) data dir.
//
// memories.jsonl and relations.jsonl are append-only logs: the last line for an id wins, and
// `{"id","_deleted":true}` deletes. Each log is read twice, line by line: once to learn which
// line is the last for each id (only id -> line number is kept), once to yield those lines. A
// record is yielded whole (`record`), every field it holds kept, those mnemo does not use too.
//
// A promoted memory's note is looked for at its `promoted_to`, relative to the vault (when given)
// or else to the data dir and its parent folder, or absolute inside one of them: never elsewhere,
// nor through a link that leaves them. When no note is there the
// memory is imported all the same, promoted_to as it was, and a refusal entry right after it
// says so (`where`: the line, `why`: starts with "imported, but"): the summary then lists it for
// the person to look at, though nothing was lost.

import fs from 'node:fs';
import path from 'node:path';
import {
  isTombstone,
  RecordError,
  toMemoryRecord,
  toRelationRecord,
} from '../../storage/records.js';
import { isInside } from '../../vault/paths.js';
import type { ImportEntry, ImportSource } from '../types.js';
import { lines, ReadProgress, type ReadReport } from './lines.js';
import { ImportSourceError } from './source-error.js';

export const CORTEXGRAPH_FILES = {
  memories: 'memories.jsonl',
  relations: 'relations.jsonl',
} as const;

export interface CortexgraphOptions {
  /** The vault cortexgraph promoted into: where a relative promoted_to is looked for first. */
  vault?: string;
}

/** A cortexgraph source; `vault` is where relative promoted_to paths are looked for first. */
export function createCortexgraphSource(options: CortexgraphOptions = {}): ImportSource {
  return {
    format: 'cortexgraph',
    entries: (dir, report) => cortexgraphEntries(dir, options, report),
  };
}

export const cortexgraphSource: ImportSource = createCortexgraphSource();

/** The key of the memory with this id: `cortexgraph:<id>`. */
export function cortexgraphKey(id: string): string {
  return `cortexgraph:${id}`;
}

async function* cortexgraphEntries(
  root: string,
  options: CortexgraphOptions,
  report?: ReadReport,
): AsyncGenerator<ImportEntry> {
  const dir = path.resolve(root);
  const memoriesFile = path.join(dir, CORTEXGRAPH_FILES.memories);
  const relationsFile = path.join(dir, CORTEXGRAPH_FILES.relations);
  await checkDataDir(dir, memoriesFile, relationsFile);
  // Each log is read twice: once for each id's last line, once for the lines themselves.
  const progress = ReadProgress.of([memoriesFile, relationsFile], report, 2);

  const imported = new Set<string>();
  if (await exists(memoriesFile)) {
    const last = await lastLines(memoriesFile, progress);
    for await (const { number, line } of lines(memoriesFile, progress)) {
      const where = `${memoriesFile}:${number}`;
      const raw = parse(line);
      if (raw === undefined) {
        yield { kind: 'refused', where, why: 'not a JSON line (cut short, or edited by hand)' };
        continue;
      }
      if (isTombstone(raw)) continue;
      const id = (raw as { id?: unknown }).id;
      if (typeof id !== 'string' || last.get(id) !== number) {
        if (typeof id !== 'string') yield { kind: 'refused', where, why: 'no string "id"' };
        continue;
      }
      let content: string;
      try {
        content = toMemoryRecord(raw).content;
      } catch (error) {
        yield { kind: 'refused', where, why: reason(error) };
        continue;
      }
      imported.add(id);
      yield {
        kind: 'memory',
        key: cortexgraphKey(id),
        where,
        content,
        record: raw as Record<string, unknown>,
      };
      const promotedTo = (raw as { promoted_to?: unknown }).promoted_to;
      if (typeof promotedTo === 'string' && promotedTo !== '') {
        const note = await findNote(promotedTo, dir, options.vault);
        if (note === undefined) {
          yield {
            kind: 'refused',
            where,
            why: `imported, but its promoted note ${promotedTo} ${notThere(promotedTo, dir, options.vault)}: promoted_to is kept as it was`,
          };
        }
      }
    }
  }

  if (await exists(relationsFile)) {
    const last = await lastLines(relationsFile, progress);
    for await (const { number, line } of lines(relationsFile, progress)) {
      const where = `${relationsFile}:${number}`;
      const raw = parse(line);
      if (raw === undefined) {
        yield { kind: 'refused', where, why: 'not a JSON line (cut short, or edited by hand)' };
        continue;
      }
      if (isTombstone(raw)) continue;
      const id = (raw as { id?: unknown }).id;
      if (typeof id !== 'string' || last.get(id) !== number) {
        if (typeof id !== 'string') yield { kind: 'refused', where, why: 'no string "id"' };
        continue;
      }
      let relation: ReturnType<typeof toRelationRecord>;
      try {
        relation = toRelationRecord(raw);
      } catch (error) {
        yield { kind: 'refused', where, why: reason(error) };
        continue;
      }
      const missing = [relation.from_memory_id, relation.to_memory_id].find(
        (end) => !imported.has(end),
      );
      if (missing !== undefined) {
        yield {
          kind: 'refused',
          where,
          why: `relation ${id}: memory ${missing} is not among the imported memories (deleted, or refused above)`,
        };
        continue;
      }
      yield {
        kind: 'relation',
        where,
        fromKey: cortexgraphKey(relation.from_memory_id),
        toKey: cortexgraphKey(relation.to_memory_id),
        relation_type: relation.relation_type,
        strength: relation.strength,
        metadata: relation.metadata,
        record: raw as Record<string, unknown>,
      };
    }
  }
}

async function checkDataDir(dir: string, memories: string, relations: string): Promise<void> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(dir);
  } catch (error) {
    throw new ImportSourceError(
      `--from cortexgraph: cannot read ${dir} (${codeOf(error)}): give cortexgraph's data dir, the folder that holds memories.jsonl (by default ~/.config/cortexgraph/jsonl)`,
    );
  }
  if (!stat.isDirectory()) {
    throw new ImportSourceError(
      `--from cortexgraph: ${dir} is not a folder: give cortexgraph's data dir, the folder that holds memories.jsonl, not the file itself`,
    );
  }
  if (!(await exists(memories)) && !(await exists(relations))) {
    throw new ImportSourceError(
      `--from cortexgraph: ${dir} holds neither memories.jsonl nor relations.jsonl: give cortexgraph's data dir (by default ~/.config/cortexgraph/jsonl, or its CORTEXGRAPH_STORAGE_PATH)`,
    );
  }
}

/** Each id's last line number in a log (a tombstone's line too: then nothing is yielded). */
async function lastLines(file: string, progress: ReadProgress): Promise<Map<string, number>> {
  const last = new Map<string, number>();
  for await (const { number, line } of lines(file, progress)) {
    const raw = parse(line);
    const id = (raw as { id?: unknown } | undefined)?.id;
    if (typeof id === 'string') last.set(id, number);
  }
  return last;
}

function parse(line: string): unknown {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where a promoted note may be: the relative path in each base folder (the vault given, the data
 * dir, its parent), or the absolute one when it is in one of them. A path that leaves every base
 * (`..`, elsewhere on the machine) is looked for nowhere: an import file says what is in it, not
 * which of the machine's files mnemo should look at.
 */
function lookIn(
  promotedTo: string,
  dir: string,
  vault: string | undefined,
): { base: string; candidate: string }[] {
  const bases = [...new Set([...(vault ? [path.resolve(vault)] : []), dir, path.dirname(dir)])];
  return bases.flatMap((base) => {
    const candidate = path.resolve(base, promotedTo);
    return candidate !== base && isInside(base, candidate) ? [{ base, candidate }] : [];
  });
}

function notThere(promotedTo: string, dir: string, vault: string | undefined): string {
  const places = [...new Set(lookIn(promotedTo, dir, vault).map((p) => p.candidate))];
  return places.length > 0
    ? `is not there (looked in ${places.join(', ')})`
    : `is outside ${vault ? 'the vault, ' : ''}the data dir and its folder`;
}

/** The first place the note is a file, reached by no link that leaves its base folder. */
async function findNote(
  promotedTo: string,
  dir: string,
  vault: string | undefined,
): Promise<string | undefined> {
  for (const { base, candidate } of lookIn(promotedTo, dir, vault)) {
    try {
      if (!(await fs.promises.lstat(candidate)).isFile()) continue;
      const [realBase, realFolder] = await Promise.all([
        fs.promises.realpath(base),
        fs.promises.realpath(path.dirname(candidate)),
      ]);
      if (isInside(realBase, realFolder)) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.promises.access(file);
    return true;
  } catch {
    return false;
  }
}

function reason(error: unknown): string {
  return error instanceof RecordError ? error.message : String(error);
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}
