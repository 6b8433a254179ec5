// What becomes of a supersession chain when one of its memories leaves it: deleted, forgotten by
// gc, or archived. A superseded memory must never point at a memory that is gone (or out of
// search): the fact it stated is then the latest one known, unless a newer memory still states a
// later value.
//
// - The memory that leaves was current (nothing newer superseded it): what it superseded is
//   current again (active, or promoted while it names its note), and named as reinstated.
// - It was itself superseded by a newer memory still in the chain: what it superseded is now
//   superseded by that newer one (the chain closes over the gap), nothing is reinstated.
// - It was superseded: the newer one lets go of it.
// - It leaves for a memory that holds it (consolidation, a conflict merged): that one supersedes
//   what it superseded (`handed`, for the caller to write into the new record).
// The memory that leaves keeps its own `superseded_by` (restore undoes that link), but no longer
// names what it superseded: restoring it later does not hide those again.
import type { MemoryRecord, MemoryStatus } from '../../storage/records.js';
import { type LinkedMemory, linked } from './links.js';

/** The status a superseded memory goes back to: promoted while it still names its note. */
const statusBefore = (record: MemoryRecord): MemoryStatus =>
  record.promoted_to ? 'promoted' : 'active';

/** `record` without its `supersedes` list. */
function withoutSupersedesList(record: MemoryRecord): MemoryRecord {
  const { supersedes: _list, ...rest } = record;
  return rest;
}

/**
 * The memories leaving a chain, one after another (a gc run forgets many): each `leave` is read
 * against the memories as the earlier ones left them. Pure over `memories`: a dry run asks it
 * too, and writes nothing.
 */
export class ChainExits {
  /** The other memories changed so far, by id: what the transaction writes besides the leavers. */
  private readonly changed = new Map<string, MemoryRecord>();
  private readonly gone = new Set<string>();
  private readonly current = new Map<string, LinkedMemory>();
  private readonly handedOver: string[] = [];

  constructor(private readonly memories: ReadonlyMap<string, MemoryRecord>) {}

  /** The records to write for the memories that stay. */
  get others(): MemoryRecord[] {
    return [...this.changed.values()];
  }

  /** The memories that are current again because a newer one left (not those that left too). */
  get reinstated(): LinkedMemory[] {
    return [...this.current.values()];
  }

  /** The memories now superseded by the `successor` given to `leave`: its `supersedes`. */
  get handed(): string[] {
    return [...this.handedOver];
  }

  /**
   * `record` leaves the chain: answers it as it leaves (what it superseded no longer listed).
   * With `successor`, the id of a new memory that holds it, what it superseded goes to that one.
   */
  leave(record: MemoryRecord, successor?: string): MemoryRecord {
    const self = this.read(record.id) ?? record;
    this.gone.add(self.id);
    this.changed.delete(self.id);
    this.current.delete(self.id);
    const handed = this.handedOver.indexOf(self.id);
    if (handed >= 0) this.handedOver.splice(handed, 1);
    const newer = self.superseded_by !== undefined ? this.read(self.superseded_by) : undefined;
    // The newer memory takes over what this one superseded only while it is in search itself.
    const heir = newer && newer.status !== 'archived' ? newer : undefined;
    const older = (self.supersedes ?? [])
      .map((id) => this.read(id))
      .filter((m): m is MemoryRecord => m?.superseded_by === self.id);
    for (const old of older) {
      if (successor !== undefined) {
        this.put({ ...old, superseded_by: successor });
        if (!this.handedOver.includes(old.id)) this.handedOver.push(old.id);
        continue;
      }
      if (heir) {
        this.put({ ...old, superseded_by: heir.id });
        continue;
      }
      const { superseded_by: _by, ...rest } = old;
      if (old.status === 'superseded') {
        this.put({ ...rest, status: statusBefore(old) });
        this.current.set(old.id, linked(old));
      } else {
        this.put(rest);
      }
    }
    const inherits = heir !== undefined && successor === undefined && older.length > 0;
    if (newer?.supersedes?.includes(self.id) || inherits) {
      const kept = (newer?.supersedes ?? []).filter((id) => id !== self.id);
      if (inherits) for (const old of older) if (!kept.includes(old.id)) kept.push(old.id);
      const base = withoutSupersedesList(newer as MemoryRecord);
      this.put(kept.length > 0 ? { ...base, supersedes: kept } : base);
    }
    return self.supersedes === undefined ? self : withoutSupersedesList(self);
  }

  private read(id: string): MemoryRecord | undefined {
    if (this.gone.has(id)) return undefined;
    return this.changed.get(id) ?? this.memories.get(id);
  }

  private put(record: MemoryRecord): void {
    this.changed.set(record.id, record);
  }
}
