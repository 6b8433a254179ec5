import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { ManifestFile } from '../../src/gateway/manifest.js';

function tempManifest(t: TestContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-manifest-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'gateway.json');
}

const entry = (base: string, label: string) => ({
  label,
  url: `${base}/mcp${label === 'mnemo' ? '' : `/${label}`}`,
  headers: { authorization: 'Bearer t0k3n' },
});

describe('gateway.json', () => {
  it('publishes this instance, keeps the others, replaces on a new URL, withdraws on stop, mode 0600', async (t) => {
    const file = tempManifest(t);
    const other = new ManifestFile(file);
    await other.publish('https://other.trycloudflare.com', [
      entry('https://other.trycloudflare.com', 'mnemo'),
    ]);
    const mine = new ManifestFile(file);
    await mine.publish('https://a.trycloudflare.com', [
      entry('https://a.trycloudflare.com', 'mnemo'),
      entry('https://a.trycloudflare.com', 'desktop-commander'),
    ]);
    assert.equal(mine.read().servers.length, 3);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);

    // The tunnel came back with a new URL: the old entries go, the new ones come.
    await mine.withdraw('https://a.trycloudflare.com');
    await mine.publish('https://b.trycloudflare.com', [
      entry('https://b.trycloudflare.com', 'mnemo'),
    ]);
    assert.deepEqual(
      mine
        .read()
        .servers.map((s) => s.url)
        .sort(),
      ['https://b.trycloudflare.com/mcp', 'https://other.trycloudflare.com/mcp'],
    );
    await mine.withdraw('https://b.trycloudflare.com');
    assert.deepEqual(
      mine.read().servers.map((s) => s.url),
      ['https://other.trycloudflare.com/mcp'],
    );
  });

  it('two processes writing at once: both entries survive', async (t) => {
    const file = tempManifest(t);
    const script = `
      import { ManifestFile } from ${JSON.stringify(path.resolve('src/gateway/manifest.ts'))};
      const [file, base] = process.argv.slice(1);
      const m = new ManifestFile(file);
      for (let i = 0; i < 30; i++) {
        await m.publish(base, [{ label: 'mnemo', url: base + '/mcp', headers: {} }, { label: 'x' + i, url: base + '/mcp/x' + i, headers: {} }]);
      }
    `;
    const run = (base: string) =>
      new Promise<number | null>((resolve) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', '--input-type=module', '-e', script, file, base],
          {
            stdio: 'inherit',
          },
        );
        child.on('exit', resolve);
      });
    const codes = await Promise.all([run('https://one.example'), run('https://two.example')]);
    assert.deepEqual(codes, [0, 0]);
    const servers = new ManifestFile(file).read().servers;
    assert.deepEqual(servers.map((s) => s.url).sort(), [
      'https://one.example/mcp',
      'https://one.example/mcp/x29',
      'https://two.example/mcp',
      'https://two.example/mcp/x29',
    ]);
  });
});
