// Client ID Metadata Documents: a client known by the https URL of its metadata, which mnemo
// fetches. https cannot be served here, so a stand-in fetch serves the documents; the last
// tests use the real network path and oidc-provider's SSRF guard.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  guardedFetch,
  METADATA_DOCUMENT_MAX_BYTES,
  METADATA_FETCHES_PER_MINUTE,
  type ProviderFetch,
} from '../../src/oauth/provider.js';
import { openTestMemory, type TestMemory } from '../support.js';
import {
  ADMIN,
  authorize,
  consent,
  mcpClient,
  type OAuthHarness,
  pkce,
  REDIRECT,
  startOAuthServer,
  token,
} from './support-oauth.js';

const CLIENT = 'https://client.example/meta.json';

const documentFor = (id: string, extra: Record<string, unknown> = {}) => ({
  client_id: id,
  client_name: 'Example CIMD client',
  redirect_uris: [REDIRECT],
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  ...extra,
});

/** The documents the stand-in network serves, by URL: a body, or a JSON value. */
const served = new Map<string, string | Record<string, unknown>>([
  [CLIENT, documentFor(CLIENT)],
  ['https://client.example/other.json', documentFor('https://client.example/meta.json')],
  [
    'https://client.example/evil-redirect.json',
    documentFor('https://client.example/evil-redirect.json', {
      redirect_uris: ['http://evil.example/callback'],
    }),
  ],
  ['https://client.example/not-json.json', '<html>hello</html>'],
  [
    'https://client.example/big.json',
    documentFor('https://client.example/big.json', {
      client_name: 'x'.repeat(METADATA_DOCUMENT_MAX_BYTES),
    }),
  ],
  ['https://client.example/array.json', '[1, 2]'],
]);

const fetched: string[] = [];
const standIn: ProviderFetch = async (url) => {
  fetched.push(url);
  const body = served.get(url);
  if (body === undefined) return new Response('not found', { status: 404 });
  return new Response(typeof body === 'string' ? body : JSON.stringify(body), {
    headers: { 'content-type': 'application/json' },
  });
};

const start = (id: string, challenge: string, redirect = REDIRECT) => ({
  client_id: id,
  redirect_uri: redirect,
  response_type: 'code',
  code_challenge: challenge,
  code_challenge_method: 'S256',
  state: 'st',
});

describe('Client ID Metadata Documents', () => {
  let t: TestMemory;
  let h: OAuthHarness;
  before(async () => {
    t = await openTestMemory();
    h = await startOAuthServer(t, undefined, undefined, { fetch: standIn });
  });
  after(async () => {
    await h.close();
    await t.close();
  });

  it('the discovery metadata says they are supported', async () => {
    const meta = (await (
      await fetch(`${h.url}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    assert.equal(meta.client_id_metadata_document_supported, true);
  });

  it('the whole flow with a URL as client_id: consent shows its name and host, token, call', async () => {
    const { verifier, challenge } = pkce();
    const started = await authorize(h.url, { ...start(CLIENT, challenge), resource: h.resource });
    assert.ok(!('error' in started), String('error' in started && started.error));
    const shown = (await (
      await fetch(`${h.url}/oauth/interaction/${started.uid}`, {
        headers: { cookie: started.jar.header() },
      })
    ).json()) as {
      client: { id: string; name: string; redirect_host: string };
    };
    assert.deepEqual(shown.client, {
      id: CLIENT,
      name: 'Example CIMD client',
      redirect_host: new URL(REDIRECT).host,
    });
    const answer = await consent(h.url, started, {
      token: ADMIN,
      decision: 'allow',
      namespaces: ['default'],
    });
    assert.equal(answer.status, 200);
    const back = await started.finish(answer.body as { redirect: string });
    const code = back.searchParams.get('code');
    assert.ok(code, String(back));
    const tokens = await token(h.url, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: CLIENT,
      code_verifier: verifier,
    });
    assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
    const client = await mcpClient(h, tokens.body.access_token as string);
    const tools = await client.listTools();
    assert.ok(tools.tools.length > 0);
    await client.close();
    // Fetched once, then served from the cache.
    assert.equal(fetched.filter((url) => url === CLIENT).length, 1);
  });

  /** The authorize answer for `id`: the error page's text, or a redirect. */
  async function refusal(id: string, redirect = REDIRECT): Promise<string> {
    const started = await authorize(h.url, start(id, pkce().challenge, redirect));
    assert.ok('error' in started, `${id} was accepted`);
    return String(started.error);
  }

  it('a client_id URL with a fragment, credentials or dot segments: refused, never fetched', async () => {
    for (const id of [
      'https://client.example/meta.json#x',
      'https://user:pw@client.example/meta.json',
      'https://client.example/a/../meta.json',
      'https://client.example/a/%2e%2e/meta.json',
    ]) {
      const before = fetched.length;
      assert.match(await refusal(id), /invalid_client|invalid_request/);
      assert.equal(fetched.length, before, `${id} was fetched`);
    }
  });

  it('an address or this machine as the host: refused before any connection', async () => {
    for (const id of [
      'https://10.0.0.1/x.json',
      'https://[::1]/x.json',
      'https://localhost/x.json',
    ]) {
      const before = fetched.length;
      assert.match(await refusal(id), /^400 .*invalid_client.*fetch not allowed/s);
      assert.equal(fetched.length, before, `${id} was fetched`);
    }
  });

  it('a document whose client_id is another URL: refused', async () => {
    assert.match(await refusal('https://client.example/other.json'), /^400 .*invalid_client/s);
  });

  it('a redirect_uri not in the document: refused', async () => {
    assert.match(await refusal(CLIENT, 'http://127.0.0.1:9/callbacK'), /^400 .*redirect_uri/s);
  });

  it('a document whose redirect_uris break the registration rules (plain http off this machine): refused', async () => {
    assert.match(
      await refusal('https://client.example/evil-redirect.json', 'http://evil.example/callback'),
      /^400 .*must use https/s,
    );
  });

  it('a document that is not JSON, too big, not an object, or missing: refused', async () => {
    for (const id of [
      'https://client.example/not-json.json',
      'https://client.example/big.json',
      'https://client.example/array.json',
      'https://client.example/missing.json',
    ]) {
      assert.match(await refusal(id), /^400 .*invalid_client/s, id);
    }
  });
});

describe('Client ID Metadata Documents, bounded', () => {
  it('without the SSRF dispatcher nothing is fetched', async () => {
    let called = false;
    const fetchIt = guardedFetch(async () => {
      called = true;
      return new Response('{}');
    });
    await assert.rejects(fetchIt(CLIENT, { method: 'GET' }), /no SSRF guard/);
    assert.equal(called, false);
  });

  it(`at most ${METADATA_FETCHES_PER_MINUTE} documents fetched a minute`, async () => {
    const t = await openTestMemory();
    const h = await startOAuthServer(t, undefined, undefined, { fetch: standIn });
    try {
      const before = fetched.length;
      for (let i = 0; i <= METADATA_FETCHES_PER_MINUTE; i += 1) {
        await authorize(h.url, start(`https://flood.example/${i}.json`, pkce().challenge));
      }
      // (oidc-provider looks a client up twice when it fails: an attempt may cost two.)
      assert.equal(fetched.length - before, METADATA_FETCHES_PER_MINUTE);
      h.advance(61);
      await authorize(h.url, start('https://flood.example/later.json', pkce().challenge));
      assert.ok(fetched.length - before > METADATA_FETCHES_PER_MINUTE);
    } finally {
      await h.close();
      await t.close();
    }
  });
});

describe('Client ID Metadata Documents off', () => {
  it('not advertised, and a URL client_id is unknown', async () => {
    const t = await openTestMemory();
    const h = await startOAuthServer(t, undefined, undefined, {
      fetch: standIn,
      clientIdMetadataDocuments: false,
    });
    try {
      const meta = (await (
        await fetch(`${h.url}/.well-known/oauth-authorization-server`)
      ).json()) as Record<string, unknown>;
      assert.equal(meta.client_id_metadata_document_supported, undefined);
      const started = await authorize(h.url, start(CLIENT, pkce().challenge));
      assert.ok('error' in started);
      assert.match(String(started.error), /invalid_client/);
    } finally {
      await h.close();
      await t.close();
    }
  });
});

describe('Client ID Metadata Documents over the network', () => {
  let t: TestMemory;
  let h: OAuthHarness;
  let local: http.Server;
  let seen = 0;
  before(async () => {
    t = await openTestMemory();
    local = http.createServer((_req, res) => {
      seen += 1;
      res.end(JSON.stringify(documentFor('https://rebound.example/meta.json')));
    });
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    await new Promise((resolve) => local.close(resolve));
    await t.close();
  });

  it('the real fetch: https://127.0.0.1:1/x.json refused before any fetch', async () => {
    // Refused for what it names (an address literal), not by a connection that fails or hangs:
    // the fetch, the real one behind a counter, is never called.
    let fetched = 0;
    h = await startOAuthServer(t, undefined, undefined, {
      fetch: (url, init) => {
        fetched += 1;
        return fetch(url, init);
      },
    });
    try {
      const started = await authorize(h.url, start('https://127.0.0.1:1/x.json', pkce().challenge));
      assert.ok('error' in started);
      assert.match(String(started.error), /^400 .*invalid_client/s);
      assert.equal(fetched, 0, 'the document was fetched');
    } finally {
      await h.close();
    }
  });

  it("a name that resolves to this machine: oidc-provider's SSRF guard cuts the connection", async () => {
    // The stand-in plays DNS: the document's host resolves to a loopback listener. The request
    // goes out through the real fetch with oidc-provider's dispatcher, which must refuse it.
    const { port } = local.address() as AddressInfo;
    let guarded = false;
    h = await startOAuthServer(t, undefined, undefined, {
      fetch: (_url, init) => {
        guarded = init.dispatcher !== undefined;
        return fetch(`http://127.0.0.1:${port}/meta.json`, init);
      },
    });
    try {
      const started = await authorize(
        h.url,
        start('https://rebound.example/meta.json', pkce().challenge),
      );
      assert.ok('error' in started);
      assert.match(String(started.error), /^400 .*invalid_client.*fetch failed/s);
      assert.ok(guarded, 'fetched without the SSRF dispatcher');
      assert.equal(seen, 0, 'the loopback listener got the request');
    } finally {
      await h.close();
    }
  });
});
