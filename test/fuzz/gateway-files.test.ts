// The gateway's inputs from outside, given anything: the gateway config (MNEMO_GATEWAY_CONFIG)
// gives upstreams or a ConfigError naming the file and the place, without any part of a token in
// it; gateway.json gives a manifest, or is set aside and written anew; cloudflared's output gives
// only an https://<name>.trycloudflare.com URL, read in linear time.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { ConfigError } from '../../src/config/index.js';
import { loadGatewayConfig } from '../../src/gateway/config.js';
import { type Manifest, ManifestFile, type ManifestServer } from '../../src/gateway/manifest.js';
import { announcementReader, announcementReaders } from '../../src/gateway/tunnel.js';
import { capturingLogger, tempDir } from '../support.js';
import {
  assertNoPollution,
  bounded,
  clip,
  hostileJson,
  hostileKey,
  hostileText,
  MB,
  objectOf,
  timeBoxed,
} from './hostile.js';

const dir = tempDir('mnemo-fuzz-gateway-');
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Whether `message` holds any 6 characters in a row of `secret` (as token-file.test.ts). */
function showsPartOf(message: string, secret: string): boolean {
  for (let i = 0; i + 6 <= secret.length; i++) {
    if (message.includes(secret.slice(i, i + 6))) return true;
  }
  return false;
}

/** `text` with one character cut, added or changed at `at`, or as it is. */
function broken(text: string, how: string, at: number, char: string): string {
  const i = at % (text.length + 1);
  if (how === 'cut') return text.slice(0, i) + text.slice(i + 1);
  if (how === 'add') return text.slice(0, i) + char + text.slice(i);
  if (how === 'change') return text.slice(0, i) + char + text.slice(i + 1);
  return text;
}
const breakage = fc.record({
  how: fc.constantFrom('none', 'none', 'cut', 'add', 'change'),
  at: fc.nat(),
  char: fc.constantFrom(...'{}[]",: x\n\\\0'),
});

describe('fuzz: the gateway config file (src/gateway/config.ts, MNEMO_GATEWAY_CONFIG)', () => {
  const secret = fc
    .array(fc.constantFrom(...'0123456789abcdef'), { minLength: 16, maxLength: 48 })
    .map((c) => c.join(''));

  /** An entry near an upstream's, each field right, wrong or missing, the secret in its values. */
  const entry = (s: string) =>
    fc
      .record(
        {
          command: fc.oneof(fc.constant('npx'), hostileText, hostileJson),
          args: fc.oneof(fc.constant(['-y', `--api-key=${s}`]), hostileJson),
          env: fc.oneof(
            fc.constant({ API_KEY: s }),
            fc.constant(objectOf([['__proto__', s]])),
            fc.constant({ API_KEY: 5 }),
            hostileJson,
          ),
          cwd: fc.oneof(fc.constant('/srv'), hostileText),
          url: fc.oneof(
            fc.constantFrom(
              'https://h.example/mcp',
              `https://u:${s}@h.example/mcp`,
              `https://h.example/mcp?key=${s}`,
              `not a url ${s}`,
              `ftp://${s}`,
            ),
            hostileText,
          ),
          headers: fc.oneof(
            fc.constant({ authorization: `Bearer ${s}` }),
            fc.constant({ authorization: [s] }),
            hostileJson,
          ),
          token: fc.oneof(
            fc.constantFrom(s, ` ${s}\n`, s.slice(0, 8), s.slice(0, 15), '', ' '.repeat(16)),
            fc.constantFrom(5, null, [s], { value: s }),
            hostileText,
          ),
          other: hostileJson,
        },
        { requiredKeys: [] },
      )
      .map((fields) => objectOf(Object.entries(fields)));

  /** An upstream as it should be, its secret where one goes. */
  const upstream = (s: string) =>
    fc.oneof(
      fc.constantFrom(
        { command: 'npx', args: ['-y', `--api-key=${s}`], env: { API_KEY: s }, token: s },
        { command: 'srv' },
        { url: 'https://h.example/mcp', headers: { authorization: `Bearer ${s}` }, token: s },
        { url: `https://h.example/mcp?key=${s}` },
      ),
    );

  const label = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom('a', 'desktop-commander', 'remote_1', '__proto__', 'constructor'),
    },
    { weight: 1, arbitrary: fc.constantFrom('Bad', 'a b', '', 'a/b', '../x') },
    { weight: 1, arbitrary: hostileKey },
    { weight: 1, arbitrary: hostileText },
  );

  const config = (s: string) =>
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc
          .array(fc.tuple(label, fc.oneof(upstream(s), upstream(s), entry(s), hostileJson)), {
            maxLength: 4,
          })
          .map((entries) => objectOf([['mcpServers', objectOf(entries)]])),
      },
      { weight: 1, arbitrary: hostileJson },
      { weight: 1, arbitrary: fc.constant({ mcpServers: [{ command: 'x', token: s }] }) },
    );

  const text = secret.chain((s) =>
    fc.tuple(
      fc.constant(s),
      fc.oneof(
        {
          weight: 8,
          arbitrary: fc
            .tuple(config(s), fc.constantFrom(0, 2), breakage)
            .map(([value, space, b]) =>
              broken(JSON.stringify(value, null, space) ?? 'null', b.how, b.at, b.char),
            ),
        },
        // A token written without its quotes: V8 would quote the text from there.
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            `{"mcpServers": {"a": {"url": "https://h/mcp", "headers": {"authorization": c${s}}}}}`,
            `{"mcpServers": {"a": {"command": "x", "token": ${s}}}}`,
            `{"mcpServers": {"a": {"command": "x", "env": {"K": "${s}\u0001"}}}}`,
            `{"mcpServers": {"a": {"command": "x", "token": "${s}"`,
            `\ufeff{"mcpServers": {"a": {"command": "x", "token": "${s}"}}}`,
          ),
        },
        { weight: 1, arbitrary: hostileText.map((t) => `${t}${s}`) },
      ),
    ),
  );

  const file = path.join(dir, 'gateway-config.json');

  it('gives upstreams, or a ConfigError that names the file and the place and no part of a token', () => {
    fc.assert(
      fc.property(
        text,
        timeBoxed(3, ([s, body]) => {
          fs.writeFileSync(file, body);
          let servers: ReturnType<typeof loadGatewayConfig>;
          try {
            servers = loadGatewayConfig(file);
          } catch (error) {
            assert.ok(error instanceof ConfigError, `not a ConfigError: ${String(error)}`);
            const message = error.message;
            assert.ok(message.includes(file), `does not name the file: ${clip(message)}`);
            const rest = message.replaceAll(file, '');
            assert.ok(!showsPartOf(rest, s), `shows part of the token ${s}: ${clip(message)}`);
            if (/is not valid JSON/.test(message)) {
              const at = /at line (\d+), column (\d+):/.exec(message);
              assert.ok(at, `a JSON error that does not say where: ${clip(message)}`);
              const lines = body.split('\n');
              const line = Number(at[1]);
              assert.ok(line >= 1 && line <= lines.length, `no line ${line}`);
              const column = Number(at[2]);
              assert.ok(column >= 1 && column <= (lines[line - 1] as string).length + 1);
            } else {
              // The place is the field: mcpServers, a label, one of its fields.
              assert.match(message, /mcpServers/);
            }
            assertNoPollution();
            return;
          }
          // Every label of the file is an upstream, each a stdio or a url one.
          const raw = JSON.parse(body) as { mcpServers: Record<string, unknown> };
          assert.deepEqual(Object.keys(servers).sort(), Object.keys(raw.mcpServers).sort());
          assert.equal(Object.getPrototypeOf(servers), Object.prototype);
          for (const spec of Object.values(servers)) {
            assert.notEqual('command' in spec, 'url' in spec);
            if (spec.token !== undefined) assert.ok(spec.token.length >= 16);
          }
          assertNoPollution();
        }),
      ),
      bounded(1_000),
    );
  });
});

describe('fuzz: gateway.json in the data dir (src/gateway/manifest.ts)', () => {
  const SELF = 'https://fuzz-self.trycloudflare.com';
  const mine: ManifestServer[] = [
    { label: 'mnemo', url: `${SELF}/mcp`, headers: { authorization: 'Bearer fuzz-token' } },
  ];
  /** A fixed wall clock: every file set aside has the same stamp. */
  const clock = () => Date.UTC(2026, 0, 1);

  const server = fc.oneof(
    fc.record({
      label: fc.oneof(fc.constantFrom('mnemo', 'files'), hostileText),
      url: fc.oneof(fc.constant('https://other.trycloudflare.com/mcp'), hostileText),
      headers: fc.oneof(
        {
          weight: 4,
          arbitrary: fc
            .array(fc.tuple(fc.oneof(fc.string({ maxLength: 8 }), hostileKey), hostileText), {
              maxLength: 3,
            })
            .map(objectOf),
        },
        { weight: 2, arbitrary: fc.constantFrom([], ['v'], null, 'Bearer x') },
        { weight: 1, arbitrary: hostileJson },
      ),
    }),
    fc.tuple(fc.constantFrom('mnemo', 'x'), hostileKey, hostileJson).map(([l, key, value]) =>
      objectOf([
        ['label', l],
        ['url', 'https://o.example/mcp'],
        ['headers', objectOf([[key, 'v']])],
        [key, value],
      ]),
    ),
    hostileJson,
  );

  const manifestBytes: fc.Arbitrary<Buffer> = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.array(server, { maxLength: 4 }), fc.constantFrom(0, 2), breakage, fc.boolean())
        .map(([servers, space, b, proto]) => {
          const value = objectOf([
            ['servers', servers],
            ...(proto ? [['__proto__', { polluted: 1 }] as [string, unknown]] : []),
          ]);
          return Buffer.from(broken(JSON.stringify(value, null, space), b.how, b.at, b.char));
        }),
    },
    { weight: 2, arbitrary: hostileText.map((t) => Buffer.from(t)) },
    { weight: 2, arbitrary: hostileJson.map((v) => Buffer.from(JSON.stringify(v) ?? 'null')) },
    { weight: 2, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)) },
    // A manifest whose entries carry more, nested deep: read, it is written again at each update.
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 1, max: 200_000 })
        .map((n) =>
          Buffer.from(
            `{"servers":[{"label":"files","url":"https://o.example/mcp/files","headers":{},"more":${'['.repeat(n)}${']'.repeat(n)}}]}`,
          ),
        ),
    },
    { weight: 1, arbitrary: fc.constant(Buffer.alloc(MB + 1, 0x20)) },
  );

  const file = path.join(dir, 'gateway.json');
  const clear = () => {
    for (const name of fs.readdirSync(dir)) {
      if (name.startsWith('gateway.json')) fs.rmSync(path.join(dir, name), { force: true });
    }
  };
  const valid = (servers: ManifestServer[]) => {
    for (const s of servers) {
      assert.equal(typeof s.label, 'string');
      assert.equal(typeof s.url, 'string');
      assert.ok(typeof s.headers === 'object' && s.headers !== null && !Array.isArray(s.headers));
      for (const v of Object.values(s.headers)) assert.equal(typeof v, 'string');
    }
  };

  it('any bytes give a manifest, or a ConfigError naming the file; an update sets them aside', async () => {
    await fc.assert(
      fc.asyncProperty(
        manifestBytes,
        timeBoxed(3, async (bytes) => {
          clear();
          fs.writeFileSync(file, bytes);
          const { logger, lines } = capturingLogger();
          const manifest = new ManifestFile(file, { clock, logger });
          let before: Manifest | undefined;
          try {
            before = manifest.read();
            valid(before.servers);
            // As the file has them: label, url and headers, nothing added or turned.
            const file = JSON.parse(bytes.toString()) as { servers: ManifestServer[] };
            assert.deepEqual(
              before.servers,
              file.servers.map(({ label, url, headers }) => ({ label, url, headers })),
            );
          } catch (error) {
            assert.ok(error instanceof ConfigError, `not a ConfigError: ${String(error)}`);
            assert.ok(error.message.includes(file), error.message);
            assert.match(error.message, /move it aside or delete it/);
          }
          // The update never fails on what the file held.
          await manifest.publish(SELF, mine);
          const now = manifest.read();
          valid(now.servers);
          const aside = fs.readdirSync(dir).filter((n) => n.startsWith('gateway.json.corrupt-'));
          if (before !== undefined) {
            assert.deepEqual(now.servers, [...before.servers, ...mine]);
            assert.deepEqual(aside, []);
          } else {
            assert.deepEqual(now.servers, mine);
            assert.equal(aside.length, 1, 'set aside once');
            assert.ok(fs.readFileSync(path.join(dir, aside[0] as string)).equals(bytes));
            assert.ok(
              lines.some((l) => l.level === 40 && l.keptAs === path.join(dir, aside[0] as string)),
            );
          }
          assertNoPollution();
        }),
      ),
      bounded(200),
    );
  });
});

describe('fuzz: the URL taken from cloudflared output (src/gateway/tunnel.ts)', () => {
  const SUFFIX = '.trycloudflare.com';
  const name = fc.stringMatching(/^[a-z0-9-]{1,24}$/);

  /** Lines near the announcement that are not one (not taken by a tunnel). */
  const notAnnouncements = [
    'https://evil.com/x.trycloudflare.com',
    'https://x.trycloudflare.com.evil.com',
    'https://x.trycloudflare.com.evil.com/',
    'https://a@b.trycloudflare.com',
    'https://a:b@c.trycloudflare.com',
    'https://x.trycloudflare.com@evil.com',
    'http://x.trycloudflare.com',
    'https:/x.trycloudflare.com',
    'https:\\\\x.trycloudflare.com',
    'https://x.trycloudflare.com/path',
    'https://x.trycloudflare.com:8443',
    'https://x.trycloudflare.com"',
    'https://x.trycloudflare.com\0',
    'https://x.trycloudflare.com\u200b',
    'https://x.trycloudflare.comx',
    'https://xtrycloudflare.com',
    'https://x.trycloudflare.co',
    'https://x.trycloudflare.com%2f.evil.com',
    'https://x.trycloudflare%2ecom',
    'https://x.trycloudflare.com\\@evil.com',
    'https://x.trycloudflare.com#.evil.com',
    'https://x.trycloudflare.com?.evil.com',
    'https://trycloudflare.com',
    'https://.trycloudflare.com',
    'https://x..trycloudflare.com',
    'https://x.trycloudflare.com.',
    'https://x_y.trycloudflare.com',
    'https://x.y.trycloudflare.com',
    'https://X.TRYCLOUDFLARE.COM',
    'HTTPS://x.trycloudflare.com',
    'https://x\u3002trycloudflare.com',
    'https://x\uff0etrycloudflare\uff0ecom',
    'https://\uff58.trycloudflare.com',
    'https://api.trycloudflare.com/tunnel',
    'dest=https://x.trycloudflare.com/',
    'Post "https://api.trycloudflare.com/tunnel": EOF',
    'Post http://127.0.0.1:9/https://evil-x.trycloudflare.com" originService=http://127.0.0.1:9',
    'Post http://127.0.0.1:9/https://evil-x.trycloudflare.com',
    'https://evil.com/https://x.trycloudflare.com',
    'https://evil.com#https://x.trycloudflare.com',
    'evilhttps://x.trycloudflare.com',
    'dest=https://x.trycloudflare.com',
    '"https://x.trycloudflare.com"',
  ];
  const around = fc.constantFrom('', ' ', 'INF |  ', '  |', '"', '/', 'x', '\t', '\r');
  const noise = fc.oneof(
    { weight: 3, arbitrary: hostileText.filter((t) => !t.includes('trycloudflare')) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(around, fc.constantFrom(...notAnnouncements), around)
        .map((parts) => parts.join('')),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('INF Requesting new quick Tunnel on trycloudflare.com...'),
    },
  );
  // Anything, URLs of any host included: what may be taken is bounded by the check, not the input.
  const anything = fc.oneof(
    noise,
    hostileText,
    fc.tuple(around, name, around).map(([a, n, b]) => `${a}https://${n}${SUFFIX}${b}`),
    fc
      .tuple(fc.webUrl({ withQueryParameters: true, withFragments: true }), around)
      .map(([u, b]) => `${u}${b}`),
    fc
      .tuple(
        fc.constantFrom(
          'https://',
          'https://a',
          'https://a.trycloudflare.com',
          'x/https://a.trycloudflare.com ',
          '\u00e9',
          '\n',
        ),
        fc.integer({ min: 1, max: 20_000 }),
      )
      .map(([unit, n]) => unit.repeat(n)),
  );

  /** Output as cloudflared writes it: lines, in chunks cut anywhere (within a character too). */
  const output = (lines: fc.Arbitrary<string[]>) =>
    fc
      .tuple(lines, fc.constantFrom('\n', '\r\n'), fc.array(fc.nat(), { maxLength: 8 }))
      .map(([ls, eol, cuts]) => {
        const bytes = Buffer.from(ls.map((l) => `${l}${eol}`).join(''));
        const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const chunks: Buffer[] = [];
        let from = 0;
        for (const to of [...at, bytes.length]) {
          chunks.push(bytes.subarray(from, to));
          from = to;
        }
        return { text: bytes.toString(), chunks };
      });

  const read = (chunks: Buffer[]): string[] => {
    const urls: string[] = [];
    const reader = announcementReader((url) => urls.push(url));
    for (const chunk of chunks) reader(chunk);
    return urls;
  };

  /**
   * A URL a tunnel may take: https://<name>.trycloudflare.com, nothing else in it, and all of a
   * URL in the output (white space or a line's edge either side), not the end or start of another.
   */
  const assertTunnelUrl = (url: string, text: string) => {
    const parsed = new URL(url);
    assert.equal(parsed.protocol, 'https:');
    assert.equal(url, parsed.origin, `more than an origin: ${url}`);
    assert.equal(`${parsed.username}${parsed.password}${parsed.port}`, '');
    assert.ok(parsed.hostname.endsWith(SUFFIX) && parsed.hostname.length > SUFFIX.length, url);
    const alone = text.split('\n').some((line) => line.split(/\s/).includes(url));
    assert.ok(alone, `not a whole URL of the output: ${url}`);
  };

  it('takes only an https URL of a trycloudflare.com subdomain, once, from any output', () => {
    fc.assert(
      fc.property(
        output(fc.array(anything, { maxLength: 12 })),
        timeBoxed(3, ({ text, chunks }) => {
          const urls = read(chunks);
          assert.ok(urls.length <= 1, `took ${urls.length} URLs`);
          for (const url of urls) assertTunnelUrl(url, text);
        }),
      ),
      bounded(2_000),
    );
  });

  it("takes the announcement's URL after any lookalike, and nothing after it", () => {
    const run = fc
      .tuple(fc.array(noise, { maxLength: 10 }), name, name, fc.array(anything, { maxLength: 4 }))
      .chain(([before, real, other, later]) => {
        const url = `https://${real}${SUFFIX}`;
        const lines = [
          ...before,
          'INF +--------------------------------------------------------------+',
          `INF |  ${url}  |`,
          `INF |  https://${other}${SUFFIX}  |`,
          ...later,
        ];
        return output(fc.constant(lines)).map(({ chunks }) => ({ url, chunks }));
      });
    fc.assert(
      fc.property(
        run,
        timeBoxed(3, ({ url, chunks }) => {
          assert.deepEqual(read(chunks), [url]);
        }),
      ),
      bounded(1_000),
    );
  });

  it("reads stdout and stderr a line each: the announcement is taken whatever the other pipe's chunks cut", () => {
    // The announcement on stderr (where cloudflared logs), the other pipe's noise in between, the
    // two pipes' chunks taken in any order, as their 'data' events come.
    const run = fc
      .tuple(name, fc.array(noise, { maxLength: 6 }), fc.array(fc.boolean(), { maxLength: 40 }))
      .chain(([real, other, order]) => {
        const url = `https://${real}${SUFFIX}`;
        const announcement = [
          'INF |  Your quick Tunnel has been created! Visit it at:  |',
          `INF |  ${url}  |`,
        ];
        return fc
          .tuple(output(fc.constant(announcement)), output(fc.constant(other)))
          .map(([stderr, stdout]) => ({
            url,
            stderr: stderr.chunks,
            stdout: stdout.chunks,
            order,
          }));
      });
    fc.assert(
      fc.property(
        run,
        timeBoxed(3, ({ url, stderr, stdout, order }) => {
          const urls: string[] = [];
          const readers = announcementReaders((u) => urls.push(u));
          const err = [...stderr];
          const out = [...stdout];
          for (const fromOut of order) {
            const chunk = fromOut ? out.shift() : err.shift();
            if (chunk) (fromOut ? readers.stdout : readers.stderr)(chunk);
          }
          for (const chunk of out) readers.stdout(chunk);
          for (const chunk of err) readers.stderr(chunk);
          assert.deepEqual(urls, [url]);
        }),
      ),
      bounded(1_000),
    );
  });

  it('reads long output in linear time, in one chunk or many', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          'https://',
          'https://a',
          'https://a-',
          'https://a.trycloudflare.com',
          'https://a.trycloudflare.comx',
          'a',
          ' ',
          'https://a.trycloudflare.com.evil.com/',
          'x/https://a.trycloudflare.com ',
        ),
        fc.integer({ min: 1 << 17, max: 1 << 20 }),
        fc.constantFrom(1 << 20, 1 << 16, 4_000, 4_097),
        fc.constantFrom(0, 100, 5_000),
        timeBoxed(4, (unit, size, chunkSize, lineLength) => {
          const line = unit.repeat(Math.ceil((lineLength || size) / unit.length));
          const bytes = Buffer.from(
            lineLength === 0 ? line : `${line}\n`.repeat(Math.ceil(size / lineLength)),
          );
          const started = performance.now();
          const urls: string[] = [];
          const reader = announcementReader((u) => urls.push(u));
          for (let from = 0; from < bytes.length; from += chunkSize) {
            reader(bytes.subarray(from, from + chunkSize));
          }
          const ms = performance.now() - started;
          // Linear is a few ms a MB; quadratic, minutes. The bound leaves room for a busy machine.
          const limit = 50 + (bytes.length / MB) * 500;
          assert.ok(ms < limit, `${bytes.length} bytes in ${Math.round(ms)} ms`);
          for (const url of urls) assertTunnelUrl(url, bytes.toString());
        }),
      ),
      bounded(60),
    );
  });
});
