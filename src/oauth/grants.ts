// The grants a person gave OAuth clients: listed (no secret in the list) and revoked, with every
// code and token of them. What `mnemo tokens`, the web page and /ui/api/oauth/grants call; it
// needs the store only, not a running provider.
import { isNamespace } from '../storage/engine.js';
import { keyOf, type OAuthStore } from './store.js';

export interface GrantSummary {
  /** The grant's key in the store (a hash): what revoke takes. */
  id: string;
  client: { id: string; name: string | null };
  namespaces: string[];
  /** Epoch seconds. */
  created: number | null;
  expires: number | null;
  last_used: number | null;
}

const NAMESPACE_SCOPE = 'ns:';

/** The namespace scope of a namespace, as a grant holds it for the resource. */
export const namespaceScope = (namespace: string) => `${NAMESPACE_SCOPE}${namespace}`;

/**
 * The namespaces a grant's scope for a resource gives (`ns:<name>` each). The scope is what the
 * store holds: anything but a string (a hand-edited oauth.json) gives none.
 */
export function namespacesOfScope(scope: unknown): string[] {
  return (typeof scope === 'string' ? scope : '')
    .split(' ')
    .filter((s) => s.startsWith(NAMESPACE_SCOPE))
    .map((s) => s.slice(NAMESPACE_SCOPE.length))
    .filter(isNamespace);
}

/** Shortest id prefix revoke takes: enough that a typo does not name another grant. */
export const MIN_ID_PREFIX = 8;

export class Grants {
  constructor(
    private readonly store: OAuthStore,
    /** The /connect/mcp URL whose scope names the namespaces. */
    private readonly resource: () => string | undefined,
  ) {}

  /** Every live grant, the newest first. */
  async list(): Promise<GrantSummary[]> {
    const grants = await this.store.list('Grant');
    const summaries = await Promise.all(
      grants.map(async ({ key, entry }) => {
        const clientId = String(entry.payload.clientId ?? '');
        const client = await this.store.get(keyOf('Client', clientId));
        const resources = (entry.payload.resources ?? {}) as Record<string, string>;
        const resource = this.resource();
        const scope =
          resource !== undefined ? resources[resource] : Object.values(resources).join(' ');
        const name = client?.payload.client_name;
        return {
          id: key,
          client: { id: clientId, name: typeof name === 'string' ? name : null },
          namespaces: namespacesOfScope(scope),
          created: typeof entry.payload.iat === 'number' ? entry.payload.iat : null,
          expires: entry.expiresAt ?? null,
          last_used: entry.usedAt ?? null,
        };
      }),
    );
    return summaries.sort((a, b) => (b.created ?? 0) - (a.created ?? 0));
  }

  /**
   * Revokes the grant whose id is `id` or starts with it (at least MIN_ID_PREFIX characters, one
   * grant only): its codes, access and refresh tokens stop working at once. False when no grant
   * (or more than one) matches.
   */
  async revoke(id: string): Promise<boolean> {
    const wanted = id.trim().toLowerCase();
    if (wanted.length < MIN_ID_PREFIX) return false;
    const matches = (await this.store.list('Grant')).filter(({ key }) => key.startsWith(wanted));
    const only = matches.length === 1 ? matches[0] : undefined;
    if (!only) return false;
    await this.store.removeGrant(only.key);
    return true;
  }
}
