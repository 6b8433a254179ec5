// Two replicas behind one public URL share the grants: made on one, used and revoked on the
// other; and a replica that restarts keeps them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ENGINES, engineAbsent, openTestMemory, type TestMemory, tempDir } from '../support.js';
import {
  connect,
  type OAuthHarness,
  rawCall,
  settableClock,
  startOAuthServer,
} from './support-oauth.js';

for (const engine of ENGINES) {
  describe(`OAuth grants across replicas (${engine})`, async () => {
    const skip = await engineAbsent(engine);
    let t: TestMemory;
    let a: OAuthHarness;
    let b: OAuthHarness;
    const clock = settableClock();
    before(async () => {
      if (skip) return;
      t = await openTestMemory({}, tempDir(), { engine });
      a = await startOAuthServer(t, clock);
      // B opens its own OAuth store over the same data dir or database.
      b = await startOAuthServer(t, clock, a.url);
    });
    after(async () => {
      if (skip) return;
      await b.close();
      await a.close();
      await t.close();
    });

    it('a grant made on one replica works on the other, and is revoked there for both', {
      skip,
    }, async () => {
      const tokens = await connect(a, ['work']);
      assert.equal((await rawCall(a, tokens.access)).status, 200);
      assert.equal((await rawCall(b, tokens.access)).status, 200, 'the other replica knows it');
      const grant = (await b.oauth.grants.list()).find((g) => g.client.id === tokens.clientId);
      assert.ok(grant, 'the other replica lists it');
      assert.deepEqual(grant.namespaces, ['work']);
      assert.equal(await b.oauth.grants.revoke(grant.id), true);
      assert.equal((await rawCall(b, tokens.access)).status, 401);
      assert.equal((await rawCall(a, tokens.access)).status, 401, 'revoked for the first too');
    });

    it('a replica that restarts keeps the grants and their tokens work again', {
      skip,
    }, async () => {
      const tokens = await connect(a);
      await b.close();
      b = await startOAuthServer(t, clock, a.url);
      assert.equal((await rawCall(b, tokens.access)).status, 200);
    });
  });
}
