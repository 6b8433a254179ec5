import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { CLI_PATH, makeTempDir, removeDir } from './helpers.js';

const TOKEN = 'e2e-token-0123456789abcdef';
const dirs: string[] = [];
after(() => {
  for (const d of dirs) removeDir(d);
});
const env = (extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? '',
  MNEMO_LOG_LEVEL: 'warn',
  MNEMO_EMBEDDINGS: 'off',
  ...extra,
});

/**
 * SIGTERM stops the server cleanly: exit 0, its gateway.json entries withdrawn, and the data dir
 * holding `memories` memories.
 */
async function stopCleanly(
  child: ChildProcess,
  exited: Promise<number | null>,
  manifestFile: string,
  dir: string,
  memories: number,
): Promise<void> {
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
  assert.deepEqual(
    JSON.parse(fs.readFileSync(manifestFile, 'utf8')).servers,
    [],
    'withdrawn on a clean stop',
  );
  const stats = spawnSync(process.execPath, [CLI_PATH, 'stats', '--json', '--data-dir', dir], {
    encoding: 'utf8',
    env: env(),
  });
  assert.equal(JSON.parse(stats.stdout).total, memories);
}

/**
 * `mnemo serve --port 0` on `dir` with `extra` in its environment, and the /mcp URL it prints
 * once it listens (rejected, with what it printed, if it exits first).
 */
function startServe(dir: string, extra: Record<string, string>) {
  const child = spawn(process.execPath, [CLI_PATH, 'serve', '--port', '0', '--data-dir', dir], {
    env: env(extra),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    printed += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      printed += d.toString();
      const m = /mnemo serve: (http:\/\/\S+\/mcp)/.exec(printed);
      if (m) resolve(m[1] as string);
    });
    child.on('exit', (code) => reject(new Error(`serve exited (${code}): ${printed}`)));
  });
  // Awaited where it matters: an early exit must not be an unhandled rejection elsewhere.
  url.catch(() => {});
  return { child, exited, url, stderr: () => stderr };
}

describe('mnemo serve', () => {
  it('refuses a non-loopback address without a token, saying what to set', () => {
    const dir = makeTempDir();
    dirs.push(dir);
    const r = spawnSync(
      process.execPath,
      [CLI_PATH, 'serve', '--host', '0.0.0.0', '--port', '0', '--data-dir', dir],
      {
        encoding: 'utf8',
        env: env(),
      },
    );
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /refusing to listen on 0\.0\.0\.0 without a token: set MNEMO_AUTH_TOKEN/,
    );
  });

  it('refuses a token file it cannot use, naming MNEMO_TOKENS, the line and the fix', () => {
    const dir = makeTempDir();
    dirs.push(dir);
    const file = path.join(dir, 'tokens.txt');
    fs.writeFileSync(file, `${TOKEN} a\n${TOKEN} b\n`);
    const serve = (tokens: string) =>
      spawnSync(process.execPath, [CLI_PATH, 'serve', '--port', '0', '--data-dir', dir], {
        encoding: 'utf8',
        env: env({ MNEMO_TOKENS: tokens }),
      });
    const twice = serve(file);
    assert.equal(twice.status, 1);
    assert.match(twice.stderr, /MNEMO_TOKENS \(.*tokens\.txt\), line 2: this token is given twice/);
    assert.ok(!twice.stderr.includes(TOKEN), 'the token is never printed');
    const missing = serve(path.join(dir, 'no-such-file'));
    assert.equal(missing.status, 1);
    assert.match(
      missing.stderr,
      /MNEMO_TOKENS names .*no-such-file, which cannot be read \(ENOENT\)/,
    );
  });

  it('serves the tools with a token, and on SIGTERM drains, keeps every answered write, exits 0', async () => {
    const dir = makeTempDir();
    dirs.push(dir);
    const serve = startServe(dir, {
      MNEMO_AUTH_TOKEN: TOKEN,
      MNEMO_PUBLIC_URL: 'https://quiet-fox.trycloudflare.com/',
    });
    const { child, exited } = serve;
    const url = await serve.url;
    const client = new Client({ name: 'serve-e2e', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    );
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await client.callTool({
        name: 'save_memory',
        arguments: { content: `served memory ${i}` },
      });
      ids.push((r.structuredContent as { memory_id: string }).memory_id);
    }
    await client.close();
    // MNEMO_PUBLIC_URL was set: gateway.json names this instance, readable by its owner only.
    const manifestFile = path.join(dir, 'gateway.json');
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
    assert.deepEqual(manifest.servers, [
      {
        label: 'mnemo',
        url: 'https://quiet-fox.trycloudflare.com/mcp',
        headers: { authorization: `Bearer ${TOKEN}` },
      },
    ]);
    assert.equal(fs.statSync(manifestFile).mode & 0o777, 0o600);
    await stopCleanly(child, exited, manifestFile, dir, 20);
  });

  it('serves resources, completions and prompts over HTTP, and refuses what is not there', async () => {
    const dir = makeTempDir();
    dirs.push(dir);
    const serve = startServe(dir, { MNEMO_AUTH_TOKEN: TOKEN });
    const { child, exited } = serve;
    const url = await serve.url;
    const client = new Client({ name: 'serve-resources', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    );
    const saved = await client.callTool({
      name: 'save_memory',
      arguments: { content: 'the heron fishes at dawn by the weir' },
    });
    const id = (saved.structuredContent as { memory_id: string }).memory_id;
    const caps = client.getServerCapabilities();
    assert.ok(caps?.resources && caps.prompts, 'resources and prompts are offered');
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    assert.ok(uris.includes('mnemo://stats') && uris.includes(`mnemo://memory/${id}`), uris.join());
    const memory = await client.readResource({ uri: `mnemo://memory/${id}` });
    assert.match(JSON.stringify(memory.contents), /heron fishes at dawn/);
    const completed = await client.complete({
      ref: { type: 'ref/resource', uri: 'mnemo://memory/{id}' },
      argument: { name: 'id', value: id.slice(0, 4) },
    });
    assert.ok(completed.completion.values.includes(id));
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), ['recall', 'review']);
    const pack = await client.getPrompt({ name: 'recall', arguments: { topic: 'heron' } });
    assert.match(JSON.stringify(pack.messages), /heron fishes at dawn/);
    await assert.rejects(client.readResource({ uri: 'mnemo://memory/not-a-memory' }));
    await assert.rejects(client.readResource({ uri: 'mnemo://nothing' }));
    await client.close();
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  });

  it('refuses a MNEMO_AUTH_TOKEN of 16 spaces instead of serving without auth', () => {
    const dir = makeTempDir();
    dirs.push(dir);
    const r = spawnSync(process.execPath, [CLI_PATH, 'serve', '--port', '0', '--data-dir', dir], {
      encoding: 'utf8',
      env: env({ MNEMO_AUTH_TOKEN: ' '.repeat(16) }),
      timeout: 30_000,
    });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /MNEMO_AUTH_TOKEN is set but blank .*openssl rand -hex 32/);
    assert.equal(r.stdout, '', 'never listened');
  });

  it('with a corrupt gateway.json: serves, rebuilds it, keeps the old one aside; SIGTERM drains, exits 0', async (t) => {
    const dir = makeTempDir();
    dirs.push(dir);
    const manifestFile = path.join(dir, 'gateway.json');
    const corrupt = '{"servers": [{"label": "other", "url": "https://other.example/mcp"';
    fs.writeFileSync(manifestFile, corrupt);
    const serve = startServe(dir, {
      MNEMO_AUTH_TOKEN: TOKEN,
      MNEMO_PUBLIC_URL: 'https://quiet-fox.trycloudflare.com',
    });
    const { child, exited } = serve;
    // A failed assertion must not leave the server running.
    t.after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const url = await serve.url;
    assert.deepEqual(JSON.parse(fs.readFileSync(manifestFile, 'utf8')).servers, [
      {
        label: 'mnemo',
        url: 'https://quiet-fox.trycloudflare.com/mcp',
        headers: { authorization: `Bearer ${TOKEN}` },
      },
    ]);
    const aside = fs.readdirSync(dir).filter((f) => f.startsWith('gateway.json.corrupt-'));
    assert.equal(aside.length, 1);
    assert.equal(fs.readFileSync(path.join(dir, aside[0] as string), 'utf8'), corrupt);
    const warning = serve
      .stderr()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string; manifest?: string })
      .find((l) => l.manifest === manifestFile);
    assert.match(
      warning?.msg ?? '',
      /was not a valid gateway\.json \(it is not JSON\): kept it as /,
    );
    assert.ok(!serve.stderr().includes(TOKEN), 'no token in the log');

    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${TOKEN}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'save_memory', arguments: { content: 'saved past a corrupt manifest' } },
      }),
    });
    assert.equal(res.status, 200);
    await stopCleanly(child, exited, manifestFile, dir, 1);
  });

  it('a start that fails after listening stops everything and exits 1, naming the file', () => {
    const dir = makeTempDir();
    dirs.push(dir);
    fs.writeFileSync(path.join(dir, 'a-file'), '');
    const manifestFile = path.join(dir, 'a-file', 'gateway.json');
    const r = spawnSync(process.execPath, [CLI_PATH, 'serve', '--port', '0', '--data-dir', dir], {
      encoding: 'utf8',
      env: env({
        MNEMO_AUTH_TOKEN: TOKEN,
        MNEMO_PUBLIC_URL: 'https://quiet-fox.trycloudflare.com',
        MNEMO_GATEWAY_MANIFEST: manifestFile,
      }),
      timeout: 30_000,
    });
    assert.equal(r.status, 1, r.stderr);
    assert.ok(r.stderr.includes(`mnemo: cannot write gateway.json at ${manifestFile} (`), r.stderr);
    assert.match(r.stderr, /point MNEMO_GATEWAY_MANIFEST at another file/);
    assert.equal(r.stdout, '', 'never announced as serving');
  });

  for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
    it(`${signal} while saves are in flight: every answered save is kept${signal === 'SIGTERM' ? ', exit 0' : ''}`, async () => {
      const dir = makeTempDir();
      dirs.push(dir);
      const serve = startServe(dir, { MNEMO_AUTH_TOKEN: TOKEN });
      const { child, exited } = serve;
      const url = await serve.url;
      const answered: string[] = [];
      let sent = 0;
      const save = async (i: number) => {
        const res = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${TOKEN}`,
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: i,
            method: 'tools/call',
            params: { name: 'save_memory', arguments: { content: `in flight ${i}` } },
          }),
        });
        const body = (await res.json()) as {
          result?: { structuredContent?: { memory_id: string } };
        };
        const id = body.result?.structuredContent?.memory_id;
        if (id) answered.push(id);
      };
      // Keep 20 saves in flight; stop the server once 60 have been answered.
      const stopped = new Promise<void>((resolve) => {
        const worker = async (): Promise<void> => {
          while (sent < 400) {
            if (answered.length >= 60) {
              if (child.exitCode === null && !child.killed) child.kill(signal);
              resolve();
              return;
            }
            await save(sent++).catch(() => {});
          }
          resolve();
        };
        for (let k = 0; k < 20; k++) void worker();
      });
      await stopped;
      const code = await exited;
      if (signal === 'SIGTERM') assert.equal(code, 0);
      assert.ok(answered.length >= 60);
      const stats = spawnSync(process.execPath, [CLI_PATH, 'open-check', '--data-dir', dir], {
        encoding: 'utf8',
        env: env(),
      });
      assert.equal(stats.status, 2, 'sanity: unknown command');
      const search = spawnSync(process.execPath, [CLI_PATH, 'stats', '--json', '--data-dir', dir], {
        encoding: 'utf8',
        env: env(),
      });
      const total = JSON.parse(search.stdout).total as number;
      assert.ok(total >= answered.length, `${total} stored, ${answered.length} answered`);
      const memories = fs.readFileSync(path.join(dir, 'memories.jsonl'), 'utf8');
      for (const id of answered) assert.ok(memories.includes(id), `answered save ${id} is on disk`);
    });
  }
});
