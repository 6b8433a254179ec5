import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { type ProcessSignals, type StopSignal, serveUntilStopped } from '../../src/cli/signals.js';
import { capturingLogger } from '../support.js';

/** A stand-in for the process: signals are emitted by the test, exit codes recorded. */
function fakeProcess() {
  const emitter = new EventEmitter();
  const exits: number[] = [];
  const signals: ProcessSignals = {
    on: (signal, listener) => emitter.on(signal, listener),
    exit: (code) => void exits.push(code),
  };
  return {
    signals,
    exits,
    send: (signal: StopSignal) => emitter.emit(signal),
    listeners: () => emitter.listenerCount('SIGINT') + emitter.listenerCount('SIGTERM'),
  };
}

/** An app whose stop the test finishes when it wants, to send signals meanwhile. */
function fakeApp(withClosed = false) {
  let finishStop: () => void = () => {};
  let endByItself: () => void = () => {};
  const app = {
    stops: 0,
    stop() {
      app.stops += 1;
      return new Promise<void>((resolve) => {
        finishStop = resolve;
      });
    },
    ...(withClosed
      ? {
          closed: new Promise<void>((resolve) => {
            endByItself = resolve;
          }),
        }
      : {}),
  };
  return { app, finishStop: () => finishStop(), endByItself: () => endByItself() };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A timer the test fires: what `after` was asked to call, and when. */
function manualTimer() {
  const pending: { ms: number; fire: () => void }[] = [];
  return { pending, after: (ms: number, fire: () => void) => void pending.push({ ms, fire }) };
}

describe('serveUntilStopped', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} stops the app, and resolves once it has stopped`, async () => {
      const p = fakeProcess();
      const { app, finishStop } = fakeApp();
      const { logger } = capturingLogger();
      let done = false;
      const serving = serveUntilStopped(app, p.signals, logger).then(() => {
        done = true;
      });
      await turn();
      assert.equal(app.stops, 0, 'serves until asked');
      p.send(signal);
      await turn();
      assert.equal(app.stops, 1);
      assert.equal(done, false, 'waits for the drain');
      finishStop();
      await serving;
      assert.deepEqual(p.exits, [], 'the exit code is main’s to give');
    });
  }

  it('a second signal during the stop logs and exits 1 at once', async () => {
    const p = fakeProcess();
    const { app } = fakeApp();
    const { logger, lines } = capturingLogger();
    void serveUntilStopped(app, p.signals, logger);
    p.send('SIGTERM');
    await turn();
    p.send('SIGINT');
    assert.deepEqual(p.exits, [1]);
    assert.equal(app.stops, 1, 'the stop is not asked for twice');
    assert.ok(lines.some((l) => l.level === 40 && l.msg === 'second signal: stopping now'));
  });

  it('an app that ends by itself (the stdio client left) is stopped without a signal', async () => {
    const p = fakeProcess();
    const { app, finishStop, endByItself } = fakeApp(true);
    const { logger, lines } = capturingLogger();
    const serving = serveUntilStopped(app, p.signals, logger);
    endByItself();
    await turn();
    assert.equal(app.stops, 1);
    // A signal while that stop runs is the first one: it waits for the same stop.
    p.send('SIGTERM');
    assert.deepEqual(p.exits, []);
    finishStop();
    await serving;
    assert.equal(app.stops, 1);
    assert.equal(lines.length, 0);
  });

  it('listens once for the whole run, so no signal ever meets the default handler', async () => {
    const p = fakeProcess();
    const { app, finishStop } = fakeApp();
    const { logger } = capturingLogger();
    const serving = serveUntilStopped(app, p.signals, logger);
    assert.equal(p.listeners(), 2);
    p.send('SIGINT');
    await turn();
    finishStop();
    await serving;
    assert.equal(p.listeners(), 2, 'still there for a late signal while the process winds down');
    p.send('SIGTERM');
    assert.deepEqual(p.exits, [1]);
  });

  it('without signals, an app that ends by itself is still stopped', async () => {
    const { app, finishStop, endByItself } = fakeApp(true);
    const serving = serveUntilStopped(app, undefined, capturingLogger().logger);
    endByItself();
    await turn();
    finishStop();
    await serving;
    assert.equal(app.stops, 1);
  });

  it('ends the process with end() rather than exit() when it has one: exit waits for a blocked thread pool', async () => {
    const p = fakeProcess();
    let ended = 0;
    const signals: ProcessSignals = {
      ...p.signals,
      end: () => {
        ended += 1;
      },
    };
    const { app } = fakeApp();
    const timer = manualTimer();
    void serveUntilStopped(app, signals, capturingLogger().logger, { after: timer.after });
    p.send('SIGTERM');
    await turn();
    timer.pending[0]?.fire();
    assert.equal(ended, 1);
    p.send('SIGTERM');
    assert.equal(ended, 2);
    assert.deepEqual(p.exits, []);
  });

  it('a stop that never completes exits 1 once the window has passed', async () => {
    const p = fakeProcess();
    const { app } = fakeApp();
    const { logger, lines } = capturingLogger();
    const timer = manualTimer();
    void serveUntilStopped(app, p.signals, logger, { windowMs: 7_000, after: timer.after });
    await turn();
    assert.equal(timer.pending.length, 0, 'no window before a stop is asked for');
    p.send('SIGTERM');
    await turn();
    assert.deepEqual(
      timer.pending.map((t) => t.ms),
      [7_000],
    );
    assert.deepEqual(p.exits, [], 'the stop runs in its window');
    timer.pending[0]?.fire();
    assert.deepEqual(p.exits, [1]);
    assert.ok(
      lines.some((l) => l.level === 40 && /longer than 7000 ms: ending now/.test(String(l.msg))),
    );
  });

  it('a stop that completed while something still holds the process open ends it at the window', async () => {
    const p = fakeProcess();
    const { app, finishStop, endByItself } = fakeApp(true);
    const { logger, lines } = capturingLogger();
    const timer = manualTimer();
    const serving = serveUntilStopped(app, p.signals, logger, { after: timer.after });
    endByItself();
    await turn();
    finishStop();
    await serving;
    assert.deepEqual(p.exits, [], 'the exit code is main’s to give, when the process can end');
    timer.pending[0]?.fire();
    assert.deepEqual(p.exits, [1]);
    assert.ok(lines.some((l) => /still held the process/.test(String(l.msg))));
  });
});
