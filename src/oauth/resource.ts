// /connect/mcp as an OAuth resource server: the bearer token is one the provider issued for this
// resource, unexpired, of a grant not revoked; the grant's scope names the namespaces.
import { requireBearerAuth } from '@modelcontextprotocol/express';
import { type AuthInfo, OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';
import type express from 'express';
import type { Provider } from 'oidc-provider';
import { type OAuthCaller, requestState } from '../transport/request-state.js';
import { namespacesOfScope } from './grants.js';
import { RESOURCE_SCOPE } from './provider.js';
import { keyOf, type OAuthStore } from './store.js';

/** How often a grant's "last used" is written (seconds): not a write per call. */
const USE_RESOLUTION = 300;

const invalid = (why: string) => new OAuthError(OAuthErrorCode.InvalidToken, why);

export interface ResourceOptions {
  provider: Provider;
  store: OAuthStore;
  /** The /connect/mcp URL: a token must be for it. */
  resource: string;
  /** RFC 9728 metadata's URL, named in every 401's WWW-Authenticate. */
  resourceMetadataUrl: string;
  clock: () => number;
}

export function tokenVerifier(options: ResourceOptions) {
  const { provider, store, resource, clock } = options;
  const touched = new Map<string, number>();
  return {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      // Not found: unknown, expired by the store's clock, or revoked with its grant.
      const found = await provider.AccessToken.find(token);
      if (!found || found.isExpired)
        throw invalid('the access token is unknown, expired or revoked');
      const audiences = Array.isArray(found.aud) ? found.aud : [found.aud];
      if (!audiences.includes(resource)) {
        throw invalid(`the access token is not for ${resource}`);
      }
      const grant =
        found.grantId === undefined ? undefined : await provider.Grant.find(found.grantId);
      if (!grant) throw invalid('the grant of this access token was revoked');
      const namespaces = namespacesOfScope(grant.resources?.[resource]);
      if (namespaces.length === 0)
        throw invalid('the grant of this access token gives no namespace');
      const grantKey = keyOf('Grant', grant.jti);
      const now = clock();
      if ((touched.get(grantKey) ?? 0) + USE_RESOLUTION <= now) {
        touched.set(grantKey, now);
        await store.touch(grantKey, { usedAt: now });
      }
      return {
        token,
        clientId: found.clientId ?? '',
        scopes: namespaces.map((n) => `ns:${n}`),
        expiresAt: found.exp,
        resource: new URL(resource),
        extra: { namespaces, grant: grantKey },
      };
    },
  };
}

/**
 * The guard of /connect/mcp: a verified token sets `requestState(res).oauth` (OAuthCaller); anything
 * else is answered 401 with `WWW-Authenticate: Bearer resource_metadata="…"`.
 */
export function connectGuard(options: ResourceOptions): express.RequestHandler {
  const bearer = requireBearerAuth({
    verifier: tokenVerifier(options),
    resourceMetadataUrl: options.resourceMetadataUrl,
    expectedResource: new URL(options.resource),
  });
  return (req, res, next) => {
    void bearer(req, res, () => {
      const extra = req.auth?.extra as { namespaces: string[]; grant: string } | undefined;
      if (extra)
        requestState(res).oauth = {
          namespaces: extra.namespaces,
          grant: extra.grant,
        } satisfies OAuthCaller;
      next();
    });
  };
}

/** RFC 9728 Protected Resource Metadata of /connect/mcp. */
export function protectedResourceMetadata(resource: string, issuer: string) {
  return {
    resource,
    authorization_servers: [issuer],
    bearer_methods_supported: ['header'],
    scopes_supported: [RESOURCE_SCOPE],
    resource_name: 'mnemo',
  };
}
