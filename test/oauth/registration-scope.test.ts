// A client registering with the resource's scope, as the MCP SDKs do (they ask for what the
// resource metadata's scopes_supported lists, plus offline_access): accepted, and the flow then
// works with that scope asked; an unknown scope is still refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RESOURCE_SCOPE } from '../../src/oauth/provider.js';
import { openTestMemory, type TestMemory, tempDir } from '../support.js';
import { type OAuthHarness, register, startOAuthServer } from './support-oauth.js';

describe('OAuth registration with the resource scope', () => {
  let t: TestMemory;
  let h: OAuthHarness;
  before(async () => {
    t = await openTestMemory({}, tempDir());
    h = await startOAuthServer(t);
  });
  after(async () => {
    await h.close();
    await t.close();
  });

  it('takes the scope the resource metadata lists, with offline_access', async () => {
    const metadata = await (
      await fetch(`${h.url}/.well-known/oauth-protected-resource/connect/mcp`)
    ).json();
    assert.deepEqual((metadata as { scopes_supported: string[] }).scopes_supported, [
      RESOURCE_SCOPE,
    ]);
    const asked = `${RESOURCE_SCOPE} offline_access`;
    const client = await register(h.url, { scope: asked });
    assert.equal(client.status, 201, JSON.stringify(client.body));
    assert.equal(client.body.scope, asked);
    const alone = await register(h.url, { scope: RESOURCE_SCOPE });
    assert.equal(alone.status, 201, JSON.stringify(alone.body));
  });

  it('still refuses a scope nobody serves', async () => {
    const client = await register(h.url, { scope: `${RESOURCE_SCOPE} admin` });
    assert.equal(client.status, 400);
    assert.equal(client.body.error, 'invalid_client_metadata');
  });
});
