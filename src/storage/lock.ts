import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DIR_MODE, FILE_MODE, NEW_FILE, readIfExists, writeAll } from '../platform/durable-file.js';
import { TransientError } from '../platform/errors.js';

/** Another process held the lock for all of `waitMs`: a busy folder, worth a retry. */
export class LockTimeoutError extends TransientError {
  override name = 'LockTimeoutError';
  constructor(
    message: string,
    /** Who holds the lock, when its owner file could be read. */
    readonly holder?: { pid: number; host: string },
  ) {
    super(message);
  }
}

/**
 * The lock this process took was replaced by another process's: nothing was written, and the same
 * call, made again, reads what the other process wrote first.
 */
export class LockLostError extends TransientError {
  override name = 'LockLostError';
}

export interface DirLockOptions {
  /** A lock without a readable owner is taken over once it is this old (ms). */
  staleMs?: number;
  /**
   * A lock signed on another host is taken over past this age (ms): its owner's liveness cannot
   * be checked from here. On this host a lock whose owner runs is never taken over.
   */
  liveStaleMs?: number;
  /** How long a writer waits for another process before giving up (ms). */
  waitMs?: number;
}

interface Owner {
  pid: number;
  host: string;
  /** When the owner process started (Linux), to tell it from a later process given its pid. */
  start?: number;
  /** Random for each hold: whoever holds the lock checks it before writing and releasing. */
  token?: string;
}

const OWNER_FILE = 'owner';

/**
 * The data dir's writer lock, shared by every mnemo process on the folder: a directory made with
 * `mkdir` (atomic), holding a file that names its owner (pid, host, start time and a token).
 *
 * It is held only inside a synchronous critical section, so a process never waits on itself,
 * one call never holds it across an await, and a timer could not refresh it anyway. A lock is
 * stale when its owner process is gone (kill -9 in the middle of a write), which is known at
 * once on the same host; a pid given to a later process is told apart by its start time. An
 * owner that runs is never taken over, however long it takes (stopped with Ctrl-Z, swapping):
 * it would go on to write from what it read before. Only a lock signed on another host is
 * judged by age. Stale locks are taken over under a second, short-lived `mkdir` lock, so two
 * processes can never both take over (and both hold) it. The holder still checks its token
 * before it writes (`assertHeld`) and before it removes the lock, so a takeover by anything
 * else (a person, another host, an older mnemo) costs a failed call, never a stale write.
 */
export class DirLock {
  private readonly staleMs: number;
  private readonly liveStaleMs: number;
  private readonly waitMs: number;
  private readonly takeoverPath: string;
  /** This process's start time, signed into the lock with its pid. */
  private readonly start = startTime(process.pid);
  /** The token of the lock held now (inside `run`), if any. */
  private heldToken: string | undefined;

  constructor(
    readonly dir: string,
    readonly lockPath: string,
    options: DirLockOptions = {},
  ) {
    this.staleMs = options.staleMs ?? 5_000;
    this.liveStaleMs = options.liveStaleMs ?? 120_000;
    this.waitMs = options.waitMs ?? 15_000;
    this.takeoverPath = `${lockPath}.takeover`;
  }

  /**
   * Runs `fn` holding the lock, waiting (with backoff) while another process holds it, for at
   * most `waitMs`; an aborted `signal` stops the wait with its reason.
   */
  async run<T>(fn: () => T, signal?: AbortSignal): Promise<T> {
    const started = performance.now();
    let delay = 1;
    for (;;) {
      signal?.throwIfAborted();
      const release = this.tryAcquire();
      if (release) {
        try {
          return fn();
        } finally {
          release();
        }
      }
      if (performance.now() - started > this.waitMs) {
        const owner = this.readOwner();
        throw new LockTimeoutError(
          `the data dir ${this.dir} is busy: ${describeOwner(owner)} holds its lock (${this.lockPath}); ` +
            'retry in a moment. If that process is stuck, end it; if no mnemo process runs, remove that folder',
          owner && { pid: owner.pid, host: owner.host },
        );
      }
      try {
        await sleep(delay + Math.random() * delay, undefined, { signal });
      } catch {
        signal?.throwIfAborted();
      }
      delay = Math.min(delay * 2, 50);
    }
  }

  /** Runs `fn` with the lock if it is free right now; otherwise returns undefined. */
  tryRun<T>(fn: () => T): T | undefined {
    const release = this.tryAcquire();
    if (!release) return undefined;
    try {
      return fn();
    } finally {
      release();
    }
  }

  /**
   * Throws unless the lock this process took is still there, ours: called before each write.
   * Another process that took it over has read, and may have written, what this one has not.
   */
  assertHeld(): void {
    const owner = this.readOwner();
    if (this.heldToken !== undefined && owner?.token === this.heldToken) return;
    throw new LockLostError(
      `the lock of ${this.dir} (${this.lockPath}) is no longer this process's: ` +
        `${owner ? describeOwner(owner) : 'another process'} took it over while this one held it, ` +
        'so nothing was written. Retry',
    );
  }

  private tryAcquire(): (() => void) | null {
    if (this.heldToken !== undefined) return null; // held by this very lock: not stale, not free
    if (!this.make(this.lockPath)) {
      if (!this.isStale() || !this.takeOver()) return null;
    }
    const token = this.heldToken;
    return () => {
      this.heldToken = undefined;
      // Another process's lock now (a takeover): it is theirs to remove.
      if (this.readOwner()?.token !== token) return;
      fs.rmSync(this.lockPath, { recursive: true, force: true });
    };
  }

  /** mkdir the lock and sign it; false when it exists already. */
  private make(dir: string): boolean {
    try {
      fs.mkdirSync(dir, { mode: DIR_MODE });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
    if (dir === this.lockPath) {
      const token = randomUUID();
      const owner: Owner = { pid: process.pid, host: os.hostname(), token };
      if (this.start !== undefined) owner.start = this.start;
      // Not synced: after a crash its owner is gone anyway, and a lock without one goes stale.
      // Made new in the folder this call made: never through a link that was put there.
      const fd = fs.openSync(path.join(dir, OWNER_FILE), NEW_FILE, FILE_MODE);
      try {
        writeAll(fd, JSON.stringify(owner));
      } finally {
        fs.closeSync(fd);
      }
      this.heldToken = token;
    }
    return true;
  }

  private isStale(): boolean {
    const age = ageMs(this.lockPath);
    if (age === undefined) return false; // released meanwhile: the next try takes it
    const owner = this.readOwner();
    if (!owner) return age > this.staleMs; // made, not yet signed, or its maker died right then
    if (owner.host !== os.hostname()) return age > this.liveStaleMs;
    // Our own pid on a lock we do not hold: left by an earlier process that had our pid.
    if (owner.pid === process.pid) return true;
    if (!isAlive(owner.pid)) return true;
    // It runs: the owner (however long it stalls), unless the pid went to a later process.
    const start = owner.start === undefined ? undefined : startTime(owner.pid);
    return start !== undefined && start !== owner.start;
  }

  /** Replaces a stale lock with ours. Only the holder of the takeover lock may remove one. */
  private takeOver(): boolean {
    if (!this.make(this.takeoverPath)) {
      // A takeover in progress, or one whose maker died in those microseconds.
      if ((ageMs(this.takeoverPath) ?? 0) > this.staleMs) {
        fs.rmSync(this.takeoverPath, { recursive: true, force: true });
      }
      return false;
    }
    try {
      // Checked again under the takeover lock: nobody else can replace the lock meanwhile.
      if (!this.isStale()) return false;
      fs.rmSync(this.lockPath, { recursive: true, force: true });
      return this.make(this.lockPath);
    } finally {
      fs.rmSync(this.takeoverPath, { recursive: true, force: true });
    }
  }

  private readOwner(): Owner | undefined {
    try {
      const text = readIfExists(path.join(this.lockPath, OWNER_FILE));
      if (text === undefined) return undefined;
      const owner = JSON.parse(text);
      if (typeof owner?.pid !== 'number' || typeof owner?.host !== 'string') return undefined;
      return {
        pid: owner.pid,
        host: owner.host,
        ...(typeof owner.start === 'number' ? { start: owner.start } : {}),
        ...(typeof owner.token === 'string' ? { token: owner.token } : {}),
      };
    } catch {
      return undefined;
    }
  }
}

// File times are wall-clock times, so age is measured against the wall clock, not the
// injected one (which may be fixed in the past by MNEMO_NOW).
function ageMs(file: string): number | undefined {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  return stat ? Date.now() - stat.mtimeMs : undefined;
}

function describeOwner(owner: Owner | undefined): string {
  if (!owner) return 'another mnemo process';
  return `mnemo process pid ${owner.pid}${owner.host === os.hostname() ? '' : ` on ${owner.host}`}`;
}

/**
 * When a process started, in clock ticks after boot: field 22 of /proc/<pid>/stat (after the
 * command name, which may hold spaces and parentheses). Undefined where there is no /proc.
 */
function startTime(pid: number): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const start = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    return Number.isFinite(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid runs on this host (as any user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
