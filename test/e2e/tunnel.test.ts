import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isAlive } from '../support.js';
import { CLI_PATH, makeTempDir, removeDir } from './helpers.js';

const TOKEN = 'tunnel-token-0123456789abcdef';
const FAKE = fileURLToPath(new URL('../fixtures/fake-cloudflared.mjs', import.meta.url));
const dirs: string[] = [];
after(() => {
  for (const d of dirs) removeDir(d);
});

describe('mnemo serve --tunnel (with a stand-in for cloudflared)', () => {
  it('publishes the tunnel URL, allows its host, and republishes when cloudflared comes back with a new one', async () => {
    const dir = makeTempDir();
    dirs.push(dir);
    const wrapper = path.join(dir, 'cloudflared');
    const pidFile = path.join(dir, 'cloudflared.pids');
    const envFile = path.join(dir, 'cloudflared.env');
    fs.writeFileSync(
      wrapper,
      `#!/bin/sh\nFAKE_CF_PIDFILE="${pidFile}" FAKE_CF_ENVFILE="${envFile}" exec "${process.execPath}" "${FAKE}" "$@"\n`,
      { mode: 0o755 },
    );
    const child = spawn(
      process.execPath,
      [CLI_PATH, 'serve', '--port', '0', '--tunnel', '--data-dir', dir],
      {
        env: {
          PATH: process.env.PATH ?? '',
          MNEMO_LOG_LEVEL: 'warn',
          MNEMO_EMBEDDINGS: 'off',
          MNEMO_AUTH_TOKEN: TOKEN,
          MNEMO_CLOUDFLARED: wrapper,
          MNEMO_TUNNEL_RESTART_MS: '50',
          AWS_SECRET_ACCESS_KEY: 'aws-secret-0123456789',
          TUNNEL_LOGLEVEL: 'info',
          LC_ALL: 'C',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    let out = '';
    const tunnelUrls: string[] = [];
    const waiters: (() => void)[] = [];
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      for (const m of out.matchAll(/mnemo serve: (https:\/\/\S+)\/mcp \(tunnel\)/g)) {
        if (!tunnelUrls.includes(m[1] as string)) tunnelUrls.push(m[1] as string);
      }
      for (const w of waiters.splice(0)) w();
    });
    const urlCount = (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (tunnelUrls.length >= n ? resolve() : waiters.push(check));
        check();
      });

    await urlCount(1);
    const first = tunnelUrls[0] as string;
    const manifestFile = path.join(dir, 'gateway.json');
    assert.deepEqual(
      JSON.parse(fs.readFileSync(manifestFile, 'utf8')).servers.map((s: { url: string }) => s.url),
      [`${first}/mcp`],
    );
    const local = /mnemo serve: (http:\/\/\S+)\/mcp/.exec(out)?.[1] as string;
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        http
          .get(`${local}/health`, { headers: { host } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
          .on('error', reject);
      });
    assert.equal(await status(new URL(first).host), 200, 'the tunnel host is allowed');
    assert.equal(await status('other.trycloudflare.com'), 403, 'only that host, not every tunnel');

    // cloudflared talks to the internet: it gets what it needs to run, none of mnemo's secrets.
    const given = JSON.parse(fs.readFileSync(envFile, 'utf8')) as Record<string, string>;
    assert.deepEqual(Object.keys(given).sort(), ['LC_ALL', 'PATH', 'TUNNEL_LOGLEVEL']);
    assert.ok(!JSON.stringify(given).includes(TOKEN));

    const [pid1] = fs.readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
    process.kill(pid1 as number, 'SIGKILL');
    await urlCount(2);
    const second = tunnelUrls[1] as string;
    assert.notEqual(second, first);
    // The manifest follows: the new URL in, the old one out (written just before the line).
    const urls = () =>
      JSON.parse(fs.readFileSync(manifestFile, 'utf8')).servers.map((s: { url: string }) => s.url);
    assert.deepEqual(urls(), [`${second}/mcp`]);

    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.deepEqual(urls(), [], 'withdrawn on a clean stop');
    const pids = fs.readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
    assert.equal(pids.length, 2);
    assert.ok(
      pids.every((p) => !isAlive(p)),
      'cloudflared stopped with mnemo',
    );
  });

  it('refuses to open a tunnel without a token', async () => {
    const dir = makeTempDir();
    dirs.push(dir);
    const child = spawn(
      process.execPath,
      [CLI_PATH, 'serve', '--port', '0', '--tunnel', '--data-dir', dir],
      {
        env: { PATH: process.env.PATH ?? '', MNEMO_LOG_LEVEL: 'warn', MNEMO_EMBEDDINGS: 'off' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 1);
    assert.match(stderr, /refusing to open a public tunnel without a token: set MNEMO_AUTH_TOKEN/);
  });
});
