import type { Progress } from '../memory/context.js';
import type { ToolExtra } from './register.js';

/** Sends at most this many progress notifications a call (a long loop reports often). */
const STEPS = 50;

interface ProgressReporter {
  /** What the use case calls as it goes. */
  report: Progress | undefined;
  /** Resolves when every notification is sent: the answer must not overtake them. */
  flush(): Promise<void>;
}

/**
 * notifications/progress for a call that asked for them (a progressToken in _meta), at most
 * every 2% of the work; `report` is undefined when it did not ask.
 */
function progressReporter(extra: ToolExtra): ProgressReporter {
  const token = extra.mcpReq._meta?.progressToken;
  let sent: Promise<void> = Promise.resolve();
  const flush = () => sent;
  if (token === undefined) return { report: undefined, flush };
  let last = -1;
  let lastMessage: string | undefined;
  const report: Progress = (done, total, message) => {
    const step = total > 0 ? Math.floor((done / total) * STEPS) : STEPS;
    if (step === last && message === lastMessage) return;
    last = step;
    lastMessage = message;
    const notification = extra.mcpReq
      .notify({
        method: 'notifications/progress',
        params: { progressToken: token, progress: done, total, ...(message ? { message } : {}) },
      })
      .catch(() => {});
    sent = sent.then(() => notification);
  };
  return { report, flush };
}

/** Runs a long call with progress reported to the client, and answers once all of it is sent. */
export async function withProgress<T>(
  extra: ToolExtra,
  run: (report: Progress | undefined) => Promise<T>,
): Promise<T> {
  const progress = progressReporter(extra);
  const result = await run(progress.report);
  await progress.flush();
  return result;
}
