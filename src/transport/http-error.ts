import { UserError } from '../platform/errors.js';

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
