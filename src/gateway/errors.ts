import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';

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

/**
 * A transport's error raised by the gateway itself (an answer past the size cap, a closed
 * child): its message is the gateway's own words, none of the upstream's, and is passed on.
 */
export class GatewayFault extends Error {
  override name = 'GatewayFault';
}

/** What the SDK's errors of these codes are said as; any other is named by its code. */
const SDK_FAULTS: Partial<Record<SdkErrorCode, string>> = {
  [SdkErrorCode.NotConnected]: 'the connection to it is not open',
  [SdkErrorCode.ConnectionClosed]: 'its connection closed',
  [SdkErrorCode.RequestTimeout]: 'it did not answer in time',
  [SdkErrorCode.SendFailed]: 'the request could not be sent',
  [SdkErrorCode.InvalidResult]: 'its answer is not a valid MCP result',
  [SdkErrorCode.EraNegotiationFailed]: 'no protocol revision could be agreed with it',
  [SdkErrorCode.ClientHttpUnexpectedContent]:
    'it answered with a content type that is neither JSON nor an SSE stream',
  [SdkErrorCode.ClientHttpFailedToOpenStream]: 'it did not open an SSE stream',
};
const SDK_CODES = new Set<string>(Object.values(SdkErrorCode));

/** The most causes looked through for a status or a system error. */
const MAX_CAUSES = 5;

/**
 * What the gateway says, to the caller and in its log, of an error its transport to an upstream
 * raised: the HTTP status the upstream answered, a system error's code, an SDK error's code, or
 * the gateway's own words, and never the error's message. The SDK's messages carry what the
 * upstream sent (an error answer's whole body, "Error POSTing to endpoint: <body>", which may
 * echo the Authorization header the gateway sent it; a Content-Type; the start of a body that did
 * not parse): an upstream's answer is data, not something to repeat.
 */
export function transportFault(error: unknown): string {
  let cause: unknown = error;
  for (let depth = 0; depth < MAX_CAUSES && cause instanceof Error; depth++) {
    const said = specific(cause);
    if (said !== undefined) return said;
    cause = cause.cause;
  }
  if (error instanceof SdkError) {
    const code = String(error.code);
    return (
      SDK_FAULTS[error.code] ??
      (SDK_CODES.has(code) ? `the MCP SDK failed with ${code}` : 'the MCP SDK failed')
    );
  }
  if (error instanceof ProtocolError && Number.isSafeInteger(error.code)) {
    return `it answered JSON-RPC error ${error.code}`;
  }
  if (error instanceof SyntaxError) return 'it sent something that is not valid JSON';
  if (error instanceof Error && error.name === 'ZodError') {
    return 'it sent something that is not a JSON-RPC message';
  }
  return 'the request to it failed';
}

/** What one error of the chain says for sure, if anything: its status, or a system error. */
function specific(error: Error): string | undefined {
  if (error instanceof GatewayFault) return error.message;
  if (error instanceof SdkHttpError) {
    const status = error.status;
    if (Number.isInteger(status) && status >= 100 && status <= 599) {
      return `it answered HTTP ${status} (its body is withheld)`;
    }
  }
  const { code, syscall } = error as { code?: unknown; syscall?: unknown };
  // A system or undici error's code (ECONNREFUSED, UND_ERR_SOCKET) and the call's first word
  // ("connect", "spawn" of "spawn <command>"): fixed names, not text.
  if (typeof code === 'string' && /^(?:E[A-Z0-9]{1,30}|UND_ERR_[A-Z_]{1,40})$/.test(code)) {
    const call =
      typeof syscall === 'string' ? /^[a-z_]{1,20}(?=\s|$)/.exec(syscall)?.[0] : undefined;
    return call ? `${call} failed with ${code}` : `the connection failed with ${code}`;
  }
  return undefined;
}
