// The sessions of one namespace's memories, kept for the neighbours a search or open asks for:
// built at the first ask (one pass over the memories), then kept in step by the ids the engine
// says changed (its change feed, whichever process or replica wrote, on either engine). A call
// then reads only the memories it shows, never every memory of the namespace.

import { NEIGHBOUR_BUDGET } from '../contract/limits.js';
import type { StorageEngine } from '../storage/engine.js';
import type { MemoryRecord } from '../storage/records.js';
import { type Neighbour, Sessions } from './neighbours.js';

/**
 * Past this many changes since the last ask (an import, a gc), building again is cheaper than
 * placing each: a placement shifts its session's list.
 */
const REBUILD_AFTER = 4096;

export class NeighbourIndex {
  private sessions: Sessions | undefined;
  /** Memories written or removed since the sessions were last brought up to date. */
  private readonly changed = new Set<string>();
  private stale = false;
  private unwatch: (() => void) | undefined;

  constructor(private readonly engine: StorageEngine) {}

  /**
   * The neighbours of each target (see Sessions.around), against the memories as they are now:
   * the caller has synced the engine.
   */
  around(targets: readonly MemoryRecord[], n: number, budget = NEIGHBOUR_BUDGET) {
    if (n <= 0 || targets.length === 0) return new Map<string, Neighbour[]>();
    const sessions = this.current();
    return sessions.around(targets, n, (id) => this.engine.memories.get(id)?.content, budget);
  }

  /** Stops listening to the engine (the sessions are dropped). */
  close(): void {
    this.unwatch?.();
    this.unwatch = undefined;
    this.sessions = undefined;
  }

  private current(): Sessions {
    // Watching first: a change while the sessions are built is applied at the next ask.
    this.unwatch ??= this.engine.watch({
      changed: (id) => {
        if (!this.stale) this.changed.add(id);
        if (this.changed.size > REBUILD_AFTER) this.dropAll();
      },
      reset: () => this.dropAll(),
    });
    if (!this.sessions || this.stale) return this.build();
    const { memories } = this.engine;
    for (const id of this.changed) {
      const record = memories.get(id);
      if (record) this.sessions.put(record);
      else this.sessions.remove(id);
    }
    this.changed.clear();
    return this.sessions;
  }

  private dropAll(): void {
    this.stale = true;
    this.changed.clear();
  }

  private build(): Sessions {
    const sessions = Sessions.of(this.engine.memories.values());
    this.sessions = sessions;
    this.stale = false;
    this.changed.clear();
    return sessions;
  }
}
