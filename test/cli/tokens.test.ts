// mnemo tokens list / revoke, through main as the CLI runs them, over the OAuth store a server
// wrote (the data dir's oauth.json, or PostgreSQL): the grants a real flow made, no secret in the
// list, and a revoke that ends the client's tokens at once.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { main } from '../../src/cli/main.js';
import {
  connect,
  type OAuthHarness,
  rawCall,
  startOAuthServer,
  type Tokens,
} from '../oauth/support-oauth.js';
import {
  ENGINES,
  engineAbsent,
  openTestMemory,
  sink,
  type TestMemory,
  tempDir,
} from '../support.js';

async function run(argv: string[], env: Record<string, string>) {
  const stdout = sink();
  const stderr = sink();
  const code = await main(argv, {
    env: { MNEMO_LOG_LEVEL: 'silent', MNEMO_EMBEDDINGS: 'off', ...env },
    stdout,
    stderr,
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

for (const engine of ENGINES) {
  describe(`mnemo tokens (${engine})`, async () => {
    const skip = await engineAbsent(engine);
    let t: TestMemory;
    let h: OAuthHarness;
    let env: Record<string, string>;
    let work: Tokens;
    let both: Tokens;
    before(async () => {
      if (skip) return;
      t = await openTestMemory({}, tempDir(), { engine });
      h = await startOAuthServer(t);
      work = await connect(h, ['work']);
      both = await connect(h, ['default', 'work']);
      env = t.database
        ? { MNEMO_DATABASE_URL: t.database.url, MNEMO_DATA_DIR: t.dir }
        : { MNEMO_DATA_DIR: t.dir };
    });
    after(async () => {
      if (skip) return;
      await h.close();
      await t.close();
    });

    it('lists the grants (client, namespaces, dates), no token in it; --json has the ids', {
      skip,
    }, async () => {
      const listed = await run(['tokens', 'list'], env);
      assert.equal(listed.code, 0, listed.stderr);
      const lines = listed.stdout.trim().split('\n');
      assert.match(lines[0] ?? '', /^ID\s+CLIENT\s+NAMESPACES\s+CREATED\s+EXPIRES\s+LAST USED$/);
      assert.equal(lines.length, 3);
      assert.match(listed.stdout, /Test client\s+default,work\s+\d{4}-\d\d-\d\d \d\d:\d\d/);
      assert.match(listed.stdout, /Test client\s+work\s/);
      for (const secret of [work.access, work.refresh, both.access, both.refresh]) {
        assert.ok(!listed.stdout.includes(secret), 'no token is shown');
      }
      const asJson = await run(['tokens', 'list', '--json'], env);
      const { grants } = JSON.parse(asJson.stdout) as {
        grants: { id: string; client: { id: string }; namespaces: string[] }[];
      };
      assert.deepEqual(grants.map((g) => g.namespaces.join()).sort(), ['default,work', 'work']);
      assert.ok(!asJson.stdout.includes(work.access));
    });

    it('revokes one by the id the list shows: its tokens stop working, the other keeps', {
      skip,
    }, async () => {
      assert.equal((await rawCall(h, work.access)).status, 200);
      const { grants } = JSON.parse((await run(['tokens', 'list', '--json'], env)).stdout) as {
        grants: { id: string; namespaces: string[] }[];
      };
      const target = grants.find((g) => g.namespaces.join() === 'work');
      assert.ok(target);
      const shown = target.id.slice(0, 12);
      const revoked = await run(['tokens', 'revoke', shown], env);
      assert.deepEqual(
        [revoked.code, revoked.stdout],
        [0, `Revoked ${shown}: its tokens no longer work.\n`],
      );
      assert.equal((await rawCall(h, work.access)).status, 401);
      assert.equal((await rawCall(h, both.access)).status, 200);
      const again = await run(['tokens', 'revoke', shown], env);
      assert.equal(again.code, 2);
      assert.match(again.stderr, /no grant has the id .* see mnemo tokens list/);
    });
  });
}

describe('mnemo tokens, without grants or with a wrong call', () => {
  it('a data dir where OAuth never ran: no grants, and no file made', async () => {
    const dir = path.join(tempDir(), 'never');
    const listed = await run(['tokens', 'list'], { MNEMO_DATA_DIR: dir });
    assert.equal(listed.code, 0);
    assert.match(listed.stdout, /^No OAuth grants/);
    assert.equal(fs.existsSync(dir), false);
    assert.equal((await run(['tokens', 'revoke', 'abcdef0123'], { MNEMO_DATA_DIR: dir })).code, 2);
  });

  it('no subcommand, or revoke without an id: a usage error', async () => {
    for (const argv of [['tokens'], ['tokens', 'revoke'], ['tokens', 'show']]) {
      const ran = await run(argv, { MNEMO_DATA_DIR: tempDir() });
      assert.equal(ran.code, 2, argv.join(' '));
      assert.match(ran.stderr, /mnemo tokens list, or mnemo tokens revoke ID/);
    }
  });
});
