// DirLock kept across runs while it watches for requests: given up to whoever asks, and a
// request of this process withdrawn by whichever of its runs takes the lock.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DirLock } from '../../src/platform/dir-lock.js';
import {
  manualTimer,
  manualWatch,
  owner,
  saying,
  stoppedHolder,
  tempDir,
} from './dir-lock-support.js';

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

  it("withdraws this process's request whichever of its runs takes the lock, and keeps it", async (t) => {
    const dir = tempDir(t);
    const lockPath = path.join(dir, '.lock');
    const holder = await stoppedHolder(t, dir, 'kept');
    const lock = new DirLock(dir, lockPath, {
      keepMs: 60_000,
      idleTimer: manualTimer().make,
      waitMs: 60_000,
    });
    // A run that waits asks the holder at its first try, then gives up (its caller went away).
    const gone = new AbortController();
    const waiting = lock.run(() => 'never', gone.signal);
    assert.equal(fs.existsSync(`${lockPath}.wait`), true, 'asked');
    gone.abort();
    await assert.rejects(waiting);
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    holder.kill('SIGKILL');
    await exited;
    // Another run of this process takes the lock: the request is no longer wanted.
    assert.equal(
      lock.tryRun((kept) => kept),
      false,
    );
    assert.equal(fs.existsSync(`${lockPath}.wait`), false, 'the request withdrawn');
    // So the lock is kept for the next run, not let go for a request that was its own.
    assert.equal(
      lock.tryRun((kept) => kept),
      true,
    );
    lock.release();
  });
});
