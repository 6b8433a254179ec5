// The memories saved next to a memory from the same source and session (the same meta.source
// and meta.context): what was said around it, on request, within a character budget.
import type { MemoryRecord } from '../storage/records.js';
import { preview } from './present.js';
import { dayInWords } from './when.js';

/** Neighbours a result may ask for on each side. */
export const MAX_NEIGHBOURS = 10;
/** Characters of neighbours' content one result carries in all. */
export const NEIGHBOUR_BUDGET = 2000;
/** Below this, a neighbour's text says too little to be worth its place. */
const MIN_TEXT = 40;

export interface Neighbour {
  memory_id: string;
  /** -1: saved just before; 1: just after. */
  offset: number;
  date: string;
  content: string;
}

const sessionKey = (record: MemoryRecord) =>
  JSON.stringify([record.meta.source ?? null, record.meta.context ?? null]);

interface Entry {
  id: string;
  created_at: number;
  content: string;
}

/**
 * Up to `n` neighbours on each side of every target, nearest in created_at order first to get
 * room in the budget. One pass over the memories (archived ones left out), grouped only by the
 * targets' sessions.
 */
export function neighboursOf(
  targets: readonly MemoryRecord[],
  memories: Iterable<MemoryRecord>,
  n: number,
  budget = NEIGHBOUR_BUDGET,
): Map<string, Neighbour[]> {
  const out = new Map<string, Neighbour[]>();
  if (n <= 0 || targets.length === 0) return out;
  const groups = new Map<string, Entry[]>();
  for (const target of targets) groups.set(sessionKey(target), []);
  for (const record of memories) {
    if (record.status === 'archived') continue;
    const group = groups.get(sessionKey(record));
    group?.push({ id: record.id, created_at: record.created_at, content: record.content });
  }
  const byTime = (a: Entry, b: Entry) =>
    a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  for (const group of groups.values()) group.sort(byTime);
  for (const target of targets) {
    const group = groups.get(sessionKey(target)) ?? [];
    const at = group.findIndex((e) => e.id === target.id);
    if (at < 0) {
      out.set(target.id, []);
      continue;
    }
    out.set(target.id, fit(group, at, n, budget));
  }
  return out;
}

/** The nearest first, alternating sides, each cut to its share of what the budget has left. */
function fit(group: readonly Entry[], at: number, n: number, budget: number): Neighbour[] {
  const picked: Neighbour[] = [];
  const wanted: number[] = [];
  for (let d = 1; d <= n; d++) {
    if (at - d >= 0) wanted.push(-d);
    if (at + d < group.length) wanted.push(d);
  }
  let left = budget;
  for (let k = 0; k < wanted.length; k++) {
    // An even share of what is left, but never a sliver: then fewer neighbours, the nearest.
    if (left < MIN_TEXT) break;
    const room = Math.min(Math.max(Math.floor(left / (wanted.length - k)), MIN_TEXT), left);
    const offset = wanted[k] as number;
    const entry = group[at + offset] as Entry;
    const content = preview(entry.content, room);
    left -= content.length;
    picked.push({
      memory_id: entry.id,
      offset,
      date: dayInWords(entry.created_at),
      content,
    });
  }
  return picked.sort((a, b) => a.offset - b.offset);
}
