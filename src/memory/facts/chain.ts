// A memory's supersession chain as open_memories shows it: what it superseded, and what
// superseded it, each with the start of its text.
import type { MemoryRecord } from '../../storage/records.js';
import { type LinkedMemory, linked } from './links.js';

export interface Supersession {
  /** The newer memory that superseded this one; null when it is current. */
  superseded_by: LinkedMemory | null;
  /** The memories this one superseded (those still live). */
  supersedes: LinkedMemory[];
}

export function supersessionOf(
  memories: ReadonlyMap<string, MemoryRecord>,
  record: MemoryRecord,
): Supersession {
  const newer = record.superseded_by !== undefined ? memories.get(record.superseded_by) : undefined;
  const supersedes: LinkedMemory[] = [];
  for (const id of record.supersedes ?? []) {
    const older = memories.get(id);
    if (older) supersedes.push(linked(older));
  }
  return {
    superseded_by: newer
      ? linked(newer)
      : record.superseded_by !== undefined
        ? { memory_id: record.superseded_by, content: '' }
        : null,
    supersedes,
  };
}
