// The public URL is the one cloudflared announces when its run starts: its later lines log the
// requests it forwards (`dest=https://<host>/<any path a caller sends>`), which a caller writes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import pino from 'pino';
import { QuickTunnel } from '../../src/gateway/tunnel.js';
import { tempDir } from '../support.js';

it("takes the URL of a run's announcement only, never one a forwarded request's log line holds", async () => {
  const dir = tempDir();
  const real = 'https://quiet-fox-lamp.trycloudflare.com';
  const lines = [
    'INF Requesting new quick Tunnel on trycloudflare.com...',
    // A failed request names the API's own URL: not the tunnel's.
    'ERR failed to request quick Tunnel: Post "https://api.trycloudflare.com/tunnel": EOF',
    'INF +--------------------------------------------------------------+',
    'INF |  Your quick Tunnel has been created! Visit it at:            |',
    `INF |  ${real}  |`,
    'INF +--------------------------------------------------------------+',
    // What a caller's path makes cloudflared log once requests flow.
    'ERR  error="Unable to reach the origin service: Post http://127.0.0.1:9/https://evil-x.trycloudflare.com" originService=http://127.0.0.1:9',
    `ERR Request failed error="stream 3 canceled" connIndex=0 dest=${real}/x event=0 type=http`,
    'ERR Request failed dest=https://evil-y.trycloudflare.com/ event=0 type=http',
  ];
  const script = path.join(dir, 'cloudflared.mjs');
  fs.writeFileSync(
    script,
    `process.stderr.write(${JSON.stringify(`${lines.join('\n')}\n`)});\nsetInterval(() => {}, 1 << 30);\n`,
  );
  const command = path.join(dir, 'cloudflared');
  fs.writeFileSync(command, `#!/bin/sh\nexec "${process.execPath}" "${script}" "$@"\n`, {
    mode: 0o700,
  });
  const urls: string[] = [];
  let announced: () => void = () => {};
  const first = new Promise<void>((resolve) => {
    announced = resolve;
  });
  const tunnel = new QuickTunnel({
    command,
    env: { PATH: process.env.PATH ?? '' },
    target: 'http://127.0.0.1:9',
    logger: pino({ level: 'silent' }),
    onUrl: (url) => {
      urls.push(url);
      announced();
    },
  });
  tunnel.start();
  await first;
  // The whole output was one write: every line has been read by now.
  await new Promise((resolve) => setImmediate(resolve));
  await tunnel.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(urls, [real]);
  assert.equal(tunnel.url, real);
});
