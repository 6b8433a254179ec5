import type { Logger } from 'pino';
import { HIDDEN_PATH_LOG, remoteMessage, TransientError, UserError } from '../platform/errors.js';

/** A request refused for what it is (host, token, route, size, rate): the status says which. */
export class HttpError extends UserError {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
    readonly rpcCode = -32000,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const rpcError = (code: number, message: string) => ({
  jsonrpc: '2.0' as const,
  error: { code, message },
  id: null,
});

export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: ReturnType<typeof rpcError>;
}

/**
 * The one mapping of an error to an HTTP answer with a JSON-RPC error. A UserError's message is
 * safe to show: an HttpError answers its own status, a TransientError 503 (retry in a moment),
 * any other 400. Anything else is mnemo's fault: logged, and answered 500 / -32603 without a
 * word of what went wrong.
 */
export function errorAnswer(error: unknown, logger: Pick<Logger, 'error' | 'warn'>): ErrorAnswer {
  if (error instanceof HttpError) {
    return {
      status: error.status,
      headers: error.headers,
      body: rpcError(error.rpcCode, error.message),
    };
  }
  if (error instanceof UserError) {
    // A message naming a path of the server is the operator's, not the caller's.
    const { message, hidden } = remoteMessage(error);
    if (hidden) logger.warn({ err: error.name }, HIDDEN_PATH_LOG);
    return error instanceof TransientError
      ? { status: 503, headers: { 'Retry-After': '1' }, body: rpcError(-32000, message) }
      : { status: 400, headers: {}, body: rpcError(-32000, message) };
  }
  const refused = expressRefusal(error);
  if (refused !== undefined) {
    return {
      status: refused,
      headers: {},
      body: rpcError(
        -32000,
        `the request was refused (HTTP ${refused}): check its path and its escapes`,
      ),
    };
  }
  logger.error({ err: (error as Error | undefined)?.message }, 'request failed');
  return { status: 500, headers: {}, body: rpcError(-32603, 'internal error') };
}

/**
 * The status of a request express itself refused before any handler (a path whose %-escapes do
 * not decode: a URIError marked 400, as http-errors marks what may be shown), or undefined. Said
 * in mnemo's words: express's echo the request.
 */
function expressRefusal(error: unknown): number | undefined {
  const { status, expose } = (error ?? {}) as { status?: unknown; expose?: unknown };
  const marked = Number.isInteger(status) && (status as number) >= 400 && (status as number) < 500;
  if (marked && (expose === true || error instanceof URIError)) return status as number;
  return error instanceof URIError ? 400 : undefined;
}
