import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export class LockTimeoutError extends Error {
  override name = 'LockTimeoutError';
}

export interface DirLockOptions {
  /** A lock without a readable owner is taken over once it is this old (ms). */
  staleMs?: number;
  /** A lock whose owner still runs is taken over only past this age (ms): the pid was reused. */
  liveStaleMs?: number;
  /** How long a writer waits for another process before giving up (ms). */
  waitMs?: number;
}

interface Owner {
  pid: number;
  host: string;
}

const OWNER_FILE = 'owner';

/**
 * The data dir's writer lock, shared by every mnemo process on the folder: a directory made with
 * `mkdir` (atomic), holding a file that names its owner (pid and host).
 *
 * It is held only inside a synchronous critical section, so a process never waits on itself,
 * one call never holds it across an await, and a timer could not refresh it anyway. A lock is
 * stale when its owner process is gone (kill -9 in the middle of a write), which is known at
 * once on the same host; otherwise by age. Stale locks are taken over under a second,
 * short-lived `mkdir` lock, so two processes can never both take over (and both hold) it.
 */
export class DirLock {
  private readonly staleMs: number;
  private readonly liveStaleMs: number;
  private readonly waitMs: number;
  private readonly takeoverPath: string;

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

  /** Runs `fn` holding the lock, waiting (with backoff) while another process holds it. */
  async run<T>(fn: () => T): Promise<T> {
    const started = performance.now();
    let delay = 1;
    for (;;) {
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
          `the data dir ${this.dir} is locked by another mnemo process${owner ? ` (pid ${owner.pid})` : ''} (${this.lockPath}); ` +
            'wait for it to finish, or remove that folder if no mnemo process is running',
        );
      }
      await sleep(delay + Math.random() * delay);
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

  private tryAcquire(): (() => void) | null {
    if (!this.make(this.lockPath)) {
      if (!this.isStale() || !this.takeOver()) return null;
    }
    return () => fs.rmSync(this.lockPath, { recursive: true, force: true });
  }

  /** mkdir the lock and sign it; false when it exists already. */
  private make(dir: string): boolean {
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
    if (dir === this.lockPath) {
      const owner: Owner = { pid: process.pid, host: os.hostname() };
      fs.writeFileSync(path.join(dir, OWNER_FILE), JSON.stringify(owner), { mode: 0o600 });
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
    return !isAlive(owner.pid) || age > this.liveStaleMs;
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
      const owner = JSON.parse(fs.readFileSync(path.join(this.lockPath, OWNER_FILE), 'utf8'));
      return typeof owner?.pid === 'number' && typeof owner?.host === 'string' ? owner : undefined;
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

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
