/** Time as the gateway sees it; tests pass a fake one so backoff and timeouts need no sleeping. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Milliseconds on a monotonic clock. */
  now(): number;
}

export const realTimers: Timers = {
  setTimeout(fn, ms) {
    const handle = setTimeout(fn, ms);
    handle.unref();
    return handle;
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
  now: () => performance.now(),
};
