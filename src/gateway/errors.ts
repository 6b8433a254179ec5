/** JSON-RPC code of the gateway's own faults: an upstream down, slow, or gone mid-call. */
export const UPSTREAM_FAULT = -32000;

/**
 * What the gateway answers in place of an upstream: a JSON-RPC error whose message names the
 * label once. `retryAfterSeconds` marks a passing state (starting, restarting): nothing reached
 * the upstream, so HTTP answers 503 with Retry-After and the caller may simply try again. Any
 * other fault is answered in the JSON-RPC body (HTTP 200), since the call may have run.
 */
export class UpstreamError extends Error {
  override name = 'UpstreamError';
  constructor(
    readonly code: number,
    message: string,
    readonly retryAfterSeconds?: number,
    readonly data?: unknown,
  ) {
    super(message);
  }
}
