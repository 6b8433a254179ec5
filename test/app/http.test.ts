import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { createServeApp } from '../../src/app/http.js';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { capturingLogger, T0, tempDir } from '../support.js';
import { pgSchema } from '../support-pg.js';

const TOKEN = 'app-token-0123456789abcdef';
const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function serveApp(env: Record<string, string> = {}, logger = pino({ level: 'silent' })) {
  const dir = tempDir();
  dirs.push(dir);
  const config = loadConfig({
    env: { MNEMO_EMBEDDINGS: 'off', MNEMO_DATA_DIR: dir, MNEMO_HTTP_PORT: '0', ...env },
    home: dir,
  });
  return { dir, app: createServeApp(config, { logger, clock: () => T0 }) };
}

describe('the HTTP app (mnemo serve)', () => {
  it('start resolves with the URL it listens at; stop drains, withdraws gateway.json, frees the port', async () => {
    const { logger, lines } = capturingLogger();
    const { dir, app } = serveApp(
      { MNEMO_AUTH_TOKEN: TOKEN, MNEMO_PUBLIC_URL: 'https://quiet-fox.trycloudflare.com' },
      logger,
    );
    const { url } = await app.start();
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const health = (await (await fetch(`${url}/health`)).json()) as { status: string };
    assert.equal(health.status, 'ok');
    // A data dir has no replicas: no lag in its answer.
    assert.ok(!('replication_lag' in health), JSON.stringify(health));
    const manifest = path.join(dir, 'gateway.json');
    const urls = () =>
      (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { servers: { url: string }[] }).servers.map(
        (s) => s.url,
      );
    assert.deepEqual(urls(), ['https://quiet-fox.trycloudflare.com/mcp']);

    await Promise.all([app.stop(), app.stop()]);
    assert.deepEqual(urls(), []);
    await assert.rejects(fetch(`${url}/health`));
    assert.equal(
      lines.filter((l) => l.msg === 'stopping: draining requests in flight').length,
      1,
      'one stop, however often asked',
    );
  });

  it('refuses to start on a non-loopback address, or with a tunnel, without a token', async () => {
    for (const [env, tunnel, message] of [
      [{ MNEMO_HTTP_HOST: '0.0.0.0' }, false, /refusing to listen on 0\.0\.0\.0 without a token/],
      [{}, true, /refusing to open a public tunnel without a token/],
    ] as const) {
      const parent = tempDir();
      dirs.push(parent);
      const dir = path.join(parent, 'data');
      const config = loadConfig({
        env: { MNEMO_EMBEDDINGS: 'off', MNEMO_DATA_DIR: dir, MNEMO_HTTP_PORT: '0', ...env },
        home: parent,
      });
      const app = createServeApp(config, {
        logger: pino({ level: 'silent' }),
        clock: () => T0,
        tunnel,
      });
      await assert.rejects(app.start(), (error: Error) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, message);
        return true;
      });
      assert.ok(!fs.existsSync(dir), 'the data dir was not even made');
    }
  });

  it('/health counts only what a caller without a token may read: nothing behind a token', async () => {
    const save = (url: string, headers: Record<string, string>, content: string) =>
      fetch(`${url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'save_memory', arguments: { content } },
        }),
      });
    const health = async (url: string) =>
      (await (await fetch(`${url}/health`)).json()) as Record<string, unknown>;

    // Behind tokens: memories of the default namespace and of a, and /health counts neither.
    const parent = tempDir();
    dirs.push(parent);
    const tokensFile = path.join(parent, 'tokens');
    fs.writeFileSync(tokensFile, 'token-of-a-0123456789abcdef a\n');
    const guarded = serveApp({ MNEMO_AUTH_TOKEN: TOKEN, MNEMO_TOKENS: tokensFile });
    const { url } = await guarded.app.start();
    try {
      const a = { authorization: 'Bearer token-of-a-0123456789abcdef' };
      assert.equal(
        (await save(url, { authorization: `Bearer ${TOKEN}` }, 'kept in default')).status,
        200,
      );
      assert.equal((await save(url, a, 'kept in a')).status, 200);
      assert.equal((await save(url, a, 'also kept in a')).status, 200);
      const answer = await health(url);
      assert.equal(answer.status, 'ok');
      assert.ok(!('memories' in answer), JSON.stringify(answer));
      assert.ok(!JSON.stringify(answer).includes('"a"'), JSON.stringify(answer));
    } finally {
      await guarded.app.stop();
    }

    // Without a token the server holds the default namespace alone, whatever MNEMO_NAMESPACE says
    // (and the log says it is not used).
    const { logger, lines } = capturingLogger();
    const open = serveApp({ MNEMO_NAMESPACE: 'work' }, logger);
    const started = await open.app.start();
    try {
      assert.equal((await save(started.url, {}, 'kept in default')).status, 200);
      assert.equal((await health(started.url)).memories, 1);
      const unused = lines.filter((l) =>
        /MNEMO_NAMESPACE is not used by mnemo serve/.test(String(l.msg)),
      );
      assert.equal(unused.length, 1);
    } finally {
      await open.app.stop();
    }
  });

  it('/health on PostgreSQL: no count until this replica holds the default namespace, then its count', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const url = db.url;
    // Another replica's memory: in the database, not yet held by the one asked.
    const first = serveApp({ MNEMO_DATABASE_URL: url });
    const one = await first.app.start();
    const call = (at: string, id: number, name: string, args: Record<string, unknown>) =>
      fetch(`${at}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name, arguments: args },
        }),
      });
    const health = async (at: string) =>
      (await (await fetch(`${at}/health`)).json()) as Record<string, unknown>;
    const second = serveApp({ MNEMO_DATABASE_URL: url });
    try {
      assert.equal(
        (await call(one.url, 1, 'save_memory', { content: 'kept by the first' })).status,
        200,
      );
      const two = await second.app.start();
      // Ready (the schema checked) with nothing loaded: asked until it says so.
      let before = await health(two.url);
      for (let asked = 0; before.store !== 'ready' && asked < 2_000; asked++) {
        before = await health(two.url);
      }
      assert.equal(before.store, 'ready');
      assert.equal(before.memories, null, JSON.stringify(before));
      // No write of another replica applied here yet: no lag to tell.
      assert.equal(before.replication_lag, null, JSON.stringify(before));
      assert.equal((await call(two.url, 2, 'search_memory', { query: 'kept' })).status, 200);
      assert.equal((await health(two.url)).memories, 1);
      // The first replica writes again; the second applies it from the change feed, and says
      // how long after its write (whole ms, the same for p50 and p99 of one change).
      assert.equal(
        (await call(one.url, 3, 'save_memory', { content: 'written while held' })).status,
        200,
      );
      let after = await health(two.url);
      for (let asked = 0; after.memories !== 2 && asked < 2_000; asked++) {
        after = await health(two.url);
      }
      assert.equal(after.memories, 2);
      const lag = after.replication_lag as { p50_ms: number; p99_ms: number };
      assert.ok(Number.isInteger(lag.p50_ms) && lag.p50_ms >= 0, JSON.stringify(after));
      assert.equal(lag.p99_ms, lag.p50_ms);
    } finally {
      await second.app.stop();
      await first.app.stop();
    }
  });

  it('refuses a token file that gives MNEMO_AUTH_TOKEN namespaces too, naming neither token', async () => {
    const parent = tempDir();
    dirs.push(parent);
    const tokensFile = path.join(parent, 'tokens');
    fs.writeFileSync(tokensFile, `token-of-a-0123456789abcdef a\n${TOKEN} b\n`);
    const { app } = serveApp({ MNEMO_AUTH_TOKEN: TOKEN, MNEMO_TOKENS: tokensFile });
    await assert.rejects(app.start(), (error: Error) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /a token of MNEMO_TOKENS \(.*\) is MNEMO_AUTH_TOKEN too/);
      assert.ok(!error.message.includes(TOKEN) && !error.message.includes('token-of-a'));
      return true;
    });
  });

  it('refuses a token file that is a FIFO or a folder at once (a FIFO would hang the start), or one over 1 MB', {
    skip: process.platform === 'win32' && 'no mkfifo',
  }, async () => {
    const parent = tempDir();
    dirs.push(parent);
    const fifo = path.join(parent, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const large = path.join(parent, 'large');
    fs.writeFileSync(large, `token-of-a-0123456789abcdef a\n${'#'.repeat(1 << 20)}\n`);
    for (const [file, why] of [
      [fifo, /which is not a regular file/],
      [parent, /which is not a regular file/],
      [large, /which is larger than 1048576 bytes/],
    ] as const) {
      const { app } = serveApp({ MNEMO_TOKENS: file });
      await assert.rejects(app.start(), (error: Error) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, why);
        assert.match(error.message, /MNEMO_TOKENS names/);
        return true;
      });
    }
  });

  it('a port in use rejects start with what to do, and leaves nothing open', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const { app } = serveApp({ MNEMO_HTTP_PORT: String(port) });
      await assert.rejects(
        app.start(),
        new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use: .*--port or MNEMO_HTTP_PORT`),
      );
    } finally {
      taken.close();
    }
  });
});
