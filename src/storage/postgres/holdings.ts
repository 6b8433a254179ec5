// The namespaces a replica holds: each one's version, its reads and writes one at a time, when it
// was last used, and about how much memory it takes; the least recently used let go beyond a
// budget.
import os from 'node:os';
import type { MemoryRecord, RelationRecord } from '../records.js';

/** MNEMO_CACHE_MB unset: a quarter of the machine's memory, between 256 MB and 4 GB. */
export function defaultCacheMb(totalBytes = os.totalmem()): number {
  return Math.min(4096, Math.max(256, Math.floor(totalBytes / 4 / 2 ** 20)));
}

/** A namespace held (or loading). */
export interface Held {
  /** The version of the namespace held; undefined while it loads. */
  version: number | undefined;
  /** The load under way (or done). */
  loading: Promise<void> | undefined;
  /** When it was last used (ms of the holdings' clock). */
  used: number;
  /** About how many bytes its records and their indexes take in this process. */
  bytes: number;
}

/**
 * About what a memory costs a replica: the record, its words in the index, its slot in the
 * vector index (measured: ~100k memories of a few hundred characters took ~400 MB above the
 * process's own).
 */
export function memoryBytes(record: MemoryRecord): number {
  return 2500 + 6 * record.content.length;
}

export function relationBytes(_relation: RelationRecord): number {
  return 600;
}

export interface HoldingsOptions {
  /** The budget of the namespaces' records and indexes, in bytes. */
  budgetBytes: number;
  /** A namespace used within this many ms is never let go (a request may still read it). */
  graceMs: number;
  now: () => number;
  /** Lets go of namespace `ns` (its records out of the live records and the indexes). */
  release(ns: string): void;
}

export class Holdings {
  private readonly held = new Map<string, Held>();
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Work queued on a namespace (a load, a write, a catch-up): never let go meanwhile. */
  private readonly busy = new Map<string, number>();

  constructor(private readonly options: HoldingsOptions) {}

  get(ns: string): Held | undefined {
    return this.held.get(ns);
  }

  /** The entry of `ns`, made (not loaded) when there is none; marked used now. */
  entry(ns: string): Held {
    let held = this.held.get(ns);
    if (!held) {
      held = { version: undefined, loading: undefined, used: 0, bytes: 0 };
      this.held.set(ns, held);
    }
    held.used = this.options.now();
    return held;
  }

  /** `ns` is used now, if it is held (never makes an entry). */
  touch(ns: string): void {
    const held = this.held.get(ns);
    if (held) held.used = this.options.now();
  }

  /** The version of `ns` held: undefined when it is not, 0 while it loads. */
  version(ns: string): number | undefined {
    const held = this.held.get(ns);
    if (!held) return undefined;
    return held.version ?? 0;
  }

  names(): string[] {
    return [...this.held.entries()].filter(([, h]) => h.version !== undefined).map(([n]) => n);
  }

  delete(ns: string): void {
    this.held.delete(ns);
  }

  get totalBytes(): number {
    let total = 0;
    for (const h of this.held.values()) total += h.bytes;
    return total;
  }

  /** Runs `fn` after every piece of work on `ns` queued before it. */
  serial<T>(ns: string, fn: () => Promise<T>): Promise<T> {
    this.busy.set(ns, (this.busy.get(ns) ?? 0) + 1);
    const before = this.queues.get(ns) ?? Promise.resolve();
    const run = before.then(fn, fn).finally(() => {
      const left = (this.busy.get(ns) ?? 1) - 1;
      if (left > 0) this.busy.set(ns, left);
      else this.busy.delete(ns);
    });
    const tail = run.catch(() => {});
    this.queues.set(ns, tail);
    void tail.then(() => {
      if (this.queues.get(ns) === tail) this.queues.delete(ns);
    });
    return run;
  }

  /** Everything queued on every namespace, settled. */
  async settled(): Promise<void> {
    await Promise.all([...this.queues.values()]);
  }

  /**
   * Lets go of the least recently used namespaces, idle and not used within the grace, until
   * the rest fit the budget (`keep` is never let go).
   */
  trim(keep: string): string[] {
    const released: string[] = [];
    let total = this.totalBytes;
    if (total <= this.options.budgetBytes) return released;
    const now = this.options.now();
    const candidates = [...this.held.entries()]
      .filter(
        ([name, h]) =>
          name !== keep &&
          h.version !== undefined &&
          !this.busy.has(name) &&
          now - h.used >= this.options.graceMs,
      )
      .sort((a, b) => a[1].used - b[1].used);
    for (const [name, held] of candidates) {
      if (total <= this.options.budgetBytes) break;
      this.held.delete(name);
      this.options.release(name);
      total -= held.bytes;
      released.push(name);
    }
    return released;
  }
}
