// An in-process `mnemo serve` with OAuth on (the public URL is its own loopback URL), and a
// client that walks the OAuth flow with plain fetch: register, authorize with PKCE, consent
// through the API, token, refresh.
import { createHash, randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createOAuth, type OAuthServer } from '../../src/oauth/index.js';
import { openOAuthStore } from '../../src/oauth/open-store.js';
import type { ProviderFetch } from '../../src/oauth/provider.js';
import { createServer } from '../../src/server.js';
import { refuseOtherOrigins } from '../../src/transport/callers.js';
import { createHttpApp } from '../../src/transport/http.js';
import { listen, type RunningHttp } from '../../src/transport/listen.js';
import type { TestMemory } from '../support.js';

export const ADMIN = 'admin-token-0123456789abcdef';
export const REDIRECT = 'http://127.0.0.1:9/callback';

export interface OAuthHarness {
  url: string;
  resource: string;
  oauth: OAuthServer;
  /** Moves the store's clock (seconds). */
  advance(seconds: number): void;
  close(): Promise<void>;
}

/** A clock that starts now and moves only when told: the store's expiry follows it. */
export function settableClock() {
  let offset = 0;
  return {
    read: () => Math.floor(Date.now() / 1000) + offset,
    advance: (seconds: number) => {
      offset += seconds;
    },
  };
}

/**
 * `publicUrl` is another replica's URL, as behind a load balancer: this one then serves that
 * resource (its tokens, its grants) over its own store of the same memory. `extra.fetch` stands
 * in for the network when a client's metadata document is fetched.
 */
export async function startOAuthServer(
  t: TestMemory,
  clock = settableClock(),
  publicUrl?: string,
  extra: { fetch?: ProviderFetch; clientIdMetadataDocuments?: boolean } = {},
): Promise<OAuthHarness> {
  // On PostgreSQL the memory's store makes the table.
  await t.opened.connected;
  const oauth = createOAuth({
    store: openOAuthStore(t.config, clock.read),
    clock: clock.read,
    logger: t.logger,
    authToken: ADMIN,
    tokens: [],
    namespaces: () => ['default', 'work'],
    sameOrigin: refuseOtherOrigins,
    ...extra,
  });
  const app = createHttpApp({
    createMcpServer: (namespace) =>
      createServer({ memory: t.opened.memoryFor(namespace), logger: t.logger }),
    authToken: ADMIN,
    allowedHosts: [],
    bodyLimit: '1mb',
    logger: t.logger,
    health: () => ({ status: 'ok' }),
    oauth: { routes: oauth.routes, guard: oauth.guard, grantsApi: oauth.grantsApi },
  });
  const running: RunningHttp = await listen(app, '127.0.0.1', 0);
  await oauth.setPublicUrl(publicUrl ?? running.url);
  return {
    url: running.url,
    resource: `${publicUrl ?? running.url}/connect/mcp`,
    oauth,
    advance: clock.advance,
    async close() {
      await running.close(100);
      await oauth.close();
    },
  };
}

/** The cookies a browser would keep, as one Cookie header. */
class Jar {
  private readonly cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = (pair ?? '').indexOf('=');
      const name = (pair ?? '').slice(0, at);
      const value = (pair ?? '').slice(at + 1);
      if (value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

export async function register(
  url: string,
  metadata: Record<string, unknown> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test client',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...metadata,
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export interface Authorization {
  uid: string;
  jar: Jar;
  /** The resume URL's answer once consent is given: a redirect to the client. */
  finish(answer: { redirect: string }): Promise<URL>;
}

/** GET /oauth/authorize as a browser: follows to the consent page's uid. */
export async function authorize(
  url: string,
  params: Record<string, string>,
): Promise<Authorization | { error: URL | string }> {
  const jar = new Jar();
  const response = await fetch(`${url}/oauth/authorize?${new URLSearchParams(params)}`, {
    redirect: 'manual',
  });
  jar.take(response);
  const location = response.headers.get('location');
  if (location === null) return { error: `${response.status} ${await response.text()}` };
  const to = new URL(location, url);
  const uid = to.searchParams.get('uid');
  if (!to.pathname.startsWith('/ui/consent') || uid === null) return { error: to };
  return {
    uid,
    jar,
    async finish(answer) {
      const resumed = await fetch(new URL(answer.redirect, url), {
        redirect: 'manual',
        headers: { cookie: jar.header() },
      });
      jar.take(resumed);
      return new URL(resumed.headers.get('location') ?? '', url);
    },
  };
}

/**
 * The page's answer, from the browser of `started` (its cookies); a bare uid answers from a
 * browser that did not start the flow.
 */
export async function consent(
  url: string,
  started: Authorization | string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const uid = typeof started === 'string' ? started : started.uid;
  const cookie: Record<string, string> =
    typeof started === 'string' ? {} : { cookie: started.jar.header() };
  const response = await fetch(`${url}/oauth/interaction/${uid}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...cookie, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export async function token(
  url: string,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, string> }> {
  const response = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

export interface Tokens {
  clientId: string;
  access: string;
  refresh: string;
}

/** The whole flow to tokens, for `namespaces`. */
export async function connect(
  h: OAuthHarness,
  namespaces: string[] = ['default'],
): Promise<Tokens> {
  const client = await register(h.url);
  const clientId = String(client.body.client_id);
  const { verifier, challenge } = pkce();
  const started = await authorize(h.url, {
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st',
    resource: h.resource,
  });
  if ('error' in started) throw new Error(`authorize: ${started.error}`);
  const answer = await consent(h.url, started, { token: ADMIN, decision: 'allow', namespaces });
  if (answer.status !== 200) throw new Error(`consent: ${JSON.stringify(answer.body)}`);
  const back = await started.finish(answer.body as { redirect: string });
  const code = back.searchParams.get('code');
  if (code === null) throw new Error(`no code: ${back}`);
  const tokens = await token(h.url, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
  });
  if (tokens.status !== 200) throw new Error(`token: ${JSON.stringify(tokens.body)}`);
  return {
    clientId,
    access: tokens.body.access_token as string,
    refresh: tokens.body.refresh_token as string,
  };
}

/** An MCP client of /connect/mcp with `access`. */
export async function mcpClient(h: OAuthHarness, access: string): Promise<Client> {
  const client = new Client({ name: 'oauth-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(h.resource), {
      requestInit: { headers: { Authorization: `Bearer ${access}` } },
    }),
  );
  return client;
}

/** A raw tools/list to /connect/mcp: its status and WWW-Authenticate. */
export async function rawCall(
  h: OAuthHarness,
  access: string | undefined,
): Promise<{ status: number; challenge: string | null }> {
  const response = await fetch(`${h.url}/connect/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(access === undefined ? {} : { authorization: `Bearer ${access}` }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    }),
  });
  await response.text();
  return { status: response.status, challenge: response.headers.get('www-authenticate') };
}
