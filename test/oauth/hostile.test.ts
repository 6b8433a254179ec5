import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { REGISTRATION_MAX_BYTES, REGISTRATIONS_PER_HOUR } from '../../src/oauth/index.js';
import { openTestMemory, type TestMemory } from '../support.js';
import {
  ADMIN,
  authorize,
  consent,
  type OAuthHarness,
  pkce,
  REDIRECT,
  rawCall,
  register,
  startOAuthServer,
  token,
} from './support-oauth.js';

describe('OAuth against a hostile client, page or thief', () => {
  let t: TestMemory;
  let h: OAuthHarness;
  let clientId: string;
  before(async () => {
    t = await openTestMemory();
    h = await startOAuthServer(t);
    clientId = String((await register(h.url)).body.client_id);
  });
  after(async () => {
    await h.close();
    await t.close();
  });

  const params = (challenge: string, extra: Record<string, string> = {}) => ({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 's',
    ...extra,
  });

  /** A code the person consented to, and its verifier. */
  async function codeFor(): Promise<{ code: string; verifier: string }> {
    const { verifier, challenge } = pkce();
    const started = await authorize(h.url, params(challenge));
    assert.ok(!('error' in started), String('error' in started && started.error));
    const answer = await consent(h.url, started, {
      token: ADMIN,
      decision: 'allow',
      namespaces: ['default'],
    });
    const back = await started.finish(answer.body as { redirect: string });
    return { code: back.searchParams.get('code') ?? '', verifier };
  }

  const exchange = (code: string, verifier: string, redirect = REDIRECT) =>
    token(h.url, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirect,
      client_id: clientId,
      code_verifier: verifier,
    });

  it('a stolen code replayed: refused, and the tokens of its first use revoked', async () => {
    const { code, verifier } = await codeFor();
    const first = await exchange(code, verifier);
    assert.equal(first.status, 200);
    assert.equal((await rawCall(h, first.body.access_token)).status, 200);
    const replay = await exchange(code, verifier);
    assert.equal(replay.status, 400);
    assert.equal(replay.body.error, 'invalid_grant');
    assert.equal((await rawCall(h, first.body.access_token)).status, 401);
  });

  it('a code with the wrong verifier: refused', async () => {
    const { code } = await codeFor();
    const wrong = await exchange(code, pkce().verifier);
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error, 'invalid_grant');
  });

  it('plain PKCE, or none: refused at authorize', async () => {
    const { verifier } = pkce();
    const plain = await authorize(h.url, params(verifier, { code_challenge_method: 'plain' }));
    assert.ok('error' in plain);
    assert.match(String(plain.error), /error=invalid_request/);
    const { code_challenge: _c, code_challenge_method: _m, ...without } = params('x');
    const none = await authorize(h.url, without);
    assert.ok('error' in none);
    assert.match(String(none.error), /error=invalid_request/);
  });

  it('a token for another resource is never issued', async () => {
    const started = await authorize(
      h.url,
      params(pkce().challenge, { resource: 'https://elsewhere.example/mcp' }),
    );
    assert.ok('error' in started);
    assert.match(String(started.error), /error=invalid_target/);
  });

  it('a redirect URI off by one character: refused, and nothing is sent there', async () => {
    const started = await authorize(
      h.url,
      params(pkce().challenge, { redirect_uri: `${REDIRECT}x` }),
    );
    assert.ok('error' in started);
    assert.match(String(started.error), /^400 .*redirect_uri/s);
  });

  it('an http redirect URI that is not loopback: refused at registration; https and loopback are taken', async () => {
    const http = await register(h.url, { redirect_uris: ['http://client.example/callback'] });
    assert.equal(http.status, 400);
    assert.match(String(http.body.error_description), /must use https/);
    assert.equal(
      (await register(h.url, { redirect_uris: ['https://client.example/cb'] })).status,
      201,
    );
  });

  it("a native client's own scheme: refused at registration, as the consent page could show no host", async () => {
    for (const uri of ['evil:/cb', 'com.example.app:/oauth/callback', 'cursor-like://x/cb']) {
      const native = await register(h.url, { redirect_uris: [uri], application_type: 'native' });
      assert.equal(native.status, 400, uri);
      assert.match(String(native.body.error_description), /must use https/);
    }
    const loopback = await register(h.url, {
      redirect_uris: ['http://127.0.0.1:7777/cb'],
      application_type: 'native',
    });
    assert.equal(loopback.status, 201);
  });

  it('a registration metadata bomb (a long name, a thousand redirect URIs): refused, nothing stored', async () => {
    const before = await h.oauth.grants.list();
    const name = await register(h.url, { client_name: 'x'.repeat(40_000) });
    assert.equal(name.status, 413);
    assert.equal(name.body.error, 'invalid_client_metadata');
    const many = Array.from({ length: 1000 }, (_, i) => `https://c${i}.example/cb`);
    assert.equal((await register(h.url, { redirect_uris: many })).status, 413);
    const chunked = await fetch(`${h.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Blob([JSON.stringify({ redirect_uris: [REDIRECT] })]).stream(),
      duplex: 'half',
    } as RequestInit);
    assert.equal(chunked.status, 411);
    assert.ok(JSON.stringify({ redirect_uris: [REDIRECT] }).length < REGISTRATION_MAX_BYTES);
    assert.deepEqual(await h.oauth.grants.list(), before);
  });

  it('a consent posted from another origin: refused, and no grant made', async () => {
    const started = await authorize(h.url, params(pkce().challenge));
    assert.ok(!('error' in started));
    const before = (await h.oauth.grants.list()).length;
    const body = { token: ADMIN, decision: 'allow', namespaces: ['default'] };
    const site = await consent(h.url, started, body, { 'sec-fetch-site': 'cross-site' });
    assert.equal(site.status, 403);
    const origin = await consent(h.url, started, body, { origin: 'http://127.0.0.1:1' });
    assert.equal(origin.status, 403);
    assert.equal((await h.oauth.grants.list()).length, before);
  });

  it('a wrong admin token: 401, no grant made, and the person can still answer', async () => {
    const started = await authorize(h.url, params(pkce().challenge));
    assert.ok(!('error' in started));
    const before = (await h.oauth.grants.list()).length;
    const wrong = await consent(h.url, started, {
      token: `${ADMIN}x`,
      decision: 'allow',
      namespaces: ['default'],
    });
    assert.equal(wrong.status, 401);
    assert.equal((await h.oauth.grants.list()).length, before);
    const denied = await consent(h.url, started, { token: ADMIN, decision: 'deny' });
    assert.equal(denied.status, 200);
    const back = await started.finish(denied.body as { redirect: string });
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal((await h.oauth.grants.list()).length, before);
  });

  it("a stranger's flow, its consent link sent to the person: the person's browser cannot answer it", async () => {
    // The stranger starts an authorization in its own browser and sends the person the link.
    const stranger = await authorize(h.url, params(pkce().challenge));
    assert.ok(!('error' in stranger));
    // The person's browser started another flow: its cookie is for that one, not the stranger's.
    const own = await authorize(h.url, params(pkce().challenge));
    assert.ok(!('error' in own));
    const before = (await h.oauth.grants.list()).length;
    const body = { token: ADMIN, decision: 'allow', namespaces: ['default'] };
    const shown = await fetch(`${h.url}/oauth/interaction/${stranger.uid}`, {
      headers: { cookie: own.jar.header() },
    });
    assert.equal(shown.status, 404);
    const bare = await consent(h.url, stranger.uid, body);
    assert.equal(bare.status, 404);
    const crossed = await consent(h.url, stranger.uid, body, { cookie: own.jar.header() });
    assert.equal(crossed.status, 404);
    assert.equal((await h.oauth.grants.list()).length, before, 'no grant made');
    // The stranger's own browser still finishes nothing: no consent was given.
    const resumed = await fetch(`${h.url}/oauth/authorize/${stranger.uid}`, {
      redirect: 'manual',
      headers: { cookie: stranger.jar.header() },
    });
    assert.equal(
      new URL(resumed.headers.get('location') ?? '', h.url).searchParams.get('code'),
      null,
    );
    // The browser that started a flow answers it.
    const mine = await consent(h.url, own, body);
    assert.equal(mine.status, 200);
  });

  it('the consent API names the client and its redirect host', async () => {
    const started = await authorize(h.url, params(pkce().challenge));
    assert.ok(!('error' in started));
    const shown = async (authorization?: string) =>
      (await (
        await fetch(`${h.url}/oauth/interaction/${started.uid}`, {
          headers: {
            cookie: started.jar.header(),
            ...(authorization === undefined ? {} : { authorization }),
          },
        })
      ).json()) as Record<string, unknown>;
    assert.deepEqual(await shown(`Bearer ${ADMIN}`), {
      client: { id: clientId, name: 'Test client', redirect_host: '127.0.0.1:9' },
      namespaces: ['default', 'work'],
      resource: h.resource,
    });
    // Whoever starts a flow (anyone who can register) learns no namespace of the memory.
    assert.deepEqual((await shown()).namespaces, []);
    assert.deepEqual((await shown(`Bearer ${ADMIN}x`)).namespaces, []);
  });

  it('discovery: RFC 8414 mirrors the provider, RFC 9728 names the resource', async () => {
    const as = (await (
      await fetch(`${h.url}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    assert.equal(as.issuer, h.url);
    assert.equal(as.registration_endpoint, `${h.url}/oauth/register`);
    assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
    const prm = (await (
      await fetch(`${h.url}/.well-known/oauth-protected-resource/connect/mcp`)
    ).json()) as Record<string, unknown>;
    assert.equal(prm.resource, h.resource);
    assert.deepEqual(prm.authorization_servers, [h.url]);
  });

  // Last: it spends this address's registrations.
  it('a registration flood is bounded per address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < REGISTRATIONS_PER_HOUR + 2; i++)
      statuses.push((await register(h.url)).status);
    assert.ok(statuses.includes(429), `statuses: ${statuses.join(' ')}`);
  });
});
