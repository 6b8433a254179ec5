// The memories saved next to a memory from the same source and session (the same meta.source
// and meta.context): what was said around it, on request, within a character budget.
//
// A memory with neither a source nor a context belongs to no session: its neighbours are the
// memories that have neither either, saved within NO_SESSION_WINDOW of it (before or after).
// Without that bound, every memory saved without a source would be one endless session.
import { NEIGHBOUR_BUDGET } from '../contract/limits.js';
import { NO_SESSION, sessionKey } from '../search/rank-facts.js';
import type { MemoryRecord } from '../storage/records.js';
import { preview } from './present.js';
import { dayInWords } from './when.js';

/** How far apart in time (seconds) two memories of no session may be and still be neighbours. */
export const NO_SESSION_WINDOW = 6 * 3600;
/** Below this, a neighbour's text says too little to be worth its place. */
const MIN_TEXT = 40;

export interface Neighbour {
  memory_id: string;
  /** -1: saved just before; 1: just after. */
  offset: number;
  date: string;
  content: string;
}

/** A memory in a session's list: enough to order it and find it again. */
export interface SessionEntry {
  id: string;
  created_at: number;
}

const before = (a: SessionEntry, b: SessionEntry) =>
  a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Where `entry` is, or would go, in `list` (ordered by `before`). */
export function positionOf(list: readonly SessionEntry[], entry: SessionEntry): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(list[mid] as SessionEntry, entry) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The sessions of some memories, each a list in created_at order: what the neighbours are read
 * from. Archived memories are not in it (they are out of search, and so out of its windows).
 */
export class Sessions {
  private readonly lists = new Map<string, SessionEntry[]>();
  /** Each memory's entry (the one in its session's list), with its session, to take it out. */
  private readonly placed = new Map<string, SessionEntry & { key: string }>();

  /** The sessions of `records` at once: grouped, then each list sorted once. */
  static of(records: Iterable<MemoryRecord>): Sessions {
    const sessions = new Sessions();
    for (const record of records) {
      if (record.status === 'archived' || sessions.placed.has(record.id)) continue;
      const entry = sessions.entryOf(record);
      sessions.listOf(entry.key).push(entry);
    }
    for (const list of sessions.lists.values()) list.sort(before);
    return sessions;
  }

  get size(): number {
    return this.placed.size;
  }

  /** Puts `record` where it belongs now (out, when archived). */
  put(record: MemoryRecord): void {
    this.remove(record.id);
    if (record.status === 'archived') return;
    const entry = this.entryOf(record);
    const list = this.listOf(entry.key);
    list.splice(positionOf(list, entry), 0, entry);
  }

  remove(id: string): void {
    const entry = this.placed.get(id);
    if (!entry) return;
    this.placed.delete(id);
    const list = this.lists.get(entry.key);
    if (!list) return;
    const i = positionOf(list, entry);
    if (list[i]?.id === id) list.splice(i, 1);
    if (list.length === 0) this.lists.delete(entry.key);
  }

  private entryOf(record: MemoryRecord): SessionEntry & { key: string } {
    const entry = { id: record.id, created_at: record.created_at, key: sessionKey(record) };
    this.placed.set(record.id, entry);
    return entry;
  }

  private listOf(key: string): SessionEntry[] {
    let list = this.lists.get(key);
    if (!list) {
      list = [];
      this.lists.set(key, list);
    }
    return list;
  }

  /**
   * Up to `n` neighbours on each side of every target, nearest first to get room in the budget;
   * `contentOf` reads a neighbour's text (undefined: left out). A target not in a session (one
   * archived) has none.
   */
  around(
    targets: readonly MemoryRecord[],
    n: number,
    contentOf: (id: string) => string | undefined,
    budget = NEIGHBOUR_BUDGET,
  ): Map<string, Neighbour[]> {
    const out = new Map<string, Neighbour[]>();
    if (n <= 0) return out;
    for (const target of targets) {
      const at = this.placed.get(target.id);
      const list = at ? this.lists.get(at.key) : undefined;
      if (!at || !list) {
        out.set(target.id, []);
        continue;
      }
      const i = positionOf(list, at);
      const t = at.created_at;
      const near =
        at.key === NO_SESSION
          ? (e: SessionEntry) => Math.abs(e.created_at - t) <= NO_SESSION_WINDOW
          : () => true;
      out.set(target.id, fit(list, i, n, budget, near, contentOf));
    }
    return out;
  }
}

/**
 * The neighbours of `targets` among `memories`, in one pass: for a few memories (a test, a small
 * store). The use cases keep a NeighbourIndex instead, which does not read every memory a call.
 */
export function neighboursOf(
  targets: readonly MemoryRecord[],
  memories: Iterable<MemoryRecord>,
  n: number,
  budget = NEIGHBOUR_BUDGET,
): Map<string, Neighbour[]> {
  if (n <= 0 || targets.length === 0) return new Map();
  const wanted = new Set(targets.map(sessionKey));
  const texts = new Map<string, string>();
  const kept: MemoryRecord[] = [];
  for (const record of memories) {
    if (!wanted.has(sessionKey(record))) continue;
    kept.push(record);
    texts.set(record.id, record.content);
  }
  const sessions = Sessions.of(kept);
  return sessions.around(targets, n, (id) => texts.get(id), budget);
}

/** The nearest first, alternating sides, each cut to its share of what the budget has left. */
function fit(
  list: readonly SessionEntry[],
  at: number,
  n: number,
  budget: number,
  near: (entry: SessionEntry) => boolean,
  contentOf: (id: string) => string | undefined,
): Neighbour[] {
  const wanted: number[] = [];
  let backward = true;
  let forward = true;
  for (let d = 1; d <= n && (backward || forward); d++) {
    const prev = list[at - d];
    const next = list[at + d];
    backward &&= prev !== undefined && near(prev);
    forward &&= next !== undefined && near(next);
    if (backward) wanted.push(-d);
    if (forward) wanted.push(d);
  }
  const picked: Neighbour[] = [];
  let left = budget;
  for (let k = 0; k < wanted.length; k++) {
    // An even share of what is left, but never a sliver: then fewer neighbours, the nearest.
    if (left < MIN_TEXT) break;
    const room = Math.min(Math.max(Math.floor(left / (wanted.length - k)), MIN_TEXT), left);
    const offset = wanted[k] as number;
    const entry = list[at + offset] as SessionEntry;
    const text = contentOf(entry.id);
    if (text === undefined) continue;
    const content = preview(text, room);
    left -= content.length;
    picked.push({ memory_id: entry.id, offset, date: dayInWords(entry.created_at), content });
  }
  return picked.sort((a, b) => a.offset - b.offset);
}
