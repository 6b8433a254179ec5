// `mnemo serve --oauth` as a person starts it: the whole OAuth flow against the real process,
// then its grants listed and revoked by `mnemo tokens`.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ADMIN, connect, mcpClient, type OAuthHarness, rawCall } from '../oauth/support-oauth.js';
import { CLI_PATH, makeTempDir, removeDir } from './helpers.js';
import { type ServeProcess, startServe } from './serve-process.js';

const run = promisify(execFile);

/** A port free a moment ago: the public URL must name the port before the server listens. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('mnemo serve --oauth', () => {
  let dir: string;
  let serve: ServeProcess;
  let h: OAuthHarness;
  before(async () => {
    dir = makeTempDir();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    serve = await startServe(
      dir,
      { MNEMO_AUTH_TOKEN: ADMIN, MNEMO_PUBLIC_URL: url, MNEMO_EMBEDDINGS: 'off', HOME: dir },
      30_000,
      ['--port', String(port), '--oauth'],
    );
    // Only what the flow helpers use: where the server answers, and its resource.
    h = { url, resource: `${url}/connect/mcp` } as OAuthHarness;
  });
  after(async () => {
    await serve?.stop();
    removeDir(dir);
  });

  it('registers, consents, calls /connect/mcp, and mnemo tokens lists and revokes the grant', async () => {
    const tokens = await connect(h, ['default']);
    const client = await mcpClient(h, tokens.access);
    await client.callTool({ name: 'save_memory', arguments: { content: 'served with oauth' } });
    const found = await client.callTool({ name: 'search_memory', arguments: { query: 'oauth' } });
    assert.match(JSON.stringify(found.structuredContent), /served with oauth/);
    await client.close();

    const env = { PATH: process.env.PATH ?? '', HOME: dir, MNEMO_DATA_DIR: dir };
    const listed = await run(process.execPath, [CLI_PATH, 'tokens', 'list', '--json'], { env });
    const grants = JSON.parse(listed.stdout) as
      | { id: string; namespaces: string[] }[]
      | { grants: { id: string }[] };
    const list = Array.isArray(grants) ? grants : grants.grants;
    assert.equal(list.length, 1);
    assert.doesNotMatch(listed.stdout, new RegExp(tokens.access));
    await run(process.execPath, [CLI_PATH, 'tokens', 'revoke', (list[0] as { id: string }).id], {
      env,
    });
    assert.equal(
      (await rawCall(h, tokens.access)).status,
      401,
      'revoked by the CLI, refused by the server',
    );
  });
});
