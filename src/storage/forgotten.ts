// Reading forgotten.jsonl back: the last copy of a memory that gc or delete_memory removed.
import path from 'node:path';
import type { Logger } from 'pino';
import { DEFAULT_NAMESPACE } from './engine.js';
import { readAllLines } from './jsonl-file.js';
import { type MemoryRecord, toMemoryRecord } from './records.js';

/**
 * The last copy of memory `id` of namespace `ns` in the forgotten file, or undefined. A line that
 * cannot be read is reported, never dropped silently; a record an older version glued onto the
 * fragment of a write cut short is still found.
 */
export function findForgotten(
  file: string,
  ns: string,
  id: string,
  logger: Logger,
): MemoryRecord | undefined {
  const name = path.basename(file);
  const { values, bad } = readAllLines(file);
  const wanted = (line: unknown) =>
    (line as { id?: unknown }).id === id &&
    ((line as { namespace?: unknown }).namespace ?? DEFAULT_NAMESPACE) === ns;
  let found: unknown;
  for (const line of values) {
    if (wanted(line)) found = line;
  }
  for (const line of bad) {
    const glued = recordAfterFragment(line.text);
    if (glued !== undefined && found === undefined && wanted(glued)) found = glued;
    logger.warn(
      { file: name, offset: line.offset, recovered: glued?.id ?? null },
      `${name} has a line that cannot be read at byte ${line.offset}: ` +
        (glued
          ? `the record at its end (${glued.id}) can still be restored`
          : 'a memory in it cannot be restored'),
    );
  }
  if (found === undefined) return undefined;
  const { forgotten_at: _at, ...record } = found as Record<string, unknown>;
  return toMemoryRecord(record);
}

/**
 * The last copy of each memory of namespace `ns` in the forgotten file whose id `isLive` does not
 * name, in the order they were last forgotten. Unreadable lines are left out (findForgotten
 * reports them when a restore reads the file).
 */
export function forgottenIn(
  file: string,
  ns: string,
  isLive: (id: string) => boolean,
): MemoryRecord[] {
  const last = new Map<string, unknown>();
  for (const line of readAllLines(file).values) {
    const id = (line as { id?: unknown }).id;
    if (typeof id !== 'string' || isLive(id)) continue;
    if (((line as { namespace?: unknown }).namespace ?? DEFAULT_NAMESPACE) !== ns) continue;
    last.delete(id);
    last.set(id, line);
  }
  const records: MemoryRecord[] = [];
  for (const line of last.values()) {
    const { forgotten_at: _at, namespace: _ns, ...record } = line as Record<string, unknown>;
    try {
      records.push(toMemoryRecord(record));
    } catch {
      // Not a memory: nothing to carry.
    }
  }
  return records;
}

/** The namespace of each id in the forgotten file (its last copy's). Unreadable lines left out. */
export function forgottenOwners(file: string): Map<string, string> {
  const owners = new Map<string, string>();
  for (const line of readAllLines(file).values) {
    const id = (line as { id?: unknown }).id;
    if (typeof id !== 'string') continue;
    const ns = (line as { namespace?: unknown }).namespace;
    owners.set(id, typeof ns === 'string' ? ns : DEFAULT_NAMESPACE);
  }
  return owners;
}

/**
 * The record at the end of a line an append was glued onto (the fragment of a write cut short,
 * which older versions did not cut off first): mnemo writes `id` first.
 */
function recordAfterFragment(text: string): { id: string } | undefined {
  const starts = /\{"id":\s*"/g;
  for (let m = starts.exec(text); m !== null; m = starts.exec(text)) {
    if (m.index === 0) continue;
    try {
      const value = JSON.parse(text.slice(m.index)) as { id?: unknown };
      if (typeof value?.id === 'string') return value as { id: string };
    } catch {
      // Not there: try the next one.
    }
  }
  return undefined;
}
