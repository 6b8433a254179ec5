import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import zlib from 'node:zlib';
import fc from 'fast-check';
import pino from 'pino';
import { curveSettings } from '../../src/config/derived.js';
import { BROWSE_SORTS } from '../../src/memory/browsing.js';
import { MEMORY_STATUSES } from '../../src/storage/records.js';
import { createHttpApp } from '../../src/transport/http.js';
import { listen, type RunningHttp } from '../../src/transport/listen.js';
import { uiApi } from '../../src/ui/api.js';
import { uiPage } from '../../src/ui/page.js';
import { type RawAnswer, rawRequest } from '../http-raw.js';
import { openTestMemory, type TestMemory, tempDir } from '../support.js';
import { IDS, seedDataDir } from '../ui/seed.js';
import {
  assertNoInternals,
  assertNoPollution,
  bounded,
  clip,
  hostileJson,
  hostileNumber,
  hostileText,
  timeBoxed,
  withProtoKey,
} from './hostile.js';

// The web page's API (src/ui/api.ts) and its assets (src/ui/page.ts) under hostile paths, query
// strings and bodies. What must hold: a 2xx, or a 4xx whose JSON error names what to fix (the
// query parameter, the memory, the action, the body); never a 5xx; no path of the data dir and no
// stack in the answer; an asset answer is the bytes of a file of the assets folder, or a refusal.

const TOKEN = 'fuzz-ui-api-token-0123456789abcdef';
const BODY_LIMIT = 16 * 1024;
/** In every file beside the assets: an answer that holds it served one. */
const SECRET = 'SECRET-NOT-AN-ASSET';

let t: TestMemory;
let dir: string;
let web: string;
let server: RunningHttp;
/** The bytes of every file under web/assets: what a 2xx of /ui/assets may be. */
let assets: Buffer[];
/** The seeded memories' texts: no asset answer may hold one. */
let contents: string[];

before(async () => {
  dir = tempDir();
  seedDataDir(dir);
  contents = fs
    .readFileSync(path.join(dir, 'memories.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { content: string }).content);
  // The page's files, and files beside them a traversal would reach.
  web = path.join(dir, 'web');
  const files: Record<string, string> = {
    'index.html': `<!doctype html>${SECRET} index`,
    'secret.txt': `${SECRET} web`,
    '../secret.txt': `${SECRET} data dir`,
    'assets-other/app.js': `${SECRET} a sibling folder`,
    'assets.gz': `${SECRET} beside`,
    'assets/app.js': 'console.log("mnemo");',
    'assets/app.css': 'body { margin: 0 }',
    'assets/sub/inner.txt': 'inside the assets',
  };
  for (const [name, text] of Object.entries(files)) {
    const at = path.join(web, name);
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.writeFileSync(at, text);
  }
  for (const name of ['app.js', 'app.css']) {
    const at = path.join(web, 'assets', name);
    fs.writeFileSync(`${at}.gz`, zlib.gzipSync(fs.readFileSync(at)));
  }
  assets = [];
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else assets.push(fs.readFileSync(full));
    }
  };
  walk(path.join(web, 'assets'));

  t = await openTestMemory({}, dir);
  await t.opened.readiness.wait('store');
  const app = createHttpApp({
    createMcpServer: () => {
      throw new Error('no MCP in this test');
    },
    authToken: TOKEN,
    allowedHosts: [],
    bodyLimit: `${BODY_LIMIT}b`,
    logger: pino({ level: 'silent' }),
    health: () => ({ status: 'ok' }),
    // Hundreds of requests in seconds: the limit's 429 is not what is tested here.
    rateLimitPerMinute: 0,
    ui: {
      page: uiPage(`${web}${path.sep}`),
      api: uiApi({
        memoryFor: (namespace) => t.opened.memoryFor(namespace),
        curve: curveSettings(t.config),
        vaultDir: t.config.vaultDir,
      }),
    },
  });
  server = await listen(app, '127.0.0.1', 0);
});

after(async () => {
  await server.close(100);
  await t.close();
});

type Answer = RawAnswer;

function send(
  method: string,
  route: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  const all = { authorization: `Bearer ${TOKEN}`, ...headers };
  return rawRequest(server.url, { method, path: route, headers: all, body });
}

/** Percent-encodings that have broken decoders: malformed, overlong, double, NUL. */
const PERCENT_JUNK = [
  '%',
  '%zz',
  '%2',
  '%E0%A4%A',
  '%C0%AE%C0%AE',
  '%c0%af',
  '%252e%252e',
  '%2e%2e',
  '%2e%2e%2f%2e%2e%2f',
  '..%2f..%2f',
  '..%5c..%5c',
  '%00',
  'app.js%00',
  '%ff%fe',
  '%u002e',
  '%F0%9F%98',
  '%ED%A0%80',
];

/**
 * A piece of a path or query as a caller may send it: percent-encoded, or raw (what node's client
 * lets through: 0x21 to 0x7e, so `%`, `/`, `?`, `#` and `\` unescaped), or percent junk.
 */
const piece = (values: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: values.map((v) => encodeURIComponent(v.replace(/[\ud800-\udfff]/g, ''))),
    },
    { weight: 1, arbitrary: values.map((v) => v.replace(/[^\x21-\x7e]/g, '').slice(0, 2000)) },
    { weight: 1, arbitrary: fc.constantFrom(...PERCENT_JUNK) },
  );

const anyId = fc.constantFrom(...Object.values(IDS));

/** Values near each query parameter's valid ones, or anything. */
const PARAM_VALUES: Record<string, string[]> = {
  q: ['cat', 'wifi password', 'the', ''],
  tags: ['home', 'home,pets', ' pets , work ', ',', ''],
  status: [...MEMORY_STATUSES, 'ACTIVE', 'active,archived', ''],
  sort: ['rank', ...BROWSE_SORTS, 'Score', 'score ', ''],
  page: ['1', '2', '0', '-1', '1.5', '1e3', '9007199254740993', ' 1', '0x10', ''],
  at: ['0', '1767225600', '1767225600.5', '-1', '1e400', ''],
};
const PARAMS = Object.keys(PARAM_VALUES);

/** Values a message that echoes them would show as paths of the server (and so hide). */
const PATH_LIKE = ['/etc/passwd', '/', 'C:\\Windows\\win.ini', ' /tmp', '=/x', '(/x)'];

const paramValue = (name: string) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...(PARAM_VALUES[name] ?? [''])) },
    { weight: 1, arbitrary: fc.constantFrom(...PATH_LIKE) },
    { weight: 2, arbitrary: hostileText },
    { weight: 1, arbitrary: hostileNumber.map(String) },
  );

/** A query string of the page's parameters, each once, repeated, missing, or hostile. */
const queryOf = (names: string[]): fc.Arbitrary<string> =>
  fc
    .array(
      fc.oneof(
        {
          weight: 5,
          arbitrary: fc
            .constantFrom(...names)
            .chain((name) =>
              fc.tuple(fc.constant(name), piece(paramValue(name)), fc.constant(true)),
            ),
        },
        {
          weight: 1,
          arbitrary: fc.tuple(
            piece(
              fc.oneof(
                fc.constantFrom('q[]', 'q[a]', 'Q', 'page ', '__proto__', 'constructor'),
                hostileText,
              ),
            ),
            piece(hostileText),
            fc.boolean(),
          ),
        },
      ),
      { maxLength: 6 },
    )
    .map((pairs) =>
      pairs.length === 0 ? '' : `?${pairs.map(([k, v, eq]) => (eq ? `${k}=${v}` : k)).join('&')}`,
    );

/** Words a 4xx of each route must hold: what to fix. */
const BODY_WORDS = 'body|JSON|Content-Type|UTF-8|nests|members|values';
const NAMES = {
  list: /\?(q|tags|status|sort|page|namespace)=|\b(query|tags?|status|sort|page|namespace)\b/,
  memory: /\bmemory\b|memory_id|\bid\b/,
  action: new RegExp(`memory_id|\\bmemory\\b|\\bid\\b|\\baction\\b|${BODY_WORDS}`),
  gcPreview: /\?(at|namespace)=/,
  gc: new RegExp(`\\barchive\\b|${BODY_WORDS}`),
};

/**
 * A piece that makes one segment of the route as sent: not empty, no `/`, `?`, `#` or `\`
 * unescaped (else the path is another route, which answers the API's 404: express reads a URL
 * with `#` or `\` with url.parse, which turns each `\` into `/`).
 */
const segment = (piece: string) => piece !== '' && !/[/?#\\]/.test(piece);

/** Node's own HTTP parser refused the request (a URL past its 16 KB of headers): a bare 4xx. */
const parserRefusal = (res: Answer) =>
  (res.status === 400 || res.status === 431) && res.text === '' && !res.headers['content-type'];

/** What a caller is told when a message named a file of the server: it names nothing to fix. */
const HIDDEN = /a file or folder of the server/;

function checkApi(
  method: string,
  route: string,
  res: Answer,
  names: RegExp,
  shaped = true,
  own = true,
): void {
  const shown = `${method} ${clip(route, 200)} -> ${res.status} ${clip(res.text)}`;
  assert.ok(res.status < 500, `a 5xx: ${shown}`);
  assertNoInternals(res.text, shown, [dir]);
  assert.ok(!res.text.includes(TOKEN), `the token in the answer: ${shown}`);
  assert.ok(
    (res.status >= 200 && res.status < 300) || (res.status >= 400 && res.status < 500),
    `neither a 2xx nor a 4xx: ${shown}`,
  );
  if (parserRefusal(res)) return;
  assert.match(res.headers['content-type'] ?? '', /json/, `not JSON: ${shown}`);
  const parsed = JSON.parse(res.text) as { error?: { message?: unknown } };
  if (res.status < 300) return;
  const message = parsed.error?.message;
  assert.ok(typeof message === 'string' && message !== '', `no message: ${shown}`);
  if (!shaped && res.status === 404 && /no such route/.test(message)) return;
  assert.match(message, names, `a 4xx naming nothing to fix: ${shown}`);
  // The page API's own words name no file: a value sent, echoed, must not read as one.
  if (own) assert.doesNotMatch(message, HIDDEN, `a value sent taken for a path: ${shown}`);
}

const contentType = fc.constantFrom(
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'text/plain',
  'application/x-www-form-urlencoded',
  undefined,
);

/** A body as text: JSON of any shape (near gc's `archive` or not), or not JSON at all. */
const bodyText: fc.Arbitrary<string | undefined> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .record(
        { archive: fc.oneof(fc.boolean(), hostileJson), extra: hostileJson },
        { requiredKeys: [] },
      )
      .map((v) => JSON.stringify(v)),
  },
  { weight: 2, arbitrary: hostileJson.map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 1, arbitrary: fc.constant(withProtoKey('{"archive":true,}', '{"archive":true}')) },
  { weight: 1, arbitrary: hostileText },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      undefined,
      '',
      '{',
      '[]',
      'null',
      '"archive"',
      'true',
      'archive=true',
      '{"archive":"true"}',
      '{"archive":1}',
      `{"archive":"${'a'.repeat(BODY_LIMIT)}"}`,
      `${'['.repeat(5_000)}${']'.repeat(5_000)}`,
    ),
  },
);

describe('fuzz: the page API (/ui/api)', () => {
  it('answers GET /memories with any q, tags, status, sort and page: a 2xx, or a 4xx naming the parameter', async () => {
    let ok = 0;
    await fc.assert(
      fc.asyncProperty(
        queryOf(['q', 'tags', 'status', 'sort', 'page']),
        timeBoxed(4, async (query) => {
          const route = `/ui/api/memories${query}`;
          const res = await send('GET', route);
          checkApi('GET', route, res, NAMES.list);
          if (res.status === 200) ok++;
          assertNoPollution();
        }),
      ),
      bounded(400),
    );
    assert.ok(ok > 0, 'no run listed memories');
  });

  it('answers GET /memories/:id with any id: the memory, or a 4xx naming it', async () => {
    let ok = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 1, arbitrary: anyId }, { weight: 3, arbitrary: piece(hostileText) }),
        queryOf(PARAMS),
        timeBoxed(3, async (id, query) => {
          const route = `/ui/api/memories/${id}${query}`;
          const res = await send('GET', route);
          // Not one segment: another route (`/memories/` is the list, which reads the query).
          const names = segment(id)
            ? NAMES.memory
            : new RegExp(`${NAMES.memory.source}|${NAMES.list.source}`);
          checkApi('GET', route, res, names, segment(id));
          if (res.status === 200) ok++;
        }),
      ),
      bounded(300),
    );
    assert.ok(ok > 0, 'no run opened a memory');
  });

  it('answers POST /memories/:id/:action with any id, action and body: a 2xx, or a 4xx naming what to fix', async () => {
    const actions = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('touch', 'archive', 'restore', 'promote') },
      {
        weight: 2,
        arbitrary: piece(
          fc.oneof(
            fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'Touch'),
            hostileText,
          ),
        ),
      },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 2, arbitrary: anyId }, { weight: 3, arbitrary: piece(hostileText) }),
        actions,
        contentType,
        bodyText,
        timeBoxed(4, async (id, action, type, body) => {
          const route = `/ui/api/memories/${id}/${action}`;
          const headers: Record<string, string> =
            type === undefined ? {} : { 'content-type': type };
          const res = await send('POST', route, headers, body);
          // The actions' refusals are the memory's (memory_id "/x" is not a known memory), whose
          // echo of a path-like id is hidden by the error mapper: not this route's words.
          checkApi('POST', route, res, NAMES.action, segment(id) && segment(action), false);
          assertNoPollution();
        }),
      ),
      bounded(300),
    );
  });

  it('answers GET /gc with any ?at= and POST /gc with any body: a 2xx, or a 4xx naming what to fix', async () => {
    await fc.assert(
      fc.asyncProperty(
        queryOf(['at']),
        contentType,
        bodyText,
        timeBoxed(4, async (query, type, body) => {
          const preview = `/ui/api/gc${query}`;
          checkApi('GET', preview, await send('GET', preview), NAMES.gcPreview);
          const headers: Record<string, string> =
            type === undefined ? {} : { 'content-type': type };
          const before = fs.readFileSync(path.join(dir, 'memories.jsonl'), 'latin1');
          const res = await send('POST', '/ui/api/gc', headers, body);
          checkApi('POST', `/ui/api/gc ${type} ${clip(body ?? '', 100)}`, res, NAMES.gc);
          if (res.status >= 400) {
            const after = fs.readFileSync(path.join(dir, 'memories.jsonl'), 'latin1');
            assert.equal(after, before, `gc refused, yet the store changed: ${clip(res.text)}`);
            return;
          }
          // Run only for what the page sends: nothing, or an object whose archive is a boolean.
          const text = (body ?? '').replace(/^\ufeff/, '').trim();
          const sent = JSON.parse(text === '' ? '{}' : text) as unknown;
          const archive = (sent as { archive?: unknown } | null)?.archive;
          assert.ok(
            sent !== null &&
              typeof sent === 'object' &&
              !Array.isArray(sent) &&
              (archive === undefined || typeof archive === 'boolean'),
            `gc ran for ${clip(body ?? '', 200)}`,
          );
          assertNoPollution();
        }),
      ),
      bounded(200),
    );
  });

  it('refuses a gc body whose archive is not true or false, naming archive, and forgets nothing', async () => {
    for (const body of [
      '{"archive":"true"}',
      '{"archive":1}',
      '{"archive":null}',
      '[]',
      '[true]',
    ]) {
      const before = fs.readFileSync(path.join(dir, 'memories.jsonl'), 'latin1');
      const res = await send('POST', '/ui/api/gc', { 'content-type': 'application/json' }, body);
      assert.equal(res.status, 400, `${body}: ${res.status} ${res.text}`);
      assert.match(res.text, /archive/, body);
      assert.equal(fs.readFileSync(path.join(dir, 'memories.jsonl'), 'latin1'), before, body);
    }
  });
});

describe('fuzz: the page assets (/ui/assets)', () => {
  const names = fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom('app.js', 'app.css', 'sub/inner.txt', 'sub') },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        '../secret.txt',
        '..%2fsecret.txt',
        '..%2Fsecret.txt',
        '%2e%2e%2fsecret.txt',
        '%2e%2e/secret.txt',
        '..%5csecret.txt',
        '..\\secret.txt',
        '..%2f..%2fsecret.txt',
        '../../secret.txt',
        '%2e%2e%2f%2e%2e%2fsecret.txt',
        '..%252fsecret.txt',
        '..%c0%afsecret.txt',
        '../index.html',
        '..%2findex.html',
        '..',
        '%2e%2e',
        '.',
        '',
        '/',
        '//secret.txt',
        '../assets-other/app.js',
        '..%2fassets-other%2fapp.js',
        '../assets.gz',
        '..%2fassets',
        '..%2Fassets-other%2Fapp',
        'app.js%00',
        'app.js%00.png',
        '%00',
        'app.js/',
        'app.js%2f..%2f..%2fsecret.txt',
        'sub/..%2f..%2fsecret.txt',
        'sub%2f..%2f..%2fsecret.txt',
        '..%2f..%2fmemories.jsonl',
        '..%2f..%2f..%2fmemories.jsonl',
        encodeURIComponent(path.join(dir, 'secret.txt')),
        `..${encodeURIComponent(path.sep)}..${encodeURIComponent(path.sep)}secret.txt`,
        '__proto__',
        'constructor',
        'toString',
      ),
    },
    { weight: 2, arbitrary: piece(hostileText) },
    {
      weight: 2,
      arbitrary: fc
        .array(
          fc.constantFrom('..', '%2e%2e', '.', 'sub', 'app.js', 'secret.txt', '', '%2f', '%5c'),
          {
            minLength: 1,
            maxLength: 6,
          },
        )
        .chain((parts) => fc.constantFrom('/', '%2f', '%2F', '\\').map((sep) => parts.join(sep))),
    },
  );

  it('serves an asset, or refuses, for any name: never a file beside the assets, never a 5xx', async () => {
    let served = 0;
    await fc.assert(
      fc.asyncProperty(
        names,
        fc.constantFrom('GET', 'HEAD'),
        fc.constantFrom(undefined, 'gzip', 'identity', 'gzip, deflate, br', '*'),
        timeBoxed(4, async (name, method, encoding) => {
          const route = `/ui/assets/${name}`;
          const headers: Record<string, string> = encoding ? { 'accept-encoding': encoding } : {};
          const res = await send(method, route, headers);
          const shown = `${method} ${clip(route, 200)} (${encoding}) -> ${res.status} ${clip(res.text)}`;
          assert.ok(res.status < 500, `a 5xx: ${shown}`);
          assertNoInternals(res.text, shown, [dir]);
          assertNoInternals(JSON.stringify(res.headers), `the headers of ${shown}`, [dir]);
          assert.ok(!res.text.includes(SECRET), `a file beside the assets: ${shown}`);
          for (const content of contents) {
            assert.ok(!res.text.includes(content), `a memory in an asset answer: ${shown}`);
          }
          if (res.status >= 200 && res.status < 300) {
            if (method === 'GET') {
              assert.ok(
                assets.some((file) => file.equals(res.bytes)),
                `a 2xx that is not a file of the assets: ${shown}`,
              );
            }
            served++;
            return;
          }
          if (res.status >= 300 && res.status < 400) {
            // A folder of the assets (or the folder itself, as /. or //.) with a slash: never elsewhere.
            const location = res.headers.location ?? '';
            assert.match(location, /^\/ui\/assets\//, `a redirect out: ${shown}`);
            return;
          }
          assert.ok(res.status >= 400, `neither 2xx, 3xx nor 4xx: ${shown}`);
          if (method === 'GET' && res.text !== '') {
            const message = (JSON.parse(res.text) as { error?: { message?: unknown } }).error
              ?.message;
            assert.ok(typeof message === 'string' && message !== '', `no message: ${shown}`);
          }
        }),
      ),
      bounded(400),
    );
    assert.ok(served > 0, 'no run served an asset');
  });
});
