// `mnemo ui` and `mnemo serve` print the page's address, with the token in the fragment.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { CLI_PATH, makeTempDir, removeDir } from '../e2e/helpers.js';

const TOKEN = 'cli-ui-token-0123456789';

/** Starts a command and resolves with the first line matching `pattern`. */
function firstLine(args: string[], env: Record<string, string>, pattern: RegExp) {
  const child = spawn(process.execPath, [CLI_PATH, ...args], {
    env: { PATH: process.env.PATH ?? '', MNEMO_EMBEDDINGS: 'off', MNEMO_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const line = new Promise<string>((resolve, reject) => {
    let printed = '';
    child.stdout.on('data', (chunk: Buffer) => {
      printed += chunk.toString('utf8');
      const m = pattern.exec(printed);
      if (m) resolve(m[0]);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${printed}`)));
  });
  return { child, line };
}

const stopped = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.on('exit', resolve);
    child.kill('SIGTERM');
  });

describe('the page address', () => {
  const dir = makeTempDir();
  after(() => removeDir(dir));

  it('mnemo ui listens on loopback whatever MNEMO_HTTP_HOST says, and prints #token=', async () => {
    const { child, line } = firstLine(
      ['ui', '--port', '0', '--data-dir', dir],
      { MNEMO_AUTH_TOKEN: TOKEN, MNEMO_HTTP_HOST: '0.0.0.0' },
      /mnemo ui: \S+/,
    );
    const printed = await line;
    assert.match(printed, new RegExp(`^mnemo ui: http://127\\.0\\.0\\.1:\\d+/ui#token=${TOKEN}$`));
    const page = await fetch(printed.slice('mnemo ui: '.length));
    assert.equal(page.status, 200);
    assert.equal(await stopped(child), 0);
  });

  it('mnemo ui without a token makes a random one for its run: in the address only, and the page API refuses a call without it', async () => {
    const tokens: string[] = [];
    for (let run = 0; run < 2; run++) {
      const { child, line } = firstLine(
        ['ui', '--port', '0', '--data-dir', dir],
        {},
        /mnemo ui: \S+/,
      );
      const printed = await line;
      const m = /^mnemo ui: (http:\/\/127\.0\.0\.1:\d+)\/ui#token=([0-9a-f]{64})$/.exec(printed);
      assert.ok(m, printed);
      const [, base, token] = m as unknown as [string, string, string];
      tokens.push(token);
      assert.equal((await fetch(`${base}/ui`)).status, 200, 'the page itself asks for the token');
      assert.equal((await fetch(`${base}/ui/api/session`)).status, 401);
      const wrong = await fetch(`${base}/ui/api/session`, {
        headers: { authorization: `Bearer ${'0'.repeat(64)}` },
      });
      assert.equal(wrong.status, 401);
      const right = await fetch(`${base}/ui/api/session`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(right.status, 200);
      assert.equal((await fetch(`${base}/mcp`, { method: 'POST' })).status, 401);
      assert.equal(await stopped(child), 0);
    }
    assert.notEqual(tokens[0], tokens[1], 'a new token each run');
  });

  it('mnemo serve prints the page too; without a token, no fragment', async () => {
    const { child, line } = firstLine(
      ['serve', '--port', '0', '--data-dir', dir],
      {},
      /the web page at \S+/,
    );
    const printed = await line;
    assert.match(printed, /the web page at http:\/\/127\.0\.0\.1:\d+\/ui$/);
    // Answering shows the start is complete: the stop signal is its to handle from then on.
    assert.equal((await fetch(printed.slice('the web page at '.length))).status, 200);
    assert.equal(await stopped(child), 0);
  });

  it('mnemo serve with a token, its stdout not a terminal (a daemon log), never prints the token', async () => {
    const { child, line } = firstLine(
      ['serve', '--port', '0', '--data-dir', dir],
      { MNEMO_AUTH_TOKEN: TOKEN },
      /the web page at .*\n/,
    );
    const printed = await line;
    assert.doesNotMatch(printed, new RegExp(TOKEN));
    assert.match(
      printed,
      /\/ui \(it asks for the token; or open \S+\/ui#token=<MNEMO_AUTH_TOKEN>\)/,
    );
    // Answering shows the start is complete: the stop signal is its to handle from then on.
    const page = /the web page at (\S+)/.exec(printed)?.[1] ?? '';
    assert.equal((await fetch(page)).status, 200);
    assert.equal(await stopped(child), 0);
  });
});
