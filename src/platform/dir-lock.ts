// The lock of a folder (a data dir, gateway.json's, the OAuth files'): one writer at a time.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LockAsk, type StopWatch } from './dir-lock-ask.js';
import { DIR_MODE, FILE_MODE, NEW_FILE, readIfExists, writeAll } from './durable-file.js';
import { TransientError } from './errors.js';
import { startTime } from './process-start.js';

export type { StopWatch } from './dir-lock-ask.js';

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
  /**
   * Keeps the lock this long (ms) after a run, so that writes in a row take it once: it goes when
   * no run came for that long, when another process asks for it (at once: the holder watches for
   * requests), and on `release()`. Where requests cannot be watched (a remote filesystem) it is
   * kept BRIEF_KEEP_MS at most. 0 (the default) lets it go at the end of every run.
   */
  keepMs?: number;
  /** Makes the timer that lets a kept lock go once idle (tests inject one they fire). */
  idleTimer?: (onIdle: () => void, ms: number) => IdleTimer;
  /**
   * Watches for another process's request while the lock is kept (LockAsk.watch; tests inject
   * one they fire): undefined when it cannot, and the lock is then kept briefly.
   */
  askWatch?: (onAsk: (broken: boolean) => void) => StopWatch | undefined;
}

/** The idle timer of a kept lock: `refresh` restarts it, `cancel` stops it. */
export interface IdleTimer {
  refresh(): void;
  cancel(): void;
}

interface Owner {
  pid: number;
  host: string;
  /** When the owner process started (Linux), to tell it from a later process given its pid. */
  start?: number;
  /** Random for each hold: whoever holds the lock checks it before writing and releasing. */
  token?: string;
}

/** The lock as this process made it: its owner file, kept open so its inode is never reused. */
interface Hold {
  fd: number;
  dev: number;
  ino: number;
}

const OWNER_FILE = 'owner';
/** The most of an owner file read: what mnemo signs is under 200 bytes. */
const MAX_OWNER_BYTES = 4096;
/**
 * The longest keep when the holder cannot watch for requests: a waiter is then told only by the
 * end of a run or of the keep, so its wait grows by this much at most.
 */
const BRIEF_KEEP_MS = 5;

/**
 * The locks this process keeps between runs, by path. Another DirLock of the same folder in this
 * process (a second store opened on the data dir) has the keeper let go at once: otherwise it
 * would wait for its own process, or take the lock for one an earlier process left (its own pid).
 */
const keptHere = new Map<string, DirLock>();

let exitHooked = false;

/** At exit the kept locks go (the next taker would take them over at once, but later). */
function releaseKeptAtExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', () => {
    for (const lock of keptHere.values()) {
      try {
        lock.release();
      } catch {
        // Left as a dead process's lock: taken over at once.
      }
    }
  });
}

function unrefTimer(onIdle: () => void, ms: number): IdleTimer {
  const timer = setTimeout(onIdle, ms);
  // A kept lock never keeps the process alive: exit releases it (or the next taker, at once).
  timer.unref();
  return { refresh: () => timer.refresh(), cancel: () => clearTimeout(timer) };
}

/**
 * The data dir's writer lock, shared by every mnemo process on the folder: a directory made with
 * `mkdir` (atomic), holding a file that names its owner (pid, host, start time and a token).
 *
 * A run holds it through a synchronous critical section (`fn`), so one call never holds it across
 * an await and calls of one process are serialized by its event loop. With `keepMs` the lock is
 * kept after a run, so writes in a row pay for it once: the next run of this DirLock goes on
 * under it after one `lstat` that proves the owner file is still the one made (`kept` tells `fn`
 * so: nobody else wrote meanwhile). A kept lock goes when idle for `keepMs` (an unref'd timer),
 * at exit, on `release()`, and as soon as another process asks for it: a waiter asks by touching
 * `<lock>.wait` at every try (LockAsk), which the holder watches for while it keeps the lock (so
 * it lets go at once when idle, at the end of the run under way otherwise), and a holder that let
 * go for it leaves the free lock to the waiters until they have taken it (or stopped asking), so
 * writes in a row in one process cannot starve another. Where it cannot watch (a remote
 * filesystem), it keeps the lock BRIEF_KEEP_MS at most and reads the request after each run.
 * Another DirLock of the same folder in this process has a kept lock let go at once.
 *
 * A lock is stale when its owner process is gone (kill -9 in the middle of a write, or while it
 * kept the lock), which is known at once on the same host; a pid given to a later process is told
 * apart by its start time. An owner that runs is never taken over, however long it takes (stopped
 * with Ctrl-Z, swapping), kept lock or not: it would go on to write from what it read before.
 * Only a lock signed on another host is judged by age. Stale locks are taken over under a second,
 * short-lived `mkdir` lock, so two processes can never both take over (and both hold) it. The
 * holder still checks that its owner file is there before it writes (`assertHeld`) and before it
 * removes the lock, so a takeover by anything else (a person, another host, an older mnemo) costs
 * a failed call, never a stale write.
 */
export class DirLock {
  private readonly staleMs: number;
  private readonly liveStaleMs: number;
  private readonly waitMs: number;
  private readonly keepMs: number;
  private readonly makeIdleTimer: (onIdle: () => void, ms: number) => IdleTimer;
  private readonly askWatch: NonNullable<DirLockOptions['askWatch']>;
  private readonly takeoverPath: string;
  private readonly asks: LockAsk;
  private readonly ownerPath: string;
  private readonly key: string;
  /** This process's start time, signed into the lock with its pid. */
  private readonly start = startTime(process.pid);
  private readonly host = os.hostname();
  /** The lock held now (inside `run`, or kept after it), if any. */
  private hold: Hold | undefined;
  /** Inside `fn`: the lock is not to be let go, nor taken again. */
  private inside = false;
  private idle: IdleTimer | undefined;
  /** While the lock is kept: the watch that lets it go as soon as another process asks. */
  private stopWatch: StopWatch | undefined;
  /** This process let the lock go for a waiter: it leaves it to them while they ask. */
  private yielded = false;
  /**
   * This process asked the holder to let go: withdrawn by whichever of its runs takes the lock,
   * not only the one that asked (left fresh, its own request would have it let go again at once,
   * and leave the lock to no one until the request went stale).
   */
  private asking = false;

  constructor(
    readonly dir: string,
    readonly lockPath: string,
    options: DirLockOptions = {},
  ) {
    this.staleMs = options.staleMs ?? 5_000;
    this.liveStaleMs = options.liveStaleMs ?? 120_000;
    this.waitMs = options.waitMs ?? 15_000;
    this.keepMs = options.keepMs ?? 0;
    this.makeIdleTimer = options.idleTimer ?? unrefTimer;
    this.takeoverPath = `${lockPath}.takeover`;
    this.asks = new LockAsk(dir, lockPath);
    this.askWatch = options.askWatch ?? ((onAsk) => this.asks.watch(onAsk));
    this.ownerPath = path.join(lockPath, OWNER_FILE);
    this.key = path.resolve(lockPath);
  }

  /**
   * Runs `fn` holding the lock, waiting while another process holds it (asking it to let go, and
   * trying again more and more rarely), for at most `waitMs`; an aborted `signal` stops the wait
   * with its reason. `fn` is told `kept`: it goes on under a lock this DirLock kept since its last
   * run, so nothing was written meanwhile by anyone else.
   */
  async run<T>(fn: (kept: boolean) => T, signal?: AbortSignal): Promise<T> {
    const started = performance.now();
    for (;;) {
      signal?.throwIfAborted();
      const kept = this.stillKept();
      if (kept || this.tryAcquire()) {
        this.withdrawAsk();
        return this.critical(fn, kept);
      }
      const waited = performance.now() - started;
      if (waited > this.waitMs) {
        const owner = this.readOwner();
        throw new LockTimeoutError(
          `the data dir ${this.dir} is busy: ${describeOwner(owner)} holds its lock (${this.lockPath}); ` +
            'retry in a moment. If that process is stuck, end it; if no mnemo process runs, remove that folder',
          owner && { pid: owner.pid, host: owner.host },
        );
      }
      // A holder that let go for a waiter leaves it to them; anyone else asks the holder.
      if (!this.yielded) {
        this.asks.ask();
        this.asking = true;
      }
      // Tried again soon at first (a kept lock goes within a few ms of asking), then more rarely:
      // the delay is a tenth of the wait so far, between 1 and 50 ms, jittered.
      const delay = Math.min(Math.max(waited / 10, 1), 50);
      try {
        await sleep(delay * (0.5 + Math.random()), undefined, { signal });
      } catch {
        signal?.throwIfAborted();
      }
    }
  }

  /** Runs `fn` with the lock if it is free right now (or kept); otherwise returns undefined. */
  tryRun<T>(fn: (kept: boolean) => T): T | undefined {
    const kept = this.stillKept();
    if (!kept && !this.tryAcquire()) return undefined;
    this.withdrawAsk();
    return this.critical(fn, kept);
  }

  /** This process holds the lock: its request to the holder, if it made one, is granted. */
  private withdrawAsk(): void {
    if (!this.asking) return;
    this.asking = false;
    this.asks.withdraw();
  }

  /**
   * Throws unless the lock this process took is still there, ours: called before each write.
   * Another process that took it over has read, and may have written, what this one has not.
   */
  assertHeld(): void {
    if (this.hold && this.isOurs(this.hold)) return;
    const owner = this.readOwner();
    throw new LockLostError(
      `the lock of ${this.dir} (${this.lockPath}) is no longer this process's: ` +
        `${owner ? describeOwner(owner) : 'another process'} took it over while this one held it, ` +
        'so nothing was written. Retry',
    );
  }

  /** Lets a kept lock go now (on close). Inside a run it goes at the run's end instead. */
  release(): void {
    if (this.inside) return;
    const hold = this.forget();
    if (!hold) return;
    try {
      // Another process's lock now (a takeover): it is theirs to remove.
      if (!this.isOurs(hold)) return;
      fs.unlinkSync(this.ownerPath);
      try {
        fs.rmdirSync(this.lockPath);
      } catch (error) {
        // Something was put in it: the folder goes all the same, it is ours.
        if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY') throw error;
        fs.rmSync(this.lockPath, { recursive: true, force: true });
      }
    } finally {
      fs.closeSync(hold.fd);
    }
  }

  /** Ends the hold here (nothing on disk): what it was, if any. */
  private forget(): Hold | undefined {
    const hold = this.hold;
    this.hold = undefined;
    this.idle?.cancel();
    this.idle = undefined;
    this.stopWatch?.();
    this.stopWatch = undefined;
    if (keptHere.get(this.key) === this) keptHere.delete(this.key);
    return hold;
  }

  private critical<T>(fn: (kept: boolean) => T, kept: boolean): T {
    this.inside = true;
    let done = false;
    try {
      const result = fn(kept);
      done = true;
      return result;
    } finally {
      this.inside = false;
      // A run that failed may leave lines to read again: the next one starts afresh.
      if (done && this.keepMs > 0 && !this.asks.asked()) this.keep();
      else {
        this.yielded = done && this.keepMs > 0;
        this.release();
      }
    }
  }

  private keep(): void {
    if (this.idle) {
      this.idle.refresh();
      return;
    }
    // Kept long only while told of requests at once: a waiter then waits for the run under way.
    this.stopWatch =
      this.keepMs > BRIEF_KEEP_MS ? this.askWatch((broken) => this.onAsk(broken)) : undefined;
    const keepMs = this.stopWatch ? this.keepMs : Math.min(this.keepMs, BRIEF_KEEP_MS);
    this.idle = this.makeIdleTimer(() => this.letGo(), keepMs);
    keptHere.set(this.key, this);
    releaseKeptAtExit();
  }

  /** A request may have come while the lock is kept (`broken`: the watch can tell no more). */
  private onAsk(broken: boolean): void {
    if (this.inside || !this.hold) return;
    if (broken) this.letGo();
    else if (this.asks.asked()) {
      this.yielded = true;
      this.letGo();
    }
  }

  private letGo(): void {
    try {
      this.release();
    } catch {
      // Not removed (the folder turned read-only?): a later run takes the lock again, and a
      // stuck folder is named by the error of the process that waits for it.
    }
  }

  /** A lock kept since the last run, still ours: proved by one lstat of its owner file. */
  private stillKept(): boolean {
    const hold = this.hold;
    if (!hold || this.inside) return false;
    if (this.isOurs(hold)) return true;
    // Removed or replaced while kept (by hand, or a takeover): forgotten, nothing removed; taken
    // again, and read afresh, as any lock.
    this.forget();
    fs.closeSync(hold.fd);
    return false;
  }

  private tryAcquire(): boolean {
    if (this.hold) return false; // held by this very lock, inside its run: not stale, not free
    // Let go for a waiter: left to the waiters while one asks.
    if (this.yielded && this.asks.asked()) return false;
    this.yielded = false;
    const keeper = keptHere.get(this.key);
    if (keeper && keeper !== this) keeper.release();
    if (!this.makeDir(this.lockPath)) {
      if (!this.isStale() || !this.takeOver()) return false;
    }
    return true;
  }

  /** The lock's owner file is still the one this process made (its fd keeps the inode ours). */
  private isOurs(hold: Hold): boolean {
    const stat = fs.lstatSync(this.ownerPath, { throwIfNoEntry: false });
    return stat !== undefined && stat.ino === hold.ino && stat.dev === hold.dev;
  }

  /** mkdir the lock and sign it; false when it exists already. */
  private makeDir(dir: string): boolean {
    try {
      fs.mkdirSync(dir, { mode: DIR_MODE });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
    if (dir === this.lockPath) this.sign();
    return true;
  }

  private sign(): void {
    const owner: Owner = { pid: process.pid, host: this.host, token: randomUUID() };
    if (this.start !== undefined) owner.start = this.start;
    // Not synced: after a crash its owner is gone anyway, and a lock without one goes stale.
    // Made new in the folder this call made: never through a link that was put there. Kept open
    // while held: no other file can get its inode meanwhile, so one lstat tells it is still ours.
    const fd = fs.openSync(this.ownerPath, NEW_FILE, FILE_MODE);
    try {
      writeAll(fd, JSON.stringify(owner));
      const stat = fs.fstatSync(fd);
      this.hold = { fd, dev: stat.dev, ino: stat.ino };
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
  }

  private isStale(): boolean {
    const age = ageMs(this.lockPath);
    if (age === undefined) return false; // released meanwhile: the next try takes it
    const owner = this.readOwner();
    if (!owner) return age > this.staleMs; // made, not yet signed, or its maker died right then
    if (owner.host !== this.host) return age > this.liveStaleMs;
    // Our own pid on a lock we do not hold (a keeper in this process let go above): left by an
    // earlier process that had our pid.
    if (owner.pid === process.pid) return true;
    if (!isAlive(owner.pid)) return true;
    // It runs: the owner (however long it stalls), unless the pid went to a later process.
    const start = owner.start === undefined ? undefined : startTime(owner.pid);
    return start !== undefined && start !== owner.start;
  }

  /** Replaces a stale lock with ours. Only the holder of the takeover lock may remove one. */
  private takeOver(): boolean {
    if (!this.makeDir(this.takeoverPath)) {
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
      return this.makeDir(this.lockPath);
    } finally {
      fs.rmSync(this.takeoverPath, { recursive: true, force: true });
    }
  }

  private readOwner(): Owner | undefined {
    try {
      const text = readIfExists(this.ownerPath, MAX_OWNER_BYTES);
      if (text === undefined) return undefined;
      const owner = JSON.parse(text);
      // A pid of 0 or below names no process (kill(-1, 0) and kill(0, 0) answer for a group): an
      // owner that says so is no owner, and the lock goes once stale.
      if (!isPid(owner?.pid) || typeof owner?.host !== 'string') return undefined;
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

/** Whether `value` can be a process id: a whole number above 0. */
export function isPid(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
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
