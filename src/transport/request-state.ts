// What the HTTP edge learns of a request and hands to the handlers after it (express's
// res.locals), typed: who calls (the holder of the token presented), which namespace the call
// uses and which ones its token holds, the upstream it is for. Written and read through
// `requestState(res)` only, in transport/, ui/ and oauth/ alike.
import type { Response } from 'express';

/** Who holds the token a request presented. */
export type Holder =
  /** MNEMO_AUTH_TOKEN: the default namespace, the gateway's routes, the grants. */
  | { kind: 'global' }
  /** The token of the token file (MNEMO_TOKENS) at `index`. */
  | { kind: 'grant'; index: number }
  /** The own token of the upstream `label` of the gateway: that route only. */
  | { kind: 'upstream'; label: string }
  /** An OAuth access token of the grant `grant` (POST /connect/mcp). */
  | { kind: 'oauth'; grant: string };

/** A verified OAuth caller of /connect/mcp: its grant's namespaces, and the grant's key. */
export interface OAuthCaller {
  namespaces: string[];
  /** The grant's key: the rate limit counts per grant. */
  grant: string;
}

export interface RequestState {
  /** Undefined for no token, or a wrong one. */
  holder?: Holder | undefined;
  /** The namespace the call uses (checked against the holder's). */
  namespace?: string;
  /** The namespaces the holder may use; 'tokenless' for a server without any token. */
  namespaces?: readonly string[] | 'tokenless' | undefined;
  /** The upstream a /mcp/<label> call is for (the audit line names it). */
  label?: string;
  /** Set by OAuth's guard of /connect/mcp. */
  oauth?: OAuthCaller;
}

/** The request's state: the one typed view of res.locals. */
export const requestState = (res: Response): RequestState => res.locals as RequestState;

/** The holder as a rate-limit key and a log label: no token in it, only what it is. */
export function holderKey(holder: Holder): string {
  switch (holder.kind) {
    case 'global':
      return 'mnemo';
    case 'grant':
      return `grant:${holder.index}`;
    case 'upstream':
      return `upstream:${holder.label}`;
    case 'oauth':
      return `oauth:${holder.grant}`;
  }
}
