// The audit log of the HTTP edge: one line a request, what was called and how it ended.
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { requestState } from './request-state.js';

/**
 * A method or tool name as the log shows it: a name, or `(other)` for anything else a caller put
 * there (up to the body limit of any text, 600 times a minute).
 */
const NAME = /^[A-Za-z0-9_./-]{1,64}$/;
const logName = (value: unknown) =>
  typeof value !== 'string' ? undefined : NAME.test(value) ? value : '(other)';
/** The most of a path the log shows: a caller without a token chooses it. */
const LOGGED_PATH = 200;

/** One line per request: route, JSON-RPC method and tool name, status, time. Never payloads. */
export function audit(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    res.on('finish', () => {
      const body = req.body as { method?: unknown; params?: { name?: unknown } } | undefined;
      const method = logName(body?.method);
      const tool = body?.method === 'tools/call' ? logName(body?.params?.name) : undefined;
      const path =
        req.path.length > LOGGED_PATH ? `${req.path.slice(0, LOGGED_PATH)}...` : req.path;
      logger.info(
        {
          label: requestState(res).label ?? 'mnemo',
          route: `${req.method} ${path}`,
          method,
          tool,
          status: res.statusCode,
          ms: Math.round((performance.now() - started) * 10) / 10,
        },
        'call',
      );
    });
    next();
  };
}
