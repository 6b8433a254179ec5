// The MCP revisions mnemo serves, and the answer to a message that claims another.
import {
  type JSONRPCErrorResponse,
  PROTOCOL_VERSION_META_KEY,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
  UnsupportedProtocolVersionError,
} from '@modelcontextprotocol/server';

/**
 * The revisions served without a handshake, each request carrying its own in `_meta`: what the
 * SDK's server/discover names (a test holds the two equal).
 */
export const MODERN_REVISIONS: readonly string[] = ['2026-07-28'];

/** Every revision served, newest first: the modern ones, then those opened with initialize. */
export const SERVED_REVISIONS: readonly string[] = [
  ...MODERN_REVISIONS,
  ...SUPPORTED_PROTOCOL_VERSIONS,
];

/** Characters of an unknown revision an answer gives back. */
const MAX_ECHO = 64;

/** The revision a message claims in its `_meta` envelope (of any type), or undefined. */
export function claimedRevision(message: unknown): unknown {
  const params = (message as { params?: unknown } | null)?.params;
  if (typeof params !== 'object' || params === null) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  return (meta as Record<string, unknown>)[PROTOCOL_VERSION_META_KEY];
}

/**
 * The revision's own error (-32022) for a message mnemo cannot serve in the revision it names:
 * a `_meta` envelope that claims a revision other than those served without a handshake (the
 * answer lists those, as server/discover does), or, on a message without one, an
 * MCP-Protocol-Version header naming a revision not served at all (the answer lists every
 * served one: such a client opens with initialize). A header that disagrees with the envelope
 * is left to the SDK, whose answer is the revision's -32020. Undefined when nothing is refused.
 */
export function unsupportedRevision(
  message: unknown,
  header?: string,
): JSONRPCErrorResponse | undefined {
  const claimed = claimedRevision(message);
  if (claimed !== undefined) {
    if (header !== undefined && header !== claimed) return undefined;
    if (MODERN_REVISIONS.includes(claimed as string)) return undefined;
    return refusal(message, claimed, MODERN_REVISIONS);
  }
  if (header !== undefined && !SERVED_REVISIONS.includes(header)) {
    return refusal(message, header, SERVED_REVISIONS);
  }
  return undefined;
}

function refusal(
  message: unknown,
  refused: unknown,
  supported: readonly string[],
): JSONRPCErrorResponse {
  const requested =
    typeof refused === 'string' ? refused.slice(0, MAX_ECHO) : `(${kindOfValue(refused)})`;
  const error = new UnsupportedProtocolVersionError({ supported: [...supported], requested });
  const text =
    `unsupported protocol revision ${JSON.stringify(requested)}: mnemo serves ${MODERN_REVISIONS.join(', ')} ` +
    `(each request's _meta names it) and ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')} (opened with initialize)`;
  return {
    jsonrpc: '2.0',
    id: requestIdOf(message),
    error: { code: error.code, message: text, data: error.data },
  } as JSONRPCErrorResponse;
}

function requestIdOf(message: unknown): RequestId | null {
  const id = (message as { id?: unknown } | null)?.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

function kindOfValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
