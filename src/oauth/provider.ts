// oidc-provider configured for mnemo: OAuth 2.1 for MCP clients (claude.ai, ChatGPT), one
// resource (the /connect/mcp URL), one account (the person who runs mnemo). Everything protocol
// is oidc-provider's; what is here is policy.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { type ClientMetadata, errors, Provider } from 'oidc-provider';
import { StoreAdapter } from './adapter.js';
import { keyOf, type OAuthStore } from './store.js';

/** The only account: a grant is the person's, whoever holds the admin token. */
export const ACCOUNT = 'owner';

export const LIFETIMES = {
  /** An access token: an hour, then the client refreshes. */
  accessToken: 3_600,
  /** A refresh token: 30 days from its last use (each use rotates it). */
  refreshToken: 30 * 86_400,
  /** A grant: 90 days, then the person consents again. */
  grant: 90 * 86_400,
  authorizationCode: 60,
  /** The consent step, from authorize to the person's answer. */
  interaction: 600,
} as const;

export const ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  end_session: '/oauth/session/end',
  userinfo: '/oauth/userinfo',
  introspection: '/oauth/introspect',
  pushed_authorization_request: '/oauth/par',
  code_verification: '/oauth/device',
  device_authorization: '/oauth/device/auth',
  backchannel_authentication: '/oauth/backchannel',
  challenge: '/oauth/challenge',
  credential: '/oauth/credential',
} as const;

/** The scope of /connect/mcp a client asks for; the namespaces are the grant's, not scopes asked. */
export const RESOURCE_SCOPE = 'mcp';

/** The consent page, given the interaction's uid. */
export const consentPath = (uid: string) => `/ui/consent?uid=${encodeURIComponent(uid)}`;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** https, or http to this machine only (a desktop client's callback): RFC 9700 and OAuth 2.1. */
export function redirectUriProblem(uri: string): string | undefined {
  const parsed = URL.parse(uri);
  if (!parsed) return 'is not a URL';
  // A native client's own scheme (`app:/cb`) names no host the consent page could show, and any
  // app on the person's machine may claim it.
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return 'must use https (http only to a loopback address: 127.0.0.1, [::1], localhost)';
  }
  if (parsed.protocol === 'http:' && !LOOPBACK_HOSTS.has(parsed.hostname)) {
    return 'must use https (http only to a loopback address: 127.0.0.1, [::1], localhost)';
  }
  return undefined;
}

/** A metadata document (Client ID Metadata Documents) is this big at most, in bytes. */
export const METADATA_DOCUMENT_MAX_BYTES = 5 * 1024;
/**
 * Metadata documents fetched a minute, in all: each is an outgoing request anyone on the
 * internet can cause by naming a new URL as its client_id.
 */
export const METADATA_FETCHES_PER_MINUTE = 30;
/** A fetched document is kept this long (seconds), whatever its Cache-Control asks. */
export const METADATA_CACHE_SECONDS = { min: 60, max: 3_600 } as const;
/** A client's JWKS or sector identifier document (fetched only for such clients), in bytes. */
const OTHER_DOCUMENT_MAX_BYTES = 64 * 1024;

/** The fetch oidc-provider calls: `init` carries its SSRF-guarded undici dispatcher. */
export type ProviderFetch = (
  url: string,
  init: RequestInit & { dispatcher?: unknown },
) => Promise<Response>;

/**
 * Why a client_id URL is not fetched at all, before any connection: not https, an address
 * literal or this machine's own name. A name that resolves to such an address meets
 * oidc-provider's SSRF guard.
 */
export function metadataUrlProblem(id: string): string | undefined {
  const url = URL.parse(id);
  if (!url) return 'is not a URL';
  if (url.protocol !== 'https:') return 'is not an https URL';
  const host = url.hostname.toLowerCase();
  if (isIP(host.replace(/^\[|\]$/g, '')) !== 0) return 'names an IP address, not a host name';
  // `localhost.` is this machine too, and `0x7f.1..` without its dots is an address: the URL
  // parser reads a name ending in a number as an address only when one dot at most follows it.
  if (host.endsWith('.')) return 'names a host with a trailing dot';
  if (host === 'localhost' || host.endsWith('.localhost')) return 'names this machine';
  return undefined;
}

/**
 * oidc-provider guards its fetches against special-use addresses (loopback, private,
 * link-local) with an undici dispatcher of its own; when it cannot make one it warns and fetches
 * unguarded. Here a fetch without the guard is refused, so no client document is ever fetched
 * unguarded: Client ID Metadata Documents are then off in effect. Redirects are never followed
 * (a 3xx is not the 200 a document needs).
 */
export function guardedFetch(inner: ProviderFetch): ProviderFetch {
  return (url, init) => {
    if (init.dispatcher === undefined) {
      return Promise.reject(
        new Error(
          'no SSRF guard: oidc-provider could not set up its dispatcher on this Node.js, so client documents are not fetched',
        ),
      );
    }
    return inner(url, { ...init, redirect: 'manual' });
  };
}

/** At most `limit` in any `window` seconds of `clock`. */
function budget(limit: number, window: number, clock: () => number): () => boolean {
  const spent: number[] = [];
  return () => {
    const now = clock();
    while (spent.length > 0 && (spent[0] ?? now) <= now - window) spent.shift();
    if (spent.length >= limit) return false;
    spent.push(now);
    return true;
  };
}

/** The secrets every process serving this store signs with: made once, shared, kept. */
async function secretsOf(store: OAuthStore): Promise<{ cookieKey: string; jwk: object }> {
  const entry = await store.claim(keyOf('Secrets', 'provider'), () => ({
    model: 'Secrets',
    payload: {
      cookieKey: randomBytes(32).toString('base64url'),
      jwk: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
        format: 'jwk',
      }),
    },
  }));
  return entry.payload as { cookieKey: string; jwk: object };
}

export interface ProviderOptions {
  /** The public URL's origin: discovery is at its root. */
  issuer: string;
  /** The URL of /connect/mcp: the only resource a token may be for. */
  resource: string;
  store: OAuthStore;
  /** Epoch seconds, for the store's expiry. */
  clock: () => number;
  /** Whether a client may be known by the URL of its metadata document instead of registering. */
  clientIdMetadataDocuments?: boolean;
  /**
   * Tests only (https cannot be served in a test): stands in for the network. The SSRF guard
   * check still applies to it. Unset, oidc-provider's fetch is the global one.
   */
  fetch?: ProviderFetch;
}

export async function createProvider(options: ProviderOptions): Promise<Provider> {
  const { resource, store, clock } = options;
  const secrets = await secretsOf(store);
  const mayFetch = budget(METADATA_FETCHES_PER_MINUTE, 60, clock);
  const provider = new Provider(options.issuer, {
    adapter: (model: string) => new StoreAdapter(model, store, clock),
    clients: [],
    findAccount: (_ctx: unknown, sub: string) =>
      sub === ACCOUNT ? { accountId: sub, claims: () => ({ sub }) } : undefined,
    claims: { openid: ['sub'] },
    scopes: ['openid', 'offline_access'],
    responseTypes: ['code'],
    routes: ROUTES,
    jwks: { keys: [{ ...secrets.jwk, use: 'sig', alg: 'ES256' }] },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: 'ES256',
    },
    cookies: {
      keys: [secrets.cookieKey],
      long: { httpOnly: true, sameSite: 'lax', signed: true },
      short: { httpOnly: true, sameSite: 'lax', signed: true },
    },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      registration: {
        enabled: true,
        initialAccessToken: false,
        issueRegistrationAccessToken: false,
      },
      registrationManagement: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (indicator !== resource)
            throw new errors.InvalidTarget(`the only resource is ${resource}`);
          return {
            scope: RESOURCE_SCOPE,
            audience: resource,
            accessTokenTTL: LIFETIMES.accessToken,
            accessTokenFormat: 'opaque',
          };
        },
      },
      revocation: { enabled: true },
      introspection: { enabled: false },
      userinfo: { enabled: false },
      clientCredentials: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      ...(options.clientIdMetadataDocuments
        ? {
            clientIdMetadataDocument: {
              enabled: true,
              ack: 'draft-02',
              allowFetch: (_ctx: unknown, id: string) =>
                metadataUrlProblem(id) === undefined && mayFetch(),
              cacheDuration: METADATA_CACHE_SECONDS,
            },
          }
        : {}),
    },
    // Every fetch of a client's document: 2.5 s in all (oidc-provider's AbortSignal), capped in
    // size, SSRF-guarded, no redirects. oidc-provider keeps at most 100 documents (an LRU).
    fetch: guardedFetch(options.fetch ?? ((url, init) => globalThis.fetch(url, init))),
    fetchResponseBodyLimits: {
      'client_id metadata document': METADATA_DOCUMENT_MAX_BYTES,
      jwks_uri: OTHER_DOCUMENT_MAX_BYTES,
      sector_identifier_uri: OTHER_DOCUMENT_MAX_BYTES,
    },
    // Refresh tokens for every client allowed them, whether or not it asked for offline_access,
    // rotated on each use; tokens outlive the browser session of the consent.
    issueRefreshToken: (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
      client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    expiresWithSession: () => false,
    // Every authorization asks the person: the grant is the one this consent made, never one
    // an earlier consent in the same browser made.
    loadExistingGrant: (ctx: {
      oidc: {
        result?: { consent?: { grantId?: string } };
        provider: Provider;
      };
    }) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId === undefined ? undefined : ctx.oidc.provider.Grant.find(grantId);
    },
    interactions: {
      url: (_ctx: unknown, interaction: { uid: string }) => consentPath(interaction.uid),
    },
    ttl: {
      AccessToken: LIFETIMES.accessToken,
      AuthorizationCode: LIFETIMES.authorizationCode,
      RefreshToken: LIFETIMES.refreshToken,
      Grant: LIFETIMES.grant,
      Interaction: LIFETIMES.interaction,
      Session: LIFETIMES.interaction,
      IdToken: LIFETIMES.accessToken,
    },
    clientBasedCORS: () => false,
    renderError: (ctx: { type: string; body: string }, out: Record<string, string>) => {
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = `mnemo could not authorize this client: ${out.error ?? 'error'}${
        out.error_description ? ` (${out.error_description})` : ''
      }\n`;
    },
  });
  // https redirect URIs, or http to loopback, besides oidc-provider's own checks.
  const schema = provider.Client.Schema.prototype;
  const checkRedirectUris = schema.redirectUris;
  schema.redirectUris = function (
    this: ClientMetadata,
    uris = this.redirect_uris,
    label = 'redirect_uris',
  ) {
    checkRedirectUris.call(this, uris, label);
    for (const uri of uris) {
      const problem = redirectUriProblem(uri);
      if (problem) this.invalidate(`${label}: ${uri} ${problem}`);
    }
  };
  // A client may register asking for the resource's scope: the MCP SDKs ask for what the resource
  // metadata lists (scopes_supported), and oidc-provider knows only its OpenID scopes. The check
  // sees the others; the resource's is kept (oidc-provider limits a client to its OpenID ones).
  const checkScopes = schema.scopes;
  schema.scopes = function (this: ClientMetadata) {
    const asked = (this.scope ?? '').split(' ').filter(Boolean);
    if (!asked.includes(RESOURCE_SCOPE)) {
      checkScopes.call(this);
      return;
    }
    const others = asked.filter((scope) => scope !== RESOURCE_SCOPE);
    this.scope = others.length > 0 ? others.join(' ') : undefined;
    checkScopes.call(this);
    this.scope = [RESOURCE_SCOPE, ...(this.scope ?? '').split(' ').filter(Boolean)].join(' ');
  };
  return provider;
}
