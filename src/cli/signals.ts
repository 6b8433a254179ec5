import type { Logger } from 'pino';

export type StopSignal = 'SIGINT' | 'SIGTERM';
const STOP_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM'];

/** The part of the process that stopping needs: `process` itself, or a stand-in in tests. */
export interface ProcessSignals {
  on(signal: StopSignal, listener: () => void): unknown;
  exit(code: number): void;
}

export interface Stoppable {
  stop(): Promise<void>;
  /** Settles when the app ends by itself (a stdio client leaving); absent for a server. */
  closed?: Promise<void>;
}

/**
 * Waits until a started app ends by itself or a SIGINT or SIGTERM asks it to, then stops it
 * (drain, close the store). A second signal exits 1 at once: every answered write is on disk
 * already. Without `signals`, only the app's own end stops it.
 */
export async function serveUntilStopped(
  app: Stoppable,
  signals: ProcessSignals | undefined,
  logger: Logger,
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
    signals?.exit(1);
  };
  for (const signal of STOP_SIGNALS) signals?.on(signal, onSignal);
  await (app.closed ? Promise.race([asked, app.closed]) : asked);
  await app.stop();
}
