// Writes of one memory as one statement: planned from the records a replica holds, committed
// on their own when the namespace is still at the version held and its lock is free, so that no
// round trip of the client's happens under the lock. Any other write takes the lock first.
import type pg from 'pg';
import type { Mutation } from '../engine.js';
import { crossing } from '../errors.js';
import type { LiveRecords } from '../live-records.js';
import { isConnectionError } from './database.js';
import type { Follower } from './follower.js';
import { type Holdings, memoryBytes } from './holdings.js';
import { type OneMemoryWrite, writeOneMemory } from './namespace-feed.js';
import { oneMemoryOf } from './write-statements.js';

/** Writes in a namespace that take its lock first, after one found it moved or locked. */
const PAUSE_WRITES = 16;

export interface QuickWritesOptions {
  live: LiveRecords;
  holdings: Holdings;
  follower: Follower;
  connect(): Promise<pg.PoolClient>;
  /** What a failed write answers; `committing`: it may have been made. */
  failure(error: unknown, committing: boolean): Error;
  /** Throws when a record of `m` is another namespace's. */
  owned(ns: string, m: Mutation<unknown>): void;
}

export class QuickWrites {
  /** Namespaces whose next writes take the lock first, with how many do. */
  private readonly paused = new Map<string, number>();

  constructor(private readonly options: QuickWritesOptions) {}

  /**
   * `plan` made before the lock from the records held, in namespace `ns`'s queue; undefined when
   * this replica knows of a newer version, or its last writes here found the namespace moved or
   * locked (then a few wait for the lock), or the plan failed (it is made again under the lock,
   * after a catch-up, and fails there if it still does).
   */
  plan<T>(ns: string, plan: () => Mutation<T>): Mutation<T> | undefined {
    const pause = this.paused.get(ns);
    if (pause !== undefined) {
      if (pause <= 1) this.paused.delete(ns);
      else this.paused.set(ns, pause - 1);
      return undefined;
    }
    if (this.options.follower.behind(ns)) return undefined;
    try {
      return plan();
    } catch {
      return undefined;
    }
  }

  /**
   * Writes `m`, planned at the version held, as one statement when it is one memory and nothing
   * else and the namespace is still at that version and free; answers whether it did (false:
   * nothing was written, and the write takes the lock).
   */
  async write(ns: string, m: Mutation<unknown>): Promise<boolean> {
    const { live, holdings, follower } = this.options;
    const record = oneMemoryOf(m);
    const held = holdings.entry(ns);
    if (!record || held.version === undefined) return false;
    this.options.owned(ns, m);
    const client = await this.options.connect();
    let done: OneMemoryWrite;
    try {
      done = await writeOneMemory(client, ns, held.version, record);
    } catch (error) {
      client.release(isConnectionError(error) ? (error as Error) : undefined);
      // Committed on its own: lost mid-way, it may have been made.
      throw this.options.failure(error, true);
    }
    client.release();
    if (done === 'crossing') throw crossing(ns);
    if (done !== 'written') {
      this.paused.set(ns, PAUSE_WRITES);
      return false;
    }
    follower.wake();
    if (!live.space(ns).memories.has(record.id)) held.bytes += memoryBytes(record);
    live.putMemory(ns, record);
    held.version += 1;
    follower.advanced(ns);
    return true;
  }
}
