import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { ConfigError } from '../../src/config/index.js';
import { ManifestFile } from '../../src/gateway/manifest.js';
import { capturingLogger } from '../support.js';

function tempManifest(t: TestContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-manifest-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'gateway.json');
}

/** A fixed wall clock: 2026-01-01T00:00:00Z. */
const clock = () => Date.UTC(2026, 0, 1);

const entry = (base: string, label: string) => ({
  label,
  url: `${base}/mcp${label === 'mnemo' ? '' : `/${label}`}`,
  headers: { authorization: 'Bearer t0k3n' },
});

describe('gateway.json', () => {
  it('is never written through a link planted at the temp name it had (gateway.json.<pid>.tmp)', async (t) => {
    const file = tempManifest(t);
    const victim = path.join(path.dirname(file), 'victim');
    fs.writeFileSync(victim, 'kept');
    fs.symlinkSync(victim, `${file}.${process.pid}.tmp`);
    await new ManifestFile(file, { clock }).publish('https://a.trycloudflare.com', [
      entry('https://a.trycloudflare.com', 'mnemo'),
    ]);
    assert.equal(fs.readFileSync(victim, 'utf8'), 'kept');
    assert.equal(fs.lstatSync(file).isFile(), true);
  });

  it('publishes this instance, keeps the others, replaces on a new URL, withdraws on stop, mode 0600', async (t) => {
    const file = tempManifest(t);
    const other = new ManifestFile(file, { clock });
    await other.publish('https://other.trycloudflare.com', [
      entry('https://other.trycloudflare.com', 'mnemo'),
    ]);
    const mine = new ManifestFile(file, { clock });
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

  it("never takes another instance's entries whose URL is under its own (a reverse proxy's paths)", async (t) => {
    // Two instances behind one host, routed by path: https://h and https://h/b. Every entry of
    // https://h/b starts with https://h/, and https://h's publish and withdraw took them out.
    const file = tempManifest(t);
    const root = new ManifestFile(file, { clock });
    const below = new ManifestFile(file, { clock });
    await below.publish('https://h.example/b', [
      entry('https://h.example/b', 'mnemo'),
      entry('https://h.example/b', 'files'),
    ]);
    await below.publish('https://h.example/mcp', [entry('https://h.example/mcp', 'mnemo')]);
    await root.publish('https://h.example/', [
      entry('https://h.example', 'mnemo'),
      entry('https://h.example', 'mcp'),
    ]);
    assert.equal(root.read().servers.length, 5);
    await root.withdraw('https://h.example');
    assert.deepEqual(
      root
        .read()
        .servers.map((s) => `${s.label} ${s.url}`)
        .sort(),
      [
        'files https://h.example/b/mcp/files',
        'mnemo https://h.example/b/mcp',
        'mnemo https://h.example/mcp/mcp',
      ],
    );
  });

  it('two processes writing at once: both entries survive', async (t) => {
    const file = tempManifest(t);
    const script = `
      import { ManifestFile } from ${JSON.stringify(path.resolve('src/gateway/manifest.ts'))};
      const [file, base] = process.argv.slice(1);
      const m = new ManifestFile(file, { clock: Date.now });
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
    const servers = new ManifestFile(file, { clock }).read().servers;
    assert.deepEqual(servers.map((s) => s.url).sort(), [
      'https://one.example/mcp',
      'https://one.example/mcp/x29',
      'https://two.example/mcp',
      'https://two.example/mcp/x29',
    ]);
  });

  for (const [what, text] of [
    ['empty', ''],
    ['white space', '  \n'],
    ['cut short', '{"servers": [{"label": "mnemo", "url": "https://x/mcp"'],
    ['a list', '[]'],
    ['servers that are not a list', '{"servers": "none"}'],
    ['an entry without a url', '{"servers": [{"label": "mnemo", "headers": {}}]}'],
    // Not read at all: a 300 MB one held the event loop a second as a tunnel came up.
    ['larger than 1 MB', `{"servers": []}${' '.repeat(1 << 20)}`],
  ] as const) {
    it(`${what}: read names the file; publish keeps it aside, logs it, writes this instance's entries`, async (t) => {
      const file = tempManifest(t);
      fs.writeFileSync(file, text);
      const { logger, lines } = capturingLogger();
      const m = new ManifestFile(file, { clock, logger });
      assert.throws(
        () => m.read(),
        (e: unknown) =>
          e instanceof ConfigError &&
          e.message.startsWith(`${file} is not a valid gateway.json (`) &&
          /move it aside or delete it/.test(e.message),
      );
      await m.publish('https://a.trycloudflare.com', [
        entry('https://a.trycloudflare.com', 'mnemo'),
      ]);
      assert.deepEqual(m.read().servers, [entry('https://a.trycloudflare.com', 'mnemo')]);
      const aside = `${file}.corrupt-2026-01-01T00-00-00-000Z`;
      assert.equal(fs.readFileSync(aside, 'utf8'), text, 'the corrupt file is kept as it was');
      const warned = lines.filter((l) => l.level === 40);
      assert.equal(warned.length, 1);
      assert.equal(warned[0]?.manifest, file);
      assert.equal(warned[0]?.keptAs, aside);
      assert.match(String(warned[0]?.msg), /restart the other mnemo serve instances/);
    });
  }

  it('a second corrupt file in the same millisecond does not replace the first one kept aside', async (t) => {
    const file = tempManifest(t);
    const m = new ManifestFile(file, { clock });
    fs.writeFileSync(file, 'first');
    await m.publish('https://a.example', []);
    fs.writeFileSync(file, 'second');
    await m.withdraw('https://a.example');
    const stamp = `${file}.corrupt-2026-01-01T00-00-00-000Z`;
    assert.equal(fs.readFileSync(stamp, 'utf8'), 'first');
    assert.equal(fs.readFileSync(`${stamp}-1`, 'utf8'), 'second');
    assert.deepEqual(m.read().servers, []);
  });

  it('a manifest it cannot write is a ConfigError naming the file and the setting', async (t) => {
    const dir = path.dirname(tempManifest(t));
    const notADir = path.join(dir, 'a-file');
    fs.writeFileSync(notADir, '');
    const file = path.join(notADir, 'gateway.json');
    await assert.rejects(
      new ManifestFile(file, { clock }).publish('https://a.example', []),
      (e: unknown) =>
        e instanceof ConfigError &&
        e.message.startsWith(`cannot write gateway.json at ${file} (`) &&
        /point MNEMO_GATEWAY_MANIFEST at another file/.test(e.message),
    );
  });
});
