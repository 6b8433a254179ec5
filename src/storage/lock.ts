import { setTimeout as sleep } from 'node:timers/promises';
import lockfile from 'proper-lockfile';

export class LockTimeoutError extends Error {
  override name = 'LockTimeoutError';
}

export interface DirLockOptions {
  /** A lock older than this is taken over: its holder died (kill -9). */
  staleMs?: number;
  /** How long a writer waits for another process before giving up. */
  waitMs?: number;
}

/**
 * The data dir's writer lock, shared by every mnemo process on the folder (a `mkdir` lock
 * through proper-lockfile). It is held only inside a synchronous critical section, so a
 * process never waits on itself and one tool call never holds it across an await.
 */
export class DirLock {
  private readonly staleMs: number;
  private readonly waitMs: number;

  constructor(
    readonly dir: string,
    readonly lockPath: string,
    options: DirLockOptions = {},
  ) {
    this.staleMs = options.staleMs ?? 5_000;
    this.waitMs = options.waitMs ?? 15_000;
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
        throw new LockTimeoutError(
          `the data dir ${this.dir} is locked by another mnemo process (${this.lockPath}); ` +
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
    try {
      return lockfile.lockSync(this.dir, {
        lockfilePath: this.lockPath,
        realpath: false,
        stale: this.staleMs,
        // Held for milliseconds at a time; a takeover can only mean we were frozen past
        // `stale`, and the write that follows re-reads the log under the new holder's rules.
        onCompromised: () => {},
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // ENOENT: another process took over a stale lock between our stat and our update of it.
      if (code === 'ELOCKED' || code === 'ENOENT') return null;
      throw error;
    }
  }
}
