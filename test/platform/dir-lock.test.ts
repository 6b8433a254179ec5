import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DirLock, LockLostError, LockTimeoutError } from '../../src/platform/dir-lock.js';
import { nodeScript } from '../node-script.js';
import { manualTimer, owner, stoppedHolder, tempDir } from './dir-lock-support.js';

const CHILD = fileURLToPath(new URL('./dir-lock-race-child.ts', import.meta.url));

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
