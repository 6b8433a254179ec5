import type { Logger } from 'pino';

export type StopSignal = 'SIGINT' | 'SIGTERM';
const STOP_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM'];

/**
 * How long a stop may take, from the signal (or the client's leaving) to the exit: the drain of
 * requests in flight (5 s, src/app/http.ts) and 2 s to close the rest.
 */
export const STOP_WINDOW_MS = 7_000;

/** The part of the process that stopping needs: `process` itself, or a stand-in in tests. */
export interface ProcessSignals {
  on(signal: StopSignal, listener: () => void): unknown;
  exit(code: number): void;
  /**
   * Ends the process at once, whatever holds it (SIGTERM's default action). process.exit cannot
   * always: it waits for the thread pool, which a read that never returns (a FIFO no one writes)
   * holds for ever. Without it, `exit(1)`.
   */
  end?(): void;
}

export interface Stoppable {
  stop(): Promise<void>;
  /** Settles when the app ends by itself (a stdio client leaving); absent for a server. */
  closed?: Promise<void>;
}

export interface StopOptions {
  /** STOP_WINDOW_MS unless told. */
  windowMs?: number;
  /**
   * Calls `fire` once `ms` have passed, without keeping the process alive for it (an unref'd
   * setTimeout unless told: a test gives its own).
   */
  after?(ms: number, fire: () => void): void;
}

const unrefTimer = (ms: number, fire: () => void) => void setTimeout(fire, ms).unref();

/**
 * Waits until a started app ends by itself or a SIGINT or SIGTERM asks it to, then stops it
 * (drain, close the store). A second signal exits 1 at once: every answered write is on disk
 * already. Without `signals`, only the app's own end stops it.
 *
 * The stop is bounded: whatever it waits for (an upstream that never answers, a read that never
 * returns, a handle left open), the process is ended once the window has passed. Every answered
 * write is on disk by then, as for a second signal.
 */
export async function serveUntilStopped(
  app: Stoppable,
  signals: ProcessSignals | undefined,
  logger: Logger,
  options: StopOptions = {},
): Promise<void> {
  let received = 0;
  let stopAsked: () => void = () => {};
  const asked = new Promise<void>((resolve) => {
    stopAsked = resolve;
  });
  // Installed once and left until the process exits: a signal that comes while the stop runs,
  // or after it, must take the fast exit below, not the default (which kills without a word).
  const onSignal = () => {
    received += 1;
    if (received === 1) {
      stopAsked();
      return;
    }
    logger.warn('second signal: stopping now');
    endNow();
  };
  const endNow = () => (signals?.end ? signals.end() : signals?.exit(1));
  for (const signal of STOP_SIGNALS) signals?.on(signal, onSignal);
  await (app.closed ? Promise.race([asked, app.closed]) : asked);
  let stopped = false;
  if (signals) {
    const windowMs = options.windowMs ?? STOP_WINDOW_MS;
    (options.after ?? unrefTimer)(windowMs, () => {
      logger.warn(
        stopped
          ? `stopped, but something still held the process ${windowMs} ms on: ending it`
          : `the stop took longer than ${windowMs} ms: ending now`,
      );
      endNow();
    });
  }
  await app.stop();
  stopped = true;
}
