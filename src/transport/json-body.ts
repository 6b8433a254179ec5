// The body of a POST to /mcp, /mcp/<label> or the page's API: read, bounded and shaped before
// anything parses it further, every refusal an HttpError that names what to send instead.
import express from 'express';
import { HttpError } from './http-error.js';
import { jsonShapeProblem } from './jsonrpc.js';

/** A body parser's refusal (its error's `type`) as the answer the caller gets. */
const REFUSALS: Record<string, { status: number; rpcCode: number; message?: string }> = {
  // Ours, from `verify` below: their messages say what was wrong.
  'entity.shape': { status: 400, rpcCode: -32600 },
  'entity.charset': { status: 415, rpcCode: -32600 },
  'entity.too.large': { status: 413, rpcCode: -32600, message: 'request body too large' },
  'entity.parse.failed': {
    status: 400,
    rpcCode: -32700,
    message: 'parse error: the body is not valid JSON',
  },
  'charset.unsupported': {
    status: 415,
    rpcCode: -32600,
    message: 'send JSON in UTF-8 (Content-Type: application/json)',
  },
  'encoding.unsupported': {
    status: 415,
    rpcCode: -32600,
    message: 'unsupported Content-Encoding: send identity, gzip or deflate',
  },
};

/**
 * express.json, whose refusals are HttpErrors: 413 past `limit`, -32700 for a body not JSON,
 * -32600 for JSON too deep or too big in members (before JSON.parse and the SDK's schemas, which
 * take ~200 ms over 1 MB of `[` or of keys, while every namespace waits).
 */
export function jsonBody(limit: string): express.RequestHandler {
  const parse = express.json({
    limit,
    verify: (_req, _res, body, encoding) => {
      // The scan reads bytes as UTF-8's ASCII; UTF-16 would hide brackets from it (and MCP speaks UTF-8).
      if (encoding.toLowerCase() !== 'utf-8') {
        throw Object.assign(
          new Error('send JSON in UTF-8 (Content-Type: application/json; charset=utf-8)'),
          { type: 'entity.charset' },
        );
      }
      const problem = jsonShapeProblem(body.toString('latin1'));
      if (problem !== undefined) throw Object.assign(new Error(problem), { type: 'entity.shape' });
    },
  });
  return (req, res, next) => {
    parse(req, res, (error?: unknown) => {
      if (error === undefined) return next();
      const type = (error as { type?: unknown }).type;
      const refusal = typeof type === 'string' ? REFUSALS[type] : undefined;
      if (refusal) {
        const message = refusal.message ?? (error as Error).message;
        return next(new HttpError(refusal.status, message, refusal.rpcCode));
      }
      if (isClientFault(error)) {
        // A body that does not inflate, a request cut short: the caller's, said without echoing it.
        const message = 'the request body could not be read: send it whole, as declared';
        return next(new HttpError(400, message, -32600));
      }
      next(error);
    });
  };
}

/** A body parser's error that says the request was at fault (a 4xx status), not the server. */
function isClientFault(error: unknown): boolean {
  const status = (error as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/**
 * A JSON array body is a JSON-RPC batch: refused whole, before any of it runs. MCP dropped
 * batches (2025-06-18), and a batch of n calls would pass the rate limit as one request.
 */
export const oneMessage: express.RequestHandler = (req, _res, next) => {
  if (Array.isArray(req.body)) {
    throw new HttpError(400, 'batches are not supported: send one message per request', -32600);
  }
  next();
};
