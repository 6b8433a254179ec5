// Loading an API answer into a component, with its error, and loading it again on demand.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { fetchOnce } from './api.js';

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  reload(): void;
}

export function useApi<T>(path: string | null): Loaded<T> {
  // An answer is kept with the path it answers: another path's never shows while one loads.
  const [answer, setAnswer] = useState<{ path: string; data: T } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setError(null);
    fetchOnce<T>(path).then(
      (data) => live && setAnswer({ path, data }),
      (e: Error) => {
        if (!live) return;
        setAnswer(null);
        setError(e.message);
      },
    );
    return () => {
      live = false;
    };
  }, [path, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { data: answer && answer.path === path ? answer.data : null, error, reload };
}

/** Asks the person first, then runs `act`; says how it went. */
export async function confirmed(
  question: string,
  act: () => Promise<unknown>,
  report: (message: string, failed: boolean) => void,
): Promise<boolean> {
  if (!window.confirm(question)) return false;
  try {
    await act();
    return true;
  } catch (error) {
    report((error as Error).message, true);
    return false;
  }
}
