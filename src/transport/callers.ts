import type { Request } from 'express';
import { DEFAULT_NAMESPACE, isNamespace, NAMESPACE_PATTERN } from '../storage/engine.js';
import { presentedToken, tokenMatches } from './auth.js';
import type { HttpDeps } from './http.js';
import { HttpError } from './http-error.js';
import type { Holder } from './request-state.js';

/** What telling callers apart needs of the app's deps: the configured tokens. */
type CallerDeps = Pick<HttpDeps, 'authToken' | 'tokens' | 'gateway'>;

export const unauthorized = () =>
  new HttpError(401, 'missing or wrong token: send Authorization: Bearer <token>', -32001, {
    'WWW-Authenticate': 'Bearer',
  });

/**
 * A browser call from any origin but the page's own: 403. A browser says where a call comes from
 * (Origin, Sec-Fetch-Site); a page elsewhere cannot act with the person's session, and no CORS
 * header ever lets it read an answer.
 */
export function refuseOtherOrigins(req: Request): void {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw new HttpError(403, 'the page API answers its own page only (Sec-Fetch-Site)');
  }
  const origin = req.headers.origin;
  if (origin === undefined) return;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  if (host === undefined || host !== req.headers.host) {
    throw new HttpError(403, 'the page API answers its own page only: this Origin is another');
  }
}

/**
 * Who holds the configured token a request presents: MNEMO_AUTH_TOKEN, one of the token file,
 * or (on /mcp/<label>) the own token of the upstream whose route it calls; undefined for no
 * token or a wrong one. Every token accepted on the route is compared, so the timing does not
 * tell which one matched.
 */
export function tokenHolder(req: Request, deps: CallerDeps, mcp: boolean): Holder | undefined {
  const accepted: [Holder, string][] = [];
  if (deps.authToken !== undefined) accepted.push([{ kind: 'global' }, deps.authToken]);
  (deps.tokens ?? []).forEach((grant, index) => {
    accepted.push([{ kind: 'grant', index }, grant.token]);
  });
  const label = mcp ? routeLabel(req.path) : undefined;
  const own =
    label !== undefined && deps.gateway?.has(label) ? deps.gateway.tokenFor(label) : undefined;
  if (label !== undefined && own !== undefined) {
    accepted.push([{ kind: 'upstream', label }, own]);
  }
  const presented = presentedToken(req.headers.authorization);
  const matched = accepted.filter(([, token]) => tokenMatches(presented, token));
  return matched[0]?.[0];
}

/**
 * The namespaces the holder of a request may use: MNEMO_AUTH_TOKEN the default one, a token of
 * the file its own; the default one alone when no token is configured (a loopback server
 * without auth: anyone on the machine may call it, so it must not open, or make, a namespace
 * by name); undefined when a token is needed and none matched.
 */
export function namespacesOf(
  holder: Holder | undefined,
  deps: CallerDeps,
): readonly string[] | 'tokenless' | undefined {
  if (holder?.kind === 'global') return [DEFAULT_NAMESPACE];
  const grant = holder?.kind === 'grant' ? deps.tokens?.[holder.index] : undefined;
  if (grant) return grant.namespaces;
  if (deps.authToken === undefined && (deps.tokens ?? []).length === 0) return 'tokenless';
  return undefined;
}

const NAMESPACE_HEADER = 'x-mnemo-namespace';

/** The namespaces of a frozen list (a token file's), as a set made once: one may hold thousands. */
const heldSets = new WeakMap<readonly string[], ReadonlySet<string>>();

/** Whether `held` names namespace `ns`. */
function holds(held: readonly string[], ns: string): boolean {
  if (held.length <= 16 || !Object.isFrozen(held)) return held.includes(ns);
  let set = heldSets.get(held);
  if (!set) {
    set = new Set(held);
    heldSets.set(held, set);
  }
  return set.has(ns);
}

/**
 * The namespace a request asks for (the X-Mnemo-Namespace header, else `?namespace=`), checked
 * against what its token holds. A namespace the token does not hold answers 403 with the same
 * words whether it exists or not: nothing here looks at the store. Without any token only the
 * default namespace is served; another name answers 403 saying how to serve it.
 */
export function chosenNamespace(
  req: Request,
  held: readonly string[] | 'tokenless' | undefined,
): string {
  const header = req.headers[NAMESPACE_HEADER];
  const query = req.query.namespace;
  if (held === undefined) throw unauthorized();
  if (header === undefined && query !== undefined && typeof query !== 'string') {
    throw new HttpError(400, 'give one namespace: ?namespace=NAME once, or X-Mnemo-Namespace');
  }
  const asked =
    typeof header === 'string' ? header.trim() : typeof query === 'string' ? query : undefined;
  if (asked === undefined || asked === '') {
    return held === 'tokenless' ? DEFAULT_NAMESPACE : (held[0] as string);
  }
  if (held === 'tokenless') {
    if (!isNamespace(asked)) {
      throw new HttpError(
        400,
        `"${asked}" is not a namespace name: use 1 to 64 of a-z, 0-9, _ and - (${NAMESPACE_PATTERN.source}) in X-Mnemo-Namespace or ?namespace=`,
      );
    }
    if (asked !== DEFAULT_NAMESPACE) {
      throw new HttpError(
        403,
        `without a token mnemo serve holds the ${DEFAULT_NAMESPACE} namespace only: give tokens their namespaces in a token file (MNEMO_TOKENS), or use mnemo stdio with MNEMO_NAMESPACE`,
      );
    }
    return asked;
  }
  if (!holds(held, asked)) {
    throw new HttpError(
      403,
      'this token does not hold the namespace asked for (X-Mnemo-Namespace or ?namespace=): ask for one of its own, or use a token that holds it',
    );
  }
  return asked;
}

/** The <label> of a path /<label> under /mcp, decoded as express decodes route params. */
function routeLabel(path: string): string | undefined {
  const segment = /^\/([^/]+)\/?$/.exec(path)?.[1];
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
