// The grants over HTTP: listed and revoked at /ui/api/oauth/grants by the admin token alone,
// without a secret in the list, and a DELETE needs no body.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openTestMemory, type TestMemory, tempDir } from '../support.js';
import { ADMIN, connect, type OAuthHarness, rawCall } from './support-oauth.js';
import { startOAuthWithPage } from './support-page.js';

describe('the grants API', () => {
  let t: TestMemory;
  let h: OAuthHarness;
  before(async () => {
    t = await openTestMemory({}, tempDir());
    h = await startOAuthWithPage(t);
  });
  after(async () => {
    await h.close();
    await t.close();
  });

  const grants = (token: string, init: RequestInit = {}, path = '') =>
    fetch(`${h.url}/ui/api/oauth/grants${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) },
    });

  it('lists a grant without its tokens, and revokes it with a body-less DELETE', async () => {
    const tokens = await connect(h, ['work']);
    const listed = await grants(ADMIN);
    assert.equal(listed.status, 200);
    const text = await listed.text();
    assert.doesNotMatch(text, new RegExp(tokens.access));
    assert.doesNotMatch(text, new RegExp(tokens.refresh));
    const grant = (JSON.parse(text) as { grants: { id: string; namespaces: string[] }[] })
      .grants[0];
    assert.ok(grant);
    assert.deepEqual(grant.namespaces, ['work']);

    assert.equal(
      (await grants('wrong-token-0123456789', { method: 'DELETE' }, `/${grant.id}`)).status,
      401,
    );
    assert.equal((await rawCall(h, tokens.access)).status, 200, 'a wrong token revokes nothing');
    const revoked = await grants(ADMIN, { method: 'DELETE' }, `/${grant.id}`);
    assert.equal(revoked.status, 204);
    assert.equal((await rawCall(h, tokens.access)).status, 401);
    assert.equal((await grants(ADMIN, { method: 'DELETE' }, `/${grant.id}`)).status, 404);
  });

  it('refuses a DELETE whose body is not JSON', async () => {
    const answer = await grants(
      ADMIN,
      { method: 'DELETE', body: 'x', headers: { 'content-type': 'text/plain' } },
      '/abcdefgh',
    );
    assert.equal(answer.status, 415);
  });
});
