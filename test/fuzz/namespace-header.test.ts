import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import { curveSettings } from '../../src/config/derived.js';
import { createServer } from '../../src/server.js';
import { createHttpApp } from '../../src/transport/http.js';
import { listen, type RunningHttp } from '../../src/transport/listen.js';
import { parseTokenFile } from '../../src/transport/tokens.js';
import { uiApi } from '../../src/ui/api.js';
import { uiPage } from '../../src/ui/page.js';
import { type RawAnswer, rawRequest } from '../http-raw.js';
import { openTestMemory, type TestMemory } from '../support.js';
import {
  assertNoInternals,
  assertNoPollution,
  bounded,
  clip,
  hostileJson,
  hostileNumber,
  hostileText,
  objectOf,
  timeBoxed,
  withProtoKey,
} from './hostile.js';

// Tenants kept apart at the edge: the X-Mnemo-Namespace header (and ?namespace=) picks the
// namespace of a request among those its token holds (src/transport/callers.ts), on /mcp and the
// page's API; and the cursors of resources/list (src/resources/index.ts) and read_graph
// (src/memory/graph.ts) page one namespace's listing only. What must hold: a request answers in a
// namespace its token holds or is refused with a 4xx; a caller never reads or changes another
// namespace's memories; a cursor, however crafted, gives a page of the caller's own namespace or
// the documented refusal (-32602 for resources/list, read_graph's isError naming cursor).

const GLOBAL = 'fuzz-ns-global-0123456789abcdef';
const TOKEN_A = 'fuzz-ns-token-a-0123456789abcdef';
const TOKEN_BC = 'fuzz-ns-token-bc-0123456789abcdef';

/** What each token holds: A one namespace, BC two it may choose between, the global default. */
const HELD: Record<string, readonly string[]> = {
  [GLOBAL]: ['default'],
  [TOKEN_A]: ['a'],
  [TOKEN_BC]: ['b', 'c'],
  '': [],
};
const NAMESPACES = ['default', 'a', 'b', 'c'] as const;
type Namespace = (typeof NAMESPACES)[number];
/** A word only the memories of each namespace hold: an answer that shows it read them. */
const MARKER: Record<Namespace, string> = {
  default: 'dustyheron',
  a: 'amberwolf',
  b: 'bluefinch',
  c: 'cobaltmoth',
};
const SEEDED = 3;

let t: TestMemory;
let server: RunningHttp;
/** The seeded memories' ids, by namespace. */
const ids: Record<Namespace, string[]> = { default: [], a: [], b: [], c: [] };

type Answer = RawAnswer;

function send(
  method: string,
  route: string,
  headers: Record<string, string | string[]>,
  body?: string,
): Promise<Answer> {
  const all = { 'content-type': 'application/json', ...headers };
  return rawRequest(server.url, { method, path: route, headers: all, body });
}

const auth = (token: string): Record<string, string> =>
  token === '' ? {} : { authorization: `Bearer ${token}` };

/** A JSON-RPC call to /mcp. */
function rpc(
  headers: Record<string, string | string[]>,
  method: string,
  params: unknown,
  route = '/mcp',
): Promise<Answer> {
  return send(
    'POST',
    route,
    { accept: 'application/json, text/event-stream', ...headers },
    JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  );
}

interface RpcAnswer {
  result?: {
    isError?: boolean;
    content?: { type: string; text?: string }[];
    structuredContent?: Record<string, unknown>;
    resources?: { uri: string; name: string }[];
    nextCursor?: string;
  };
  error?: { code: number; message: string };
}

async function tool(
  headers: Record<string, string>,
  name: string,
  args: Record<string, unknown>,
): Promise<RpcAnswer> {
  const res = await rpc(headers, 'tools/call', { name, arguments: args });
  assert.equal(res.status, 200, `${name}: ${res.status} ${clip(res.text)}`);
  return JSON.parse(res.text) as RpcAnswer;
}

/** Namespace `ns`'s memories as stored: what a caller of another must never change. */
function stored(ns: string): string {
  return JSON.stringify([...t.opened.storeOf(ns).memories.entries()]);
}

before(async () => {
  t = await openTestMemory();
  await t.opened.readiness.wait('store');
  const app = createHttpApp({
    createMcpServer: (namespace) =>
      createServer({ memory: t.opened.memoryFor(namespace), logger: t.logger }),
    authToken: GLOBAL,
    tokens: parseTokenFile(`${TOKEN_A} a\n${TOKEN_BC} b,c\n`, 'tokens.txt'),
    allowedHosts: [],
    // Cursors of any length reach the readers (a 413 would stop them before).
    bodyLimit: '8mb',
    logger: pino({ level: 'silent' }),
    health: () => ({ status: 'ok' }),
    // Hundreds of requests in seconds: the limit's 429 is not what is tested here.
    rateLimitPerMinute: 0,
    ui: {
      page: uiPage(),
      api: uiApi({
        memoryFor: (namespace) => t.opened.memoryFor(namespace),
        curve: curveSettings(t.config),
      }),
    },
  });
  server = await listen(app, '127.0.0.1', 0);
  // Each namespace's memories, saved by a caller of it: a's is the one b's caller must not see.
  const words = ['keeps the spare key under the third stone', 'parks on level four', 'likes tea'];
  for (const ns of NAMESPACES) {
    const token = ns === 'default' ? GLOBAL : ns === 'a' ? TOKEN_A : TOKEN_BC;
    for (let i = 0; i < SEEDED; i++) {
      const saved = await tool({ ...auth(token), 'x-mnemo-namespace': ns }, 'save_memory', {
        content: `The ${MARKER[ns]} ${words[i]}`,
        tags: ['seeded'],
      });
      const id = saved.result?.structuredContent?.memory_id;
      assert.equal(typeof id, 'string', JSON.stringify(saved));
      ids[ns].push(id as string);
    }
  }
  for (const ns of NAMESPACES) {
    assert.deepEqual(
      [...t.opened.storeOf(ns).memories.values()].map((r) => r.content.split(' ')[1]),
      [MARKER[ns], MARKER[ns], MARKER[ns]],
    );
  }
});

after(async () => {
  await server.close(100);
  await t.close();
});

/** The markers an answer shows: the namespaces whose memories it read. */
const shownIn = (text: string): Namespace[] => NAMESPACES.filter((ns) => text.includes(MARKER[ns]));

/** A header value node's client will send: no CR, LF, NUL or other control character. */
const headerSafe = (v: string) => v.replace(/[^\t\x20-\x7e\x80-\xff]/g, '').slice(0, 4000);

/** What a caller may put in X-Mnemo-Namespace: names, near names, traversal, anything. */
const namespaceValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NAMESPACES) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'A',
      'B',
      'C',
      'Default',
      'DEFAULT',
      ' a ',
      '\tb\t',
      'b ',
      ' c',
      '\u00a0a',
      'a\u00a0',
      'b,c',
      'b, a',
      'a,b',
      '*',
      '',
      ' ',
      '../a',
      'b/../a',
      'b/../../a',
      './b',
      'b/',
      '/a',
      'a/',
      '..',
      '.',
      '%61',
      'b%2f..%2fa',
      'a\\',
      'b\\..\\a',
      'a;b',
      'a b',
      '__proto__',
      'constructor',
      'toString',
      'zz',
      'x'.repeat(65),
      'a'.repeat(64),
    ),
  },
  { weight: 2, arbitrary: hostileText.map(headerSafe) },
);

/** The header as sent: none, once, or twice (node joins a repeated one with ", "). */
const headerOf = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 6, arbitrary: namespaceValue },
  { weight: 1, arbitrary: fc.array(namespaceValue, { minLength: 2, maxLength: 2 }) },
);

/** ?namespace= once or twice; each value short enough that the URL stays within node's 16 KB. */
const queryOf = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  {
    weight: 2,
    arbitrary: fc.array(
      namespaceValue.map((v) => v.slice(0, 1000)),
      { minLength: 1, maxLength: 2 },
    ),
  },
);

/** ?namespace= given twice without the header: which one is meant is not said. */
const TWICE = Symbol('twice');

/**
 * The namespace a request asks for, as callers.ts reads it: the header (as the server receives
 * it: repeated ones joined, then trimmed), else ?namespace= given once; undefined for the token's
 * first. One the token does not hold must be refused.
 */
function asked(
  header: string | string[] | undefined,
  query: string[] | undefined,
): string | typeof TWICE | undefined {
  if (header !== undefined) {
    const value = (Array.isArray(header) ? header.join(', ') : header).trim();
    return value === '' ? undefined : value;
  }
  if (query !== undefined && query.length > 1) return TWICE;
  return query?.[0] === '' ? undefined : query?.[0];
}

type Kind =
  | 'session'
  | 'list'
  | 'open'
  | 'touch'
  | 'search'
  | 'read-resource'
  | 'save'
  | 'graph'
  | 'resources';

let writes = 0;

/** One request of `kind` as `token`, about a memory of namespace `of`. */
async function request(
  kind: Kind,
  token: string,
  headers: Record<string, string | string[]>,
  query: string,
  of: Namespace,
  pick: number,
): Promise<{ res: Answer; write?: string }> {
  const id = ids[of][pick % SEEDED] as string;
  const all = { ...auth(token), ...headers };
  switch (kind) {
    case 'session':
      return { res: await send('GET', `/ui/api/session${query}`, all) };
    case 'list':
      return {
        res: await send('GET', `/ui/api/memories${query}${query ? '&' : '?'}tags=seeded`, all),
      };
    case 'open':
      return { res: await send('GET', `/ui/api/memories/${id}${query}`, all) };
    case 'touch':
      return { res: await send('POST', `/ui/api/memories/${id}/touch${query}`, all, '{}') };
    case 'search':
      return {
        res: await rpc(
          all,
          'tools/call',
          {
            name: 'search_memory',
            arguments: { query: MARKER[of] },
          },
          `/mcp${query}`,
        ),
      };
    case 'read-resource':
      return {
        res: await rpc(all, 'resources/read', { uri: `mnemo://memory/${id}` }, `/mcp${query}`),
      };
    case 'graph':
      return {
        res: await rpc(all, 'tools/call', { name: 'read_graph', arguments: {} }, `/mcp${query}`),
      };
    case 'resources':
      return { res: await rpc(all, 'resources/list', {}, `/mcp${query}`) };
    case 'save': {
      const write = `scribble number ${++writes} of the fuzzer`;
      return {
        res: await rpc(
          all,
          'tools/call',
          {
            name: 'save_memory',
            arguments: { content: write },
          },
          `/mcp${query}`,
        ),
        write,
      };
    }
  }
}

/** Whether an answer is a refusal: a 4xx, or a JSON-RPC error or tool error in a 200. */
function refused(res: Answer): boolean {
  if (res.status >= 400) return true;
  const body = JSON.parse(res.text) as RpcAnswer & Record<string, unknown>;
  return body.error !== undefined || body.result?.isError === true;
}

describe('fuzz: X-Mnemo-Namespace', () => {
  it('answers in a namespace the token holds or refuses with a 4xx, and never reads or changes another', async () => {
    const served: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(GLOBAL, TOKEN_A, TOKEN_BC, TOKEN_BC, ''),
        headerOf,
        queryOf,
        fc.constantFrom<Kind>(
          'session',
          'list',
          'open',
          'touch',
          'search',
          'read-resource',
          'save',
          'graph',
          'resources',
        ),
        fc.constantFrom(...NAMESPACES),
        fc.nat(),
        timeBoxed(6, async (token, header, query, kind, of, pick) => {
          const held = HELD[token] as readonly string[];
          const others = NAMESPACES.filter((ns) => !held.includes(ns));
          const before = others.map(stored);
          const headers: Record<string, string | string[]> =
            header === undefined ? {} : { 'x-mnemo-namespace': header };
          const search =
            query === undefined
              ? ''
              : `?${query.map((v) => `namespace=${encodeURIComponent(v)}`).join('&')}`;
          const { res, write } = await request(kind, token, headers, search, of, pick);
          const wanted = asked(header, query);
          const shown = `${kind} as ${held.join(',') || 'nobody'} (header ${JSON.stringify(header)}, query ${JSON.stringify(query)}) about ${of} -> ${res.status} ${clip(res.text)}`;

          assert.ok(res.status < 500, `a 5xx: ${shown}`);
          assertNoInternals(res.text, shown);
          for (const secret of [GLOBAL, TOKEN_A, TOKEN_BC]) {
            assert.ok(!res.text.includes(secret), `a token in the answer: ${shown}`);
          }
          // Nothing of another namespace was changed, whatever the answer.
          assert.deepEqual(others.map(stored), before, `another namespace changed: ${shown}`);
          assert.deepEqual(
            t.opened.namespaces().filter((ns) => !(NAMESPACES as readonly string[]).includes(ns)),
            [],
            `a namespace was made: ${shown}`,
          );
          // Nothing of another namespace was shown, whatever the answer.
          const leaked = shownIn(res.text).filter((ns) => !held.includes(ns));
          assert.deepEqual(leaked, [], `another namespace's memories shown: ${shown}`);
          if (write !== undefined) {
            const landed = NAMESPACES.filter((ns) =>
              [...t.opened.storeOf(ns).memories.values()].some((r) => r.content === write),
            );
            assert.ok(
              landed.every((ns) => held.includes(ns)),
              `written elsewhere: ${shown}`,
            );
            if (!refused(res)) assert.equal(landed.length, 1, `saved, but where? ${shown}`);
          }

          // Asked for a namespace the token does not hold (or no token at all): refused.
          const allowed =
            wanted === undefined
              ? held.length > 0
              : wanted !== TWICE && held.length > 0 && held.includes(wanted);
          if (!allowed) {
            assert.ok(res.status >= 400 && res.status < 500, `not refused: ${shown}`);
            const message = (JSON.parse(res.text) as RpcAnswer).error?.message ?? '';
            assert.match(message, /namespace|token/i, `a refusal naming nothing: ${shown}`);
            return;
          }
          // The namespace it answers in: the one asked for, else the token's first.
          const ns = (wanted as string | undefined) ?? (held[0] as string);
          served[ns] = (served[ns] ?? 0) + 1;
          if (kind === 'open' || kind === 'touch' || kind === 'read-resource') {
            // A memory of another namespace is no memory here; its own is.
            assert.equal(refused(res), of !== ns, `${of}'s memory in ${ns}: ${shown}`);
          } else {
            assert.ok(!refused(res), `a namespace the token holds, refused: ${shown}`);
          }
          if (kind === 'session') {
            assert.equal((JSON.parse(res.text) as { namespace: string }).namespace, ns, shown);
          }
          if (kind === 'list' || (kind === 'search' && of === ns)) {
            // Its own seeded memories, which the list and a search of its own word both show.
            assert.ok(shownIn(res.text).includes(ns as Namespace), `its own not shown: ${shown}`);
          }
          assertNoPollution();
        }),
      ),
      bounded(500),
    );
    // Each namespace was served at some run (so the leak checks ran against each).
    assert.deepEqual(
      Object.keys(served).sort(),
      ['a', 'b', 'c', 'default'],
      JSON.stringify(served),
    );
  });
});

// The cursors: crafted JSON in base64url (wrong types, huge and negative offsets, another
// namespace's name or listing), and text that is no cursor at all.

const RESOURCES_KIND = 'mnemo-resources';
/** b's caller (TOKEN_BC asking for b). */
const B = { authorization: `Bearer ${TOKEN_BC}`, 'x-mnemo-namespace': 'b' };
/** read_graph's listing of namespace a and of b (no filters), from cursors they gave. */
let listingA: string;
let listingB: string;

const base64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** A field of a crafted cursor: right, another namespace's, of a wrong type, or missing. */
const hostileField = fc.oneof(
  hostileJson,
  hostileNumber.map((n) => (Number.isFinite(n) ? n : String(n))),
  fc.constantFrom(undefined, null, true, [], {}, '1', 1e21, -1, 0, -0, 0.5, 2 ** 53, 2 ** 64),
);

/** A crafted cursor's JSON text, and the object it holds (undefined when not one). */
interface Crafted {
  text: string;
  object: Record<string, unknown> | undefined;
}

const craftedJson = (fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Crafted> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(
          fc.oneof(
            { weight: 2, arbitrary: fc.record(fields) },
            { weight: 1, arbitrary: fc.record(fields, { requiredKeys: [] }) },
          ),
          fc.array(fc.tuple(fc.string({ maxLength: 4 }), hostileJson), { maxLength: 2 }),
        )
        .map(([known, extra]) => {
          const object = objectOf(
            [...extra, ...Object.entries(known)].filter(([, v]) => v !== undefined),
          );
          return { text: JSON.stringify(object), object: JSON.parse(JSON.stringify(object)) };
        }),
    },
    {
      weight: 1,
      arbitrary: fc.record(fields, { requiredKeys: Object.keys(fields) }).map((known) => {
        const text = withProtoKey(JSON.stringify(known), '{"o":1,"k":"x"}');
        return { text, object: JSON.parse(text) as Record<string, unknown> };
      }),
    },
    {
      weight: 2,
      arbitrary: hostileJson.map((v) => {
        const text = JSON.stringify(v) ?? 'null';
        const parsed = JSON.parse(text) as unknown;
        return {
          text,
          object:
            parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
              ? (parsed as Record<string, unknown>)
              : undefined,
        };
      }),
    },
  );

/** A cursor as sent: the crafted JSON in base64url or base64, or hostile text. */
const cursorOf = (json: fc.Arbitrary<Crafted>) =>
  fc.oneof(
    { weight: 6, arbitrary: json.map((c) => ({ cursor: base64url(c.text), crafted: c })) },
    { weight: 1, arbitrary: json.map((c) => ({ cursor: base64(c.text), crafted: c })) },
    {
      weight: 2,
      arbitrary: hostileText.map((cursor) => ({
        cursor,
        crafted: undefined as Crafted | undefined,
      })),
    },
  );

describe('fuzz: cursors', () => {
  before(async () => {
    const cursorOfNs = async (token: string, ns: string) => {
      const page = await tool(
        { authorization: `Bearer ${token}`, 'x-mnemo-namespace': ns },
        'read_graph',
        { limit: 1 },
      );
      const cursor = page.result?.structuredContent?.next_cursor;
      assert.equal(typeof cursor, 'string', JSON.stringify(page));
      return (
        JSON.parse(Buffer.from(cursor as string, 'base64url').toString('utf8')) as { l: string }
      ).l;
    };
    listingA = await cursorOfNs(TOKEN_A, 'a');
    listingB = await cursorOfNs(TOKEN_BC, 'b');
    assert.notEqual(listingA, listingB);
  });

  /** The memory ids an answer shows all are b's, and nothing of another namespace shows. */
  function onlyB(text: string, shown: string): void {
    assert.deepEqual(
      shownIn(text).filter((ns) => ns !== 'b'),
      [],
      `another namespace's memories: ${shown}`,
    );
    const own = t.opened.storeOf('b').memories;
    for (const id of text.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g) ??
      []) {
      assert.ok(own.has(id), `an id not of b: ${id} in ${shown}`);
    }
  }

  it('resources/list: a crafted cursor gives a page of b or -32602, never another namespace', async () => {
    let pages = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          {
            weight: 8,
            arbitrary: cursorOf(
              craftedJson({
                k: fc.oneof(
                  { weight: 3, arbitrary: fc.constant(RESOURCES_KIND) },
                  { weight: 1, arbitrary: hostileField },
                ),
                n: fc.oneof(
                  { weight: 2, arbitrary: fc.constant('b') },
                  { weight: 2, arbitrary: fc.constantFrom('a', 'c', 'default', 'B', ' b', 'b ') },
                  { weight: 1, arbitrary: hostileField },
                ),
                o: fc.oneof(
                  { weight: 3, arbitrary: fc.integer({ min: -3, max: 8 }) },
                  { weight: 1, arbitrary: hostileField },
                ),
              }),
            ),
          },
          {
            weight: 1,
            arbitrary: fc
              .constantFrom(5, null, true, {}, [], { k: RESOURCES_KIND, n: 'b', o: 1 })
              .map((cursor) => ({ cursor: cursor as unknown, crafted: undefined })),
          },
        ),
        timeBoxed(4, async ({ cursor, crafted }) => {
          const res = await rpc(B, 'resources/list', { cursor });
          const shown = `${clip(JSON.stringify(crafted?.text ?? cursor), 200)} -> ${res.status} ${clip(res.text)}`;
          assert.equal(res.status, 200, shown);
          assertNoInternals(res.text, shown);
          onlyB(res.text, shown);
          const answer = JSON.parse(res.text) as RpcAnswer;
          const o = crafted?.object;
          const valid =
            o !== undefined &&
            o.k === RESOURCES_KIND &&
            o.n === 'b' &&
            Number.isInteger(o.o) &&
            (o.o as number) > 0;
          if (answer.error) {
            assert.equal(answer.error.code, -32602, `not -32602: ${shown}`);
            assert.match(answer.error.message, /cursor/, shown);
            // A cursor of this listing is refused only past its end (b lists 3 fixed + 3 memories).
            if (valid) assert.ok((o.o as number) > 6, `a valid cursor refused: ${shown}`);
            return;
          }
          assert.ok(valid, `a cursor that is not one gave a page: ${shown}`);
          assert.ok(Array.isArray(answer.result?.resources), shown);
          pages++;
          assertNoPollution();
        }),
      ),
      bounded(400),
    );
    assert.ok(pages > 0, 'no crafted cursor gave a page');
  });

  it("read_graph: a crafted cursor gives a page of b or the error naming cursor, never another namespace's", async () => {
    let pages = 0;
    await fc.assert(
      fc.asyncProperty(
        cursorOf(
          craftedJson({
            // An id of a's (or c's) is a place in the ids' order, not a way into a.
            a: fc.oneof(
              {
                weight: 3,
                arbitrary: fc.constantFrom(...ids.a, ...ids.b, ...ids.c, '', '0', 'zzzz', '\uffff'),
              },
              { weight: 1, arbitrary: hostileField },
            ),
            l: fc.oneof(
              { weight: 2, arbitrary: fc.constant(listingB) },
              { weight: 2, arbitrary: fc.constantFrom(listingA, 'a', 'b', 'default') },
              { weight: 1, arbitrary: hostileField },
            ),
          }),
        ),
        fc.option(fc.constantFrom({ status: ['active'] }, { tags: ['seeded'] }, { limit: 2 }), {
          nil: undefined,
        }),
        timeBoxed(4, async ({ cursor, crafted }, filters) => {
          const res = await rpc(B, 'tools/call', {
            name: 'read_graph',
            arguments: { ...filters, cursor },
          });
          const shown = `${clip(JSON.stringify(crafted?.text ?? cursor), 200)} ${JSON.stringify(filters)} -> ${res.status} ${clip(res.text)}`;
          assert.equal(res.status, 200, shown);
          assertNoInternals(res.text, shown);
          onlyB(res.text, shown);
          const answer = JSON.parse(res.text) as RpcAnswer;
          assert.equal(answer.error, undefined, `a JSON-RPC error, not the tool's: ${shown}`);
          const o = crafted?.object;
          // Valid for b's listing without filters (limit is no filter).
          const valid =
            cursor.length <= 2_000 &&
            o !== undefined &&
            typeof o.a === 'string' &&
            o.a !== '' &&
            o.l === listingB &&
            (filters === undefined || 'limit' in filters);
          if (answer.result?.isError) {
            const message = answer.result.content?.map((c) => c.text ?? '').join('\n') ?? '';
            assert.match(message, /\bcursor\b/, `an error not naming cursor: ${shown}`);
            assert.ok(!valid, `a valid cursor refused: ${shown}`);
            return;
          }
          assert.ok(valid, `a cursor that is not one gave a page: ${shown}`);
          assert.ok(Array.isArray(answer.result?.structuredContent?.memories), shown);
          pages++;
          assertNoPollution();
        }),
      ),
      bounded(400),
    );
    assert.ok(pages > 0, 'no crafted cursor gave a page');
  });
});
