import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ENGINES, engineAbsent, openTestMemory, type TestMemory, tempDir } from '../support.js';
import {
  ADMIN,
  connect,
  mcpClient,
  type OAuthHarness,
  rawCall,
  settableClock,
  startOAuthServer,
  token,
} from './support-oauth.js';

for (const engine of ENGINES) {
  describe(`OAuth, the whole flow (${engine})`, async () => {
    const skip = await engineAbsent(engine);
    let t: TestMemory;
    let h: OAuthHarness;
    const clock = settableClock();
    before(async () => {
      if (skip) return;
      t = await openTestMemory({}, tempDir(), { engine });
      h = await startOAuthServer(t, clock);
    });
    after(async () => {
      if (skip) return;
      await h.close();
      await t.close();
    });

    it('register, authorize with PKCE, consent, token, call, refresh; the old refresh token then revokes the grant', {
      skip,
    }, async () => {
      const tokens = await connect(h, ['work']);
      const client = await mcpClient(h, tokens.access);
      const tools = await client.listTools();
      assert.ok(tools.tools.some((tool) => tool.name === 'save_memory'));
      await client.callTool({ name: 'save_memory', arguments: { content: 'oauth remembers tea' } });
      const found = await client.callTool({ name: 'search_memory', arguments: { query: 'tea' } });
      assert.match(JSON.stringify(found.structuredContent), /oauth remembers tea/);
      await client.close();
      // The grant gave `work`, not `default`: the memory went there.
      assert.equal(t.opened.storeOf('default').memories.size, 0);
      assert.equal(t.opened.storeOf('work').memories.size, 1);

      const listed = (await h.oauth.grants.list()).filter((g) => g.client.id === tokens.clientId);
      assert.equal(listed.length, 1);
      assert.deepEqual(listed[0]?.namespaces, ['work']);
      assert.equal(listed[0]?.client.name, 'Test client');
      assert.doesNotMatch(JSON.stringify(listed), new RegExp(tokens.access));

      const refreshed = await token(h.url, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh,
        client_id: tokens.clientId,
      });
      assert.equal(refreshed.status, 200);
      assert.notEqual(refreshed.body.refresh_token, tokens.refresh, 'rotated');
      assert.equal((await rawCall(h, refreshed.body.access_token)).status, 200);

      // The old refresh token again: refused, and the whole grant with it.
      const reused = await token(h.url, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh,
        client_id: tokens.clientId,
      });
      assert.equal(reused.status, 400);
      assert.equal(reused.body.error, 'invalid_grant');
      assert.equal((await rawCall(h, refreshed.body.access_token)).status, 401);
      const again = await token(h.url, {
        grant_type: 'refresh_token',
        refresh_token: refreshed.body.refresh_token as string,
        client_id: tokens.clientId,
      });
      assert.equal(again.status, 400, 'the newer refresh token went with its grant');
      assert.equal(
        (await h.oauth.grants.list()).filter((g) => g.client.id === tokens.clientId).length,
        0,
      );
    });

    it('a grant revoked mid-session: the next call is 401', { skip }, async () => {
      const tokens = await connect(h);
      assert.equal((await rawCall(h, tokens.access)).status, 200);
      const grant = (await h.oauth.grants.list()).find((g) => g.client.id === tokens.clientId);
      assert.ok(grant);
      assert.equal(await h.oauth.grants.revoke(grant.id), true);
      assert.equal((await rawCall(h, tokens.access)).status, 401);
    });

    it('an access token expires with the clock', { skip }, async () => {
      const tokens = await connect(h);
      assert.equal((await rawCall(h, tokens.access)).status, 200);
      clock.advance(3_601);
      assert.equal((await rawCall(h, tokens.access)).status, 401);
      clock.advance(-3_601);
    });

    it('a grant survives a restart (the store closed and opened again), and tokens stay hashed', {
      skip,
    }, async () => {
      const tokens = await connect(h);
      await h.close();
      h = await startOAuthServer(t, clock);
      // A new port is a new resource URL: the old token is not for it, and is refused.
      assert.equal((await rawCall(h, tokens.access)).status, 401);
      const ids = (await h.oauth.grants.list()).map((g) => g.id);
      assert.ok(ids.length >= 1, 'the grants are still listed');
      if (t.database) {
        const rows = await t.database.query<{ payload: unknown; key: string }>(
          'SELECT key, payload FROM mnemo_oauth',
        );
        assert.doesNotMatch(JSON.stringify(rows), new RegExp(tokens.access));
        assert.doesNotMatch(JSON.stringify(rows), new RegExp(tokens.refresh));
      } else {
        const { readFileSync } = await import('node:fs');
        const text = readFileSync(`${t.dir}/oauth.json`, 'utf8');
        assert.doesNotMatch(text, new RegExp(tokens.access));
        assert.doesNotMatch(text, new RegExp(tokens.refresh));
      }
    });

    it("a static MNEMO_AUTH_TOKEN request to /mcp never meets OAuth; /mcp's 401 names no OAuth metadata", {
      skip,
    }, async () => {
      const ok = await fetch(`${h.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${ADMIN}`,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'x', version: '1' },
          },
        }),
      });
      assert.equal(ok.status, 200);
      const refused = await fetch(`${h.url}/mcp`, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(refused.status, 401);
      assert.equal(refused.headers.get('www-authenticate'), 'Bearer');
      // The admin token is not an OAuth token: /connect/mcp refuses it, pointing at the metadata.
      const connect = await rawCall(h, ADMIN);
      assert.equal(connect.status, 401);
      assert.match(
        connect.challenge ?? '',
        new RegExp(`resource_metadata="${h.url}/.well-known/oauth-protected-resource/connect/mcp"`),
      );
    });
  });
}
