import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  DirLock,
  type DirLockOptions,
  LockLostError,
  LockTimeoutError,
} from '../../src/platform/dir-lock.js';
import { nodeScript } from '../node-script.js';

const CHILD = fileURLToPath(new URL('./dir-lock-race-child.ts', import.meta.url));
const HOLDER = fileURLToPath(new URL('./dir-lock-holder-child.ts', import.meta.url));

function contender(
  dir: string,
  rounds: number,
  dieAt: number,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [...nodeScript(CHILD), dir, String(rounds), String(dieAt)],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('DirLock across processes', () => {
  it('never has two holders, even while contenders die holding it and others take over', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-lock-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    // Eight die holding the lock, one after another; four must take over each time and finish.
    const dieAt = [10, 15, 20, 25, 30, 35, 40, 45, 0, 0, 0, 0];
    const results = await Promise.all(dieAt.map((at) => contender(dir, 150, at)));
    results.forEach(({ code, stderr }, i) => {
      // EEXIST on the holder file would mean two processes inside at once.
      assert.equal(code, dieAt[i] ? 3 : 0, `contender ${i} (${code}): ${stderr}`);
    });
    const entries = fs.readFileSync(path.join(dir, 'entries'), 'utf8').trim().split('\n');
    assert.equal(
      entries.length,
      dieAt.reduce((sum, at) => sum + (at || 150), 0),
    );
  });
});

function tempDir(t: TestContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-lock-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** What each holder child has written on stdout so far. */
const said = new WeakMap<ChildProcess, () => string>();

/** Resolves with the first line of `child`'s stdout that `pattern` matches. */
function saying(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve) => {
    const check = () => {
      const line = (said.get(child)?.() ?? '').split('\n').find((l) => pattern.test(l));
      if (line === undefined) return false;
      child.stdout?.off('data', check);
      resolve(line);
      return true;
    };
    if (!check()) child.stdout?.on('data', check);
  });
}

/**
 * A child process that takes the lock on `dir` and stops itself (SIGSTOP) while holding it:
 * inside its run, or (`kept`) after it, keeping the lock; `idle` keeps it and runs on.
 */
async function stoppedHolder(
  t: TestContext,
  dir: string,
  mode: 'inside' | 'kept' | 'idle' = 'inside',
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...nodeScript(HOLDER), dir, mode], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  let stdout = '';
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  said.set(child, () => stdout);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no lock held after 30 s: ${stderr}`)), 30_000);
    child.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('held')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the holder exited (${code}): ${stderr}`));
    });
  });
  return child;
}

function owner(lockPath: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(lockPath, 'owner'), 'utf8'));
}

/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks after boot. */
function startTime(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
}

/** Puts another process's lock in place of the one there, as a takeover would. */
function replaceLock(lockPath: string, token: string): void {
  fs.rmSync(lockPath, { recursive: true, force: true });
  fs.mkdirSync(lockPath);
  fs.writeFileSync(
    path.join(lockPath, 'owner'),
    JSON.stringify({ pid: process.ppid, host: os.hostname(), token }),
  );
}

describe('DirLock: its owner file', () => {
  it('is made new: a link put in the lock folder as it is made is never written through', (t) => {
    const dir = tempDir(t);
    const lockPath = path.join(dir, '.lock');
    const victim = path.join(dir, 'victim');
    fs.writeFileSync(victim, 'kept');
    const mkdir = fs.mkdirSync;
    t.mock.method(fs, 'mkdirSync', (p: fs.PathLike, options?: fs.MakeDirectoryOptions) => {
      const made = mkdir(p, options);
      if (String(p) === lockPath) fs.symlinkSync(victim, path.join(lockPath, 'owner'));
      return made;
    });
    const lock = new DirLock(dir, lockPath, { waitMs: 0 });
    assert.throws(() => lock.tryRun(() => 'ran'), { code: 'EEXIST' });
    assert.equal(fs.readFileSync(victim, 'utf8'), 'kept');
  });
});

describe('DirLock: a live owner', () => {
  it('is never taken over while it runs, even stopped long past liveStaleMs', async (t) => {
    const dir = tempDir(t);
    const lockPath = path.join(dir, '.lock');
    const holder = await stoppedHolder(t, dir);
    assert.equal(owner(lockPath).pid, holder.pid);
    // As if it had been stopped for ten minutes.
    const longAgo = new Date(Date.now() - 600_000);
    fs.utimesSync(lockPath, longAgo, longAgo);
    const lock = new DirLock(dir, lockPath, { staleMs: 1, liveStaleMs: 1, waitMs: 300 });
    let ran = false;
    await assert.rejects(
      lock.run(() => {
        ran = true;
      }),
      (error: Error) =>
        error instanceof LockTimeoutError && error.message.includes(`pid ${holder.pid}`),
    );
    assert.equal(ran, false);
    assert.equal(owner(lockPath).pid, holder.pid, 'the stopped holder still owns the lock');

    // Once it is gone, its lock is taken over at once.
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    holder.kill('SIGKILL');
    await exited;
    assert.equal(await lock.run(() => 'taken over'), 'taken over');
    assert.equal(fs.existsSync(lockPath), false, 'released after the run');
  });

  it('records its start time, and a lock naming a live pid that started at another time is taken over (a reused pid)', {
    skip: process.platform !== 'linux' && 'start times are read from /proc',
  }, async (t) => {
    const dir = tempDir(t);
    const lockPath = path.join(dir, '.lock');
    const lock = new DirLock(dir, lockPath, { waitMs: 300 });
    const signed = lock.run(() => owner(lockPath));
    assert.equal((await signed).start, startTime(process.pid));

    // process.ppid runs, but it is not the process that made this lock.
    fs.mkdirSync(lockPath);
    fs.writeFileSync(
      path.join(lockPath, 'owner'),
      JSON.stringify({
        pid: process.ppid,
        host: os.hostname(),
        start: startTime(process.ppid) + 1,
        token: 'earlier',
      }),
    );
    assert.equal(await lock.run(() => 'taken over'), 'taken over');
    assert.equal(fs.existsSync(lockPath), false);
  });
});

describe('DirLock: a holder whose lock was replaced', () => {
  it('refuses to go on writing, and does not remove the lock of the new owner', async (t) => {
    const dir = tempDir(t);
    const lockPath = path.join(dir, '.lock');
    const lock = new DirLock(dir, lockPath);
    await lock.run(() => {
      lock.assertHeld();
      replaceLock(lockPath, 'theirs');
      assert.throws(
        () => lock.assertHeld(),
        (error: Error) =>
          error instanceof LockLostError &&
          error.message.includes(lockPath) &&
          error.message.includes(`pid ${process.ppid}`),
      );
    });
    assert.equal(owner(lockPath).token, 'theirs', 'the new owner keeps its lock');
    assert.throws(() => lock.assertHeld(), LockLostError, 'not held outside run()');
  });

  it('releases only its own lock', async (t) => {
    const dir = tempDir(t);
    const lockPath = path.join(dir, '.lock');
    const lock = new DirLock(dir, lockPath);
    await lock.run(() => replaceLock(lockPath, 'theirs'));
    assert.equal(owner(lockPath).token, 'theirs');
  });
});

/** An idle timer the test fires by hand. */
function manualTimer(): {
  fire: () => void;
  armed: () => boolean;
  /** The keep the timer was last made for (ms). */
  ms: () => number | undefined;
  make: DirLockOptions['idleTimer'];
} {
  let onIdle: (() => void) | undefined;
  let keepMs: number | undefined;
  return {
    fire: () => onIdle?.(),
    armed: () => onIdle !== undefined,
    ms: () => keepMs,
    make: (fn, ms) => {
      onIdle = fn;
      keepMs = ms;
      return {
        refresh: () => {},
        cancel: () => {
          onIdle = undefined;
        },
      };
    },
  };
}

describe('DirLock: kept across runs', () => {
  it('is taken once for runs in a row, proved ours by its owner file, and let go when idle', async (t) => {
    const dir = tempDir(t);
    const lockPath = path.join(dir, '.lock');
    const timer = manualTimer();
    const lock = new DirLock(dir, lockPath, { keepMs: 5, idleTimer: timer.make });
    assert.equal(await lock.run((kept) => kept), false, 'the first run takes it');
    const { token } = owner(lockPath);
    assert.equal(timer.armed(), true);
    assert.equal(await lock.run((kept) => kept), true, 'the next goes on under it');
    assert.equal(
      lock.tryRun((kept) => kept),
      true,
    );
    assert.equal(owner(lockPath).token, token, 'never taken again meanwhile');
    lock.assertHeld();

    timer.fire();
    assert.equal(fs.existsSync(lockPath), false, 'let go once idle');
    assert.equal(timer.armed(), false);
    assert.throws(() => lock.assertHeld(), LockLostError);
    assert.equal(await lock.run((kept) => kept), false, 'taken again, read afresh');
    lock.release();
    assert.equal(fs.existsSync(lockPath), false, 'let go on release()');
  });

  it('is let go at the end of a run that failed: the next reads afresh', async (t) => {
    const dir = tempDir(t);
    const lockPath = path.join(dir, '.lock');
    const lock = new DirLock(dir, lockPath, { keepMs: 60_000, idleTimer: manualTimer().make });
    await assert.rejects(
      lock.run(() => {
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.equal(fs.existsSync(lockPath), false);
    assert.equal(await lock.run((kept) => kept), false);
    lock.release();
  });

  it('replaced while kept: the next run takes it again without removing the other lock', async (t) => {
    const dir = tempDir(t);
    const lockPath = path.join(dir, '.lock');
    const lock = new DirLock(dir, lockPath, {
      keepMs: 60_000,
      idleTimer: manualTimer().make,
      waitMs: 200,
    });
    await lock.run(() => {});
    replaceLock(lockPath, 'theirs');
    assert.throws(() => lock.assertHeld(), LockLostError);
    // The test runner's parent runs: its lock is waited for, never removed.
    await assert.rejects(
      lock.run(() => 'ran'),
      LockTimeoutError,
    );
    assert.equal(owner(lockPath).token, 'theirs');
    fs.rmSync(lockPath, { recursive: true });
    assert.equal(await lock.run((kept) => kept), false);
    lock.release();
  });

  it('is let go at the end of the next run once another process asks, which it then leaves to them', async (t) => {
    const dir = tempDir(t);
    const lockPath = path.join(dir, '.lock');
    const lock = new DirLock(dir, lockPath, { keepMs: 60_000, idleTimer: manualTimer().make });
    await lock.run(() => {});
    // What a waiter does at each try.
    fs.writeFileSync(`${lockPath}.wait`, '');
    assert.equal(await lock.run((kept) => kept), true, 'the run under way ends');
    assert.equal(fs.existsSync(lockPath), false, 'then the lock goes');
    assert.equal(
      lock.tryRun(() => 'again'),
      undefined,
      'left free for the waiter',
    );
    assert.equal(fs.existsSync(lockPath), false);
    // The waiter took it (and removed its request), or stopped asking.
    fs.rmSync(`${lockPath}.wait`);
    assert.equal(
      lock.tryRun((kept) => kept),
      false,
    );
    lock.release();
  });

  it('is let go at once for another DirLock of the folder in this process', async (t) => {
    const dir = tempDir(t);
    const lockPath = path.join(dir, '.lock');
    const first = new DirLock(dir, lockPath, { keepMs: 60_000, idleTimer: manualTimer().make });
    const second = new DirLock(dir, lockPath, {
      keepMs: 60_000,
      idleTimer: manualTimer().make,
      waitMs: 0,
    });
    await first.run(() => {});
    assert.equal(await second.run((kept) => kept), false, 'no wait, no takeover of a live lock');
    assert.throws(() => first.assertHeld(), LockLostError);
    assert.equal(await first.run((kept) => kept), false, 'the first takes it again afresh');
    first.release();
    second.release();
    assert.equal(fs.existsSync(lockPath), false);
  });

  it('kept by a live process that is stopped is never taken over; once it is killed, at once', async (t) => {
    for (const mode of ['kept'] as const) {
      const dir = tempDir(t);
      const lockPath = path.join(dir, '.lock');
      const holder = await stoppedHolder(t, dir, mode);
      assert.equal(owner(lockPath).pid, holder.pid);
      const longAgo = new Date(Date.now() - 600_000);
      fs.utimesSync(lockPath, longAgo, longAgo);
      const lock = new DirLock(dir, lockPath, { staleMs: 1, liveStaleMs: 1, waitMs: 300 });
      await assert.rejects(
        lock.run(() => 'ran'),
        LockTimeoutError,
        mode,
      );
      assert.equal(owner(lockPath).pid, holder.pid, `${mode}: the holder still owns the lock`);

      const exited = new Promise((resolve) => holder.once('exit', resolve));
      holder.kill('SIGKILL');
      await exited;
      // At once: at the first try, since a lock that waits no time fails at its first wait.
      const atOnce = new DirLock(dir, lockPath, { staleMs: 1, liveStaleMs: 1, waitMs: 0 });
      assert.equal(
        await atOnce.run(() => 'taken over'),
        'taken over',
        `${mode}: taken over at once`,
      );
      assert.equal(fs.existsSync(lockPath), false);
    }
  });
});

/** A watch for requests that the test fires, as the folder's watch would. */
function manualWatch(): {
  fire: (broken?: boolean) => void;
  watching: () => boolean;
  make: DirLockOptions['askWatch'];
} {
  let onAsk: ((broken: boolean) => void) | undefined;
  return {
    fire: (broken = false) => onAsk?.(broken),
    watching: () => onAsk !== undefined,
    make: (fn) => {
      onAsk = fn;
      return () => {
        onAsk = undefined;
      };
    },
  };
}

describe('DirLock: kept long while it watches for requests', () => {
  it('is kept across runs far apart while nobody asks, and let go between runs once one asks', async (t) => {
    const dir = tempDir(t);
    const lockPath = path.join(dir, '.lock');
    const timer = manualTimer();
    const watch = manualWatch();
    const lock = new DirLock(dir, lockPath, {
      keepMs: 10_000,
      idleTimer: timer.make,
      askWatch: watch.make,
    });
    assert.equal(await lock.run((kept) => kept), false);
    const { token } = owner(lockPath);
    assert.equal(timer.ms(), 10_000, 'kept the whole keep: requests are watched for');
    assert.equal(watch.watching(), true);
    // Spaced runs: the timer has not fired, so each goes on under the same lock.
    for (let i = 0; i < 3; i++) assert.equal(await lock.run((kept) => kept), true);
    assert.equal(owner(lockPath).token, token);

    // The folder changed, but nobody asks: still kept.
    watch.fire();
    assert.equal(owner(lockPath).token, token);
    assert.equal(await lock.run((kept) => kept), true);

    // A waiter asks: let go at once, with no run, and left to the waiter.
    fs.writeFileSync(`${lockPath}.wait`, '');
    watch.fire();
    assert.equal(fs.existsSync(lockPath), false, 'let go when asked');
    assert.equal(watch.watching(), false, 'no longer watching');
    assert.equal(timer.armed(), false);
    assert.equal(
      lock.tryRun(() => 'again'),
      undefined,
      'left free for the waiter',
    );
    fs.rmSync(`${lockPath}.wait`);
    assert.equal(
      lock.tryRun((kept) => kept),
      false,
      'taken again afresh once nobody asks',
    );
    lock.release();
  });

  it('is let go when its watch breaks, and kept briefly where it cannot watch', async (t) => {
    const dir = tempDir(t);
    const lockPath = path.join(dir, '.lock');
    const watch = manualWatch();
    const lock = new DirLock(dir, lockPath, {
      keepMs: 10_000,
      idleTimer: manualTimer().make,
      askWatch: watch.make,
    });
    await lock.run(() => {});
    watch.fire(true);
    assert.equal(fs.existsSync(lockPath), false, 'a broken watch can tell no more: let go');
    assert.equal(
      lock.tryRun((kept) => kept),
      false,
      'not left to a waiter: none asked',
    );
    lock.release();

    const timer = manualTimer();
    const blind = new DirLock(dir, lockPath, {
      keepMs: 10_000,
      idleTimer: timer.make,
      askWatch: () => undefined,
    });
    await blind.run(() => {});
    assert.ok((timer.ms() ?? Infinity) <= 5, `kept ${timer.ms()} ms without a watch`);
    fs.writeFileSync(`${lockPath}.wait`, '');
    assert.equal(await blind.run((kept) => kept), true, 'the run under way ends');
    assert.equal(fs.existsSync(lockPath), false, 'then, asked, it goes');
    blind.release();
  });

  it('kept by an idle live process, is given up to another process that asks; the holder runs on', async (t) => {
    const dir = tempDir(t);
    const lockPath = path.join(dir, '.lock');
    const holder = await stoppedHolder(t, dir, 'idle');
    // Past a brief keep, the holder says it still owns the lock (the folder's own watch is on).
    assert.equal(await saying(holder, /^(kept|lost)$/), 'kept');
    assert.equal(owner(lockPath).pid, holder.pid);
    // Its idle timer would keep it ten minutes: the waiter gets it because it asked.
    const lock = new DirLock(dir, lockPath, { waitMs: 60_000 });
    const inside = await lock.run(() => owner(lockPath).pid);
    assert.equal(inside, process.pid, 'the waiter held it');
    assert.equal(holder.exitCode, null, 'given up by the holder, which runs on');
    assert.equal(holder.signalCode, null);
    assert.equal(fs.existsSync(lockPath), false);
    assert.equal(fs.existsSync(`${lockPath}.wait`), false, 'the request withdrawn');
  });
});
