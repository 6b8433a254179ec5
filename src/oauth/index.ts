// The OAuth 2.1 side of `mnemo serve` (off unless MNEMO_OAUTH / --oauth): oidc-provider at
// /oauth/*, its metadata at the root (RFC 8414) and the resource's at
// /.well-known/oauth-protected-resource/connect/mcp (RFC 9728), the consent API at
// /oauth/interaction/:uid, and the guard of /connect/mcp. The issuer is the public URL; with a
// tunnel it is known only once the tunnel is up, and the routes answer 503 until then.
import { getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/express';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import type { Provider } from 'oidc-provider';
import type { Logger } from 'pino';
import { CONNECT_MCP } from '../transport/http.js';
import { HttpError } from '../transport/http-error.js';
import type { TokenGrant } from '../transport/tokens.js';
import { bindConsent, consentApi } from './consent.js';
import { consentPage } from './consent-page.js';
import { Grants } from './grants.js';
import { grantsApi } from './grants-api.js';
import { createProvider, type ProviderFetch, RESOURCE_SCOPE, ROUTES } from './provider.js';
import { connectGuard, protectedResourceMetadata } from './resource.js';
import type { OAuthStore } from './store.js';

export type { OAuthCaller } from '../transport/request-state.js';
export { type GrantSummary, Grants } from './grants.js';

/** Registered clients kept at most: past it, registration waits for unused ones to expire. */
export const MAX_CLIENTS = 500;
/** Registrations an hour from one address. */
export const REGISTRATIONS_PER_HOUR = 20;
/**
 * A registration's body, in bytes, at most: a real client's metadata is well under 1 KiB, and
 * every stored client is rewritten with each change of oauth.json (oidc-provider's own limit,
 * 56 KiB, would let MAX_CLIENTS registrations make it 28 MB).
 */
export const REGISTRATION_MAX_BYTES = 8 * 1024;

export interface OAuthOptions {
  store: OAuthStore;
  /** Epoch seconds. */
  clock: () => number;
  logger: Logger;
  authToken: string | undefined;
  tokens: readonly TokenGrant[];
  /** The namespaces the consent page offers. */
  namespaces(): string[] | Promise<string[]>;
  /** The page API's same-origin rule, for the consent API. */
  sameOrigin(req: express.Request): void;
  /**
   * Client ID Metadata Documents (a client known by the https URL of its metadata, fetched by
   * oidc-provider, guarded and bounded in provider.ts): on unless false.
   */
  clientIdMetadataDocuments?: boolean;
  /** Tests only: stands in for the network when a client document is fetched. */
  fetch?: ProviderFetch;
}

export interface OAuthServer {
  /** Discovery, the provider, the consent API and page: mounted before the other routes. */
  routes: express.Router;
  /** The guard of /connect/mcp: sets requestState(res).oauth (OAuthCaller) or answers 401. */
  guard: express.RequestHandler;
  grants: Grants;
  /** GET /grants and DELETE /grants/:id, for /ui/api/oauth. */
  grantsApi: express.Router;
  /** Makes `url` (the public URL) the issuer; a new one replaces the provider. */
  setPublicUrl(url: string): Promise<void>;
  close(): Promise<void>;
}

interface Live {
  issuer: string;
  resource: string;
  provider: Provider;
  handle: ReturnType<Provider['callback']>;
  guard: express.RequestHandler;
  resourceMetadataPath: string;
}

/** The innermost cause's message: fetch wraps the network's error in its own. */
function causeOf(error: unknown): string | undefined {
  let cause = (error as { cause?: unknown }).cause;
  let message: string | undefined;
  for (let depth = 0; cause instanceof Error && depth < 4; depth += 1) {
    message = cause.message;
    cause = cause.cause;
  }
  return message;
}

const notYet = () =>
  new HttpError(503, 'OAuth waits for the public URL (the tunnel is starting): retry in a moment');

export function createOAuth(options: OAuthOptions): OAuthServer {
  let live: Live | undefined;
  const current = (): Live => {
    if (!live) throw notYet();
    return live;
  };
  const grants = new Grants(options.store, () => live?.resource);

  const routes = express.Router();
  routes.get('/ui/consent', consentPage());
  routes.use(
    '/oauth/interaction',
    consentApi({
      provider: () => current().provider,
      resource: () => current().resource,
      clock: options.clock,
      authToken: options.authToken,
      tokens: options.tokens,
      namespaces: options.namespaces,
      sameOrigin: options.sameOrigin,
    }),
  );
  // A registration flood is bounded twice: per address, and in all (unused clients expire in a day).
  routes.post(
    '/oauth/register',
    rateLimit({
      windowMs: 3_600_000,
      limit: REGISTRATIONS_PER_HOUR,
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      handler: (_req, res) => {
        res.status(429).json({
          error: 'temporarily_unavailable',
          error_description: `more than ${REGISTRATIONS_PER_HOUR} registrations an hour from this address`,
        });
      },
    }),
    (req, res, next) => {
      const length = Number(req.headers['content-length'] ?? Number.NaN);
      if (Number.isInteger(length) && length <= REGISTRATION_MAX_BYTES) {
        next();
        return;
      }
      res.status(req.headers['content-length'] === undefined ? 411 : 413).json({
        error: 'invalid_client_metadata',
        error_description: `send the client's metadata with a Content-Length of ${REGISTRATION_MAX_BYTES} bytes at most`,
      });
    },
    async (_req, res, next) => {
      if ((await options.store.count('Client')) < MAX_CLIENTS) {
        next();
        return;
      }
      options.logger.warn(
        { clients: MAX_CLIENTS },
        'oauth: registration refused, too many clients',
      );
      res.status(503).set('Retry-After', '3600').json({
        error: 'temporarily_unavailable',
        error_description: 'too many registered clients: unused ones expire within a day',
      });
    },
  );
  routes.use((req, res, next) => {
    const path = req.path;
    if (path.startsWith('/.well-known/oauth-protected-resource')) {
      const { resourceMetadataPath, resource, issuer } = current();
      if (path !== resourceMetadataPath) throw new HttpError(404, 'not found: no such resource');
      res.set('Cache-Control', 'max-age=300').json(protectedResourceMetadata(resource, issuer));
      return;
    }
    const asMetadata = path === '/.well-known/oauth-authorization-server';
    if (
      !asMetadata &&
      path !== '/.well-known/openid-configuration' &&
      !path.startsWith('/oauth/')
    ) {
      next();
      return;
    }
    const { issuer, handle } = current();
    // RFC 8414's document is the provider's discovery, word for word.
    if (asMetadata) req.url = '/.well-known/openid-configuration';
    // A client that asks for no scope (OAuth 2.1 lets it) asks for the resource's: oidc-provider
    // grants nothing to a request without one.
    if (req.method === 'GET' && path === ROUTES.authorization && req.query.scope === undefined) {
      req.url += `${req.url.includes('?') ? '&' : '?'}scope=${RESOURCE_SCOPE}`;
    }
    // The provider answers as the public URL whatever the tunnel or proxy sent on.
    const publicUrl = new URL(issuer);
    req.headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1);
    req.headers['x-forwarded-host'] = publicUrl.host;
    handle(req, res).catch(next);
  });

  return {
    routes,
    guard: (req, res, next) => current().guard(req, res, next),
    grants,
    grantsApi: grantsApi(grants),
    async setPublicUrl(url) {
      const issuer = new URL(url).origin;
      const resource = `${url}${CONNECT_MCP}`;
      if (live?.resource === resource) return;
      const provider = await createProvider({
        issuer,
        resource,
        store: options.store,
        clock: options.clock,
        clientIdMetadataDocuments: options.clientIdMetadataDocuments !== false,
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
      provider.proxy = true;
      bindConsent(provider);
      provider.on('authorization.error', (_ctx, error) =>
        options.logger.warn(
          {
            err: (error as Error).message,
            d: (error as { error_description?: string }).error_description,
            // Why a client document was refused (not JSON, too big, a special-use address):
            // for the log, not the client, which must learn nothing of the network from it.
            cause: causeOf(error),
          },
          'oauth: authorization refused',
        ),
      );
      provider.on('server_error', (_ctx, error) =>
        options.logger.error({ err: (error as Error).message }, 'oauth: provider error'),
      );
      const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(new URL(resource));
      live = {
        issuer,
        resource,
        provider,
        handle: provider.callback(),
        guard: connectGuard({
          provider,
          store: options.store,
          resource,
          resourceMetadataUrl,
          clock: options.clock,
        }),
        resourceMetadataPath: new URL(resourceMetadataUrl).pathname,
      };
      options.logger.info({ issuer, resource }, 'oauth: serving');
    },
    close: () => options.store.close(),
  };
}
