/**
 * Counts turns of the event loop: a chain of setImmediate callbacks, one a turn, stands for the
 * other work waiting on the loop. Work that calls `record()` at each step it takes shows how
 * many of its steps ran in one turn, which is what a slow machine cannot change: a turn that did
 * them all held every other caller for as long as they took, however fast it was here.
 */
export interface TurnCounter {
  /** Counts `n` steps in the current turn. */
  record(n?: number): void;
  /** The most steps recorded in one turn. */
  most(): number;
  /** Turns in which a step was recorded. */
  busyTurns(): number;
  stop(): void;
}

export function turnCounter(): TurnCounter {
  let turn = 0;
  let running = true;
  const perTurn = new Map<number, number>();
  const tick = () => {
    if (!running) return;
    turn++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    record(n = 1) {
      perTurn.set(turn, (perTurn.get(turn) ?? 0) + n);
    },
    most: () => Math.max(0, ...perTurn.values()),
    busyTurns: () => perTurn.size,
    stop() {
      running = false;
    },
  };
}
