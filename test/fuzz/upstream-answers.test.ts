import assert from 'node:assert/strict';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import { createGateway, type Gateway } from '../../src/gateway/proxy.js';
import { createHttpApp } from '../../src/transport/http.js';
import { listen } from '../../src/transport/listen.js';
import { handUpstream } from '../gateway/fake-handshake.js';
import { tempDir } from '../support.js';
import {
  assertNoInternals,
  assertNoPollution,
  clip,
  hostileJson,
  hostileKey,
  hostileNumber,
  hostileText,
  objectOf,
  rpcish,
  timeBoxed,
  withProtoKey,
} from './hostile.js';

// An upstream's answers (src/gateway/channel.ts, route.ts, upstream.ts, process-group-stdio.ts,
// bounded-fetch.ts), generated: results with hostile contents, errors with hostile codes and
// messages, wrong ids, lines that are no JSON, notifications, huge strings, deep nesting,
// `__proto__` keys; over HTTP also statuses, content types and SSE streams. What must hold: the
// caller of /mcp/<label> gets a JSON-RPC result (an object) or an error (an integer code, a
// message naming the upstream, at most MAX_MESSAGE characters), with its own id; nothing is
// polluted; the upstream's Authorization header and the route's token are never echoed; a
// normal call afterwards is served; and the gateway, closed, leaves no timer holding the process.
// One gateway a property, its upstream answering each run as the run says.

/** Where a line puts the gateway's request id: `"@@ID@@"` becomes it, as JSON. */
const ID = '@@ID@@';
/** Where an HTTP answer's body echoes the Authorization header the gateway sent. */
const AUTH = '@@AUTH@@';
/** The docs cut an upstream's error message to 2,000 characters, then name the upstream. */
const MAX_MESSAGE = 2_100;
/** The longest wait for an upstream's answer: answers with no valid line end there. */
const CALL_TIMEOUT_MS = 500;
/** The largest message read from an upstream (both transports). */
const CAP = 10 * 1024 * 1024;
/** What the gateway sends the HTTP upstream in its Authorization header. */
const UPSTREAM_SECRET = 'upstream-secret-4b1d9e7a2c6f8035';
/** What opens the HTTP upstream's route on the gateway. */
const ROUTE_TOKEN = 'route-token-9c2e5a7f1d3b6048';

type Message = Record<string, unknown>;

/**
 * The runs of one property, its report shortened: runs of one character said by their length
 * (a counterexample here can be 10 MB, which the regex of hostile.ts's report overflows on).
 */
function runs(numRuns: number): fc.Parameters<unknown> {
  return {
    numRuns,
    reporter(out) {
      if (!out.failed) return;
      const report = fc.defaultReportMessage(out) ?? 'property failed';
      const message = shortRuns(`${report}\n${String(out.errorInstance)}`);
      throw new Error(clip(message, 4000), { cause: out.errorInstance });
    },
  };
}

/** `text` with each run of more than 32 of one character as 8 of them and its length. */
function shortRuns(text: string): string {
  const out: string[] = [];
  for (let at = 0; at < text.length; ) {
    let end = at + 1;
    while (end < text.length && text[end] === text[at]) end++;
    const run = end - at;
    out.push(run > 32 ? `${(text[at] as string).repeat(8)}...(${run} times)` : text.slice(at, end));
    at = end;
  }
  return out.join('');
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON-RPC message as text, its fields in order, `__proto__` among them as an own key. */
const json = (...fields: [string, unknown][]) => JSON.stringify(objectOf(fields));

/** Numbers JSON.stringify never writes: past double range, fractions, unsafe integers. */
const rawNumber = fc.constantFrom('1e999', '-1e999', '0.5', '-0', '1e308', '9007199254740993');

const hostileObject = fc
  .array(fc.tuple(fc.oneof(fc.string({ maxLength: 8 }), hostileKey), hostileJson), {
    maxLength: 5,
  })
  .map(objectOf);

/** A tools/call result: its usual fields, each right or hostile, beside hostile ones. */
const toolResult = fc
  .tuple(
    fc.record(
      {
        content: fc.oneof(
          fc.array(
            fc.record({
              type: fc.oneof(fc.constantFrom('text', 'image', 'resource'), hostileText),
              text: hostileText,
            }),
            { maxLength: 3 },
          ),
          hostileJson,
        ),
        structuredContent: hostileJson,
        isError: hostileJson,
        _meta: hostileJson,
        resultType: fc.oneof(fc.constantFrom('complete', 'input_required'), hostileJson),
        ttlMs: hostileJson,
      },
      { requiredKeys: [] },
    ),
    hostileObject,
  )
  .map(([known, extra]) => objectOf([...Object.entries(extra), ...Object.entries(known)]));

/** Results the SDK's schema says much of: a long list of content that is no content. */
const longResult = fc
  .tuple(fc.integer({ min: 1_000, max: 5_000 }), fc.constantFrom<unknown>(1, '', null, {}, [], 'x'))
  .map(([n, item]) => ({ content: Array.from({ length: n }, () => item) }));

const result = fc.oneof(
  { weight: 4, arbitrary: toolResult },
  { weight: 4, arbitrary: hostileObject },
  { weight: 1, arbitrary: longResult },
);

/** An error object: the code and message right or not, data anything. */
const errorObject = fc.record(
  {
    code: fc.oneof(fc.integer(), hostileNumber, hostileJson),
    message: fc.oneof(
      hostileText,
      hostileJson,
      fc.constantFrom(2_001, 100_000, 5_000_000).map((n) => `MCP error -1: ${'m'.repeat(n)}`),
    ),
    data: hostileJson,
  },
  { requiredKeys: [] },
);

/** A line that answers the call: a result, or an error whose code is an integer. */
const answer = fc.oneof(
  result.map((r) => json(['jsonrpc', '2.0'], ['id', ID], ['result', r])),
  fc
    .tuple(fc.integer(), fc.oneof(hostileText, fc.constantFrom('', 'MCP error -32000: x')))
    .map(([code, message]) => json(['jsonrpc', '2.0'], ['id', ID], ['error', { code, message }])),
);

/** Ids of no call in flight: other types, stale or far ids of the gateway's own form. */
const wrongId = fc.oneof(
  fc.integer(),
  hostileText,
  fc.constantFrom(null, 'mnemo-gw-0', 'mnemo-gw-999999999', 'mnemo-gw-', `${ID} `, 1e308),
);

/** `n` deep: arrays or objects. */
const nested = (n: number, arrays: boolean) =>
  arrays ? `${'['.repeat(n)}${']'.repeat(n)}` : `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

/** A line an upstream might write while the call waits. */
const line: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: answer },
  {
    weight: 3,
    arbitrary: errorObject.map((e) => json(['jsonrpc', '2.0'], ['id', ID], ['error', e])),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(wrongId, fc.oneof(result, errorObject), fc.boolean())
      .map(([id, body, isResult]) =>
        json(['jsonrpc', '2.0'], ['id', id], [isResult ? 'result' : 'error', body]),
      ),
  },
  {
    // Near JSON-RPC: fields right, wrong or missing, sometimes with the call's id.
    weight: 2,
    arbitrary: fc
      .tuple(rpcish, fc.boolean())
      .map(([m, ours]) => JSON.stringify(ours ? objectOf([...Object.entries(m), ['id', ID]]) : m)),
  },
  {
    // Notifications, progress on the call among them; requests to the gateway.
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.oneof(
          fc.constantFrom(
            'notifications/progress',
            'notifications/message',
            'notifications/cancelled',
            'notifications/tools/list_changed',
            'sampling/createMessage',
            'roots/list',
            'ping',
          ),
          hostileText,
        ),
        fc.oneof(
          hostileJson,
          fc.record(
            {
              progressToken: fc.oneof(fc.constant(ID), hostileJson),
              progress: hostileNumber,
              total: hostileJson,
              message: hostileText,
            },
            { requiredKeys: [] },
          ),
        ),
        fc.option(fc.integer(), { freq: 2, nil: undefined }),
      )
      .map(([method, params, id]) =>
        json(
          ['jsonrpc', '2.0'],
          ...(id === undefined ? [] : [['id', id] as [string, unknown]]),
          ['method', method],
          ['params', params],
        ),
      ),
  },
  {
    // Numbers no serializer writes, where a code or a progress goes.
    weight: 2,
    arbitrary: fc
      .tuple(rawNumber, fc.boolean())
      .map(([n, progress]) =>
        progress
          ? `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"${ID}","progress":${n},"total":${n}}}`
          : `{"jsonrpc":"2.0","id":"${ID}","error":{"code":${n},"message":"raw"}}`,
      ),
  },
  // No JSON, or JSON that is no message (a line may hold line ends: more lines).
  { weight: 2, arbitrary: hostileText },
  {
    // Huge strings under the cap, in a result or an error message.
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(100_000, 1_000_000, CAP - 2_000), fc.boolean())
      .map(([n, inResult]) =>
        inResult
          ? `{"jsonrpc":"2.0","id":"${ID}","result":{"content":[{"type":"text","text":"${'x'.repeat(n)}"}]}}`
          : `{"jsonrpc":"2.0","id":"${ID}","error":{"code":-32000,"message":"${'e'.repeat(n)}"}}`,
      ),
  },
  {
    // Nested around the 256 the gateway passes on, and far past it.
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom(1, 254, 255, 256, 257, 10_000, 200_000, 200_000),
        fc.boolean(),
        fc.boolean(),
      )
      .map(([n, arrays, inError]) =>
        inError
          ? `{"jsonrpc":"2.0","id":"${ID}","error":{"code":-32000,"message":"deep","data":${nested(n, arrays)}}}`
          : `{"jsonrpc":"2.0","id":"${ID}","result":{"content":[],"structuredContent":{"a":${nested(n, arrays)}}}}`,
      ),
  },
  {
    // `__proto__` as the message's own key, the call's result beside it.
    weight: 1,
    arbitrary: fc
      .tuple(answer, hostileJson)
      .map(([text, polluted]) => withProtoKey(text, JSON.stringify(polluted) ?? 'null')),
  },
  {
    // Past the cap: the transport is closed, and the upstream restarted.
    weight: 1,
    arbitrary: fc.constant(
      `{"jsonrpc":"2.0","id":"${ID}","result":{"content":[{"type":"text","text":"${'o'.repeat(CAP)}"}]}}`,
    ),
  },
);

/** Progress on the call: its numbers JSON, raw or no numbers at all. */
const progress = fc
  .tuple(
    fc.oneof(
      { weight: 2, arbitrary: rawNumber },
      { weight: 1, arbitrary: hostileNumber.map(String) },
      { weight: 1, arbitrary: hostileJson.map((j) => JSON.stringify(j) ?? 'null') },
    ),
    fc.option(rawNumber, { freq: 2, nil: undefined }),
    hostileText,
  )
  .map(
    ([n, total, message]) =>
      `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"${ID}","progress":${n},${total === undefined ? '' : `"total":${total},`}"message":${JSON.stringify(message)}}}`,
  );

/** What an upstream writes for one call: progress, a few lines, most often ending in an answer. */
const lines = fc
  .tuple(
    fc.array(progress, { maxLength: 2 }),
    fc.array(line, { maxLength: 3 }),
    fc.option(answer, { freq: 3, nil: undefined }),
  )
  .map(([reports, before, last]) => [...reports, ...before, ...(last === undefined ? [] : [last])]);

/** How the caller asks: 2025 or 2026-07-28 on the fast path, relayed by the SDK, or with progress. */
type Way = 'legacy' | 'modern' | 'relayed' | 'progress';
const way = fc.constantFrom<Way>('legacy', 'modern', 'relayed', 'progress');

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Caller {
  url: string;
  label: string;
  headers?: Record<string, string>;
}

interface Got {
  status: number;
  text: string;
  /** The JSON-RPC messages of the answer: one, or an SSE stream's events. */
  messages: Message[];
}

/** tools/call `name` on /mcp/<label>, asked `how`. */
async function callTool(caller: Caller, name: string, how: Way, id: string | number): Promise<Got> {
  const modern = how === 'modern' || how === 'relayed';
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...caller.headers,
    ...(modern
      ? {
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          // The base64 form takes the SDK's path, which relays the call.
          'mcp-name':
            how === 'relayed' ? `=?base64?${Buffer.from(name).toString('base64')}?=` : name,
        }
      : {}),
  };
  const _meta = modern ? MODERN_META : how === 'progress' ? { progressToken: 'p' } : undefined;
  const res = await fetch(`${caller.url}/mcp/${caller.label}`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: {}, ...(_meta ? { _meta } : {}) },
    }),
    // A bound on a failure (an answer that never comes), not a wait for time to pass.
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  let messages: Message[];
  if (type.startsWith('text/event-stream')) {
    messages = text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as Message);
  } else {
    assert.match(type, /^application\/json/, `answered as ${type}: ${clip(text)}`);
    messages = [JSON.parse(text) as Message];
  }
  return { status: res.status, text, messages };
}

/**
 * The caller's answer to the call of id `id`: progress notifications with numbers, then one
 * JSON-RPC answer with the caller's id, a result object or an error naming the upstream.
 */
function assertAnswer(got: Got, label: string, id: string | number): void {
  const where = `the answer ${clip(got.text)}`;
  assert.equal(got.status, 200, where);
  assert.ok(got.messages.length > 0, where);
  const last = got.messages[got.messages.length - 1] as Message;
  for (const progress of got.messages.slice(0, -1)) {
    assert.equal(progress.method, 'notifications/progress', where);
    const params = progress.params as Message;
    assert.equal(params.progressToken, 'p', where);
    assert.ok(Number.isFinite(params.progress), `progress that is no number: ${where}`);
    if ('total' in params)
      assert.ok(Number.isFinite(params.total), `a total that is no number: ${where}`);
  }
  assert.equal(last.jsonrpc, '2.0', where);
  assert.deepEqual(last.id, id, where);
  assert.notEqual('result' in last, 'error' in last, `a result or an error: ${where}`);
  if ('result' in last) {
    assert.ok(isObject(last.result), `a result that is no object: ${where}`);
    return;
  }
  const error = last.error as Message;
  assert.ok(isObject(error), where);
  assert.ok(Number.isSafeInteger(error.code), `an error code that is no integer: ${where}`);
  const message = error.message;
  assert.equal(typeof message, 'string', where);
  const text = message as string;
  assert.match(text, new RegExp(`^upstream "${label}"[ :]`), `names the upstream: ${where}`);
  assert.ok(text.length <= MAX_MESSAGE, `an error message of ${text.length} characters`);
  // The gateway's own words (not the upstream's, passed on after `upstream "x": `).
  if (!text.startsWith(`upstream "${label}": `)) assertNoInternals(text, 'the gateway');
}

/**
 * A normal call, answered as ever. After an answer past the cap (`closing`), the upstream closes
 * its connection and restarts, maybe while this call is in flight: until it is back, a call may
 * be refused (503) or fail (an error naming the upstream), and is tried again.
 */
async function assertServed(
  gateway: Gateway,
  caller: Caller,
  id: number,
  closing: boolean,
): Promise<void> {
  const ok = [{ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'ok' }] } }];
  const deadline = performance.now() + 10_000;
  for (;;) {
    await gateway.upstream(caller.label)?.whenReady(10_000);
    const got = await callTool(caller, 'ok', 'legacy', id);
    if (!closing || performance.now() > deadline) return assert.deepEqual(got.messages, ok);
    if (got.status === 200 && 'result' in (got.messages[0] ?? {})) {
      return assert.deepEqual(got.messages, ok);
    }
    if (got.status !== 503) assertAnswer(got, caller.label, id);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The gateway of `servers` behind the HTTP edge; closed after the test. */
async function serve(
  t: { after(fn: () => Promise<void>): void },
  servers: Parameters<typeof createGateway>[0]['servers'],
  log: (line: string) => void = () => {},
): Promise<{ gateway: Gateway; url: string; close(): Promise<void> }> {
  const logger = pino({ level: 'debug' }, { write: log });
  const gateway = createGateway({
    servers,
    logger,
    callTimeoutMs: CALL_TIMEOUT_MS,
    backoff: { initialMs: 20, maxMs: 200 },
  });
  const app = createHttpApp({
    createMcpServer: () => assert.fail('no memory calls here'),
    allowedHosts: [],
    bodyLimit: '1mb',
    logger: pino({ level: 'silent' }),
    health: () => ({}),
    rateLimitPerMinute: 0,
    gateway,
  });
  const server = await listen(app, '127.0.0.1', 0);
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= server.close(0).then(() => gateway.close());
    return closed;
  };
  t.after(close);
  return { gateway, url: server.url, close };
}

/** The timers that hold this process open. */
const heldTimers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

/**
 * A stdio upstream by hand: opens as a 2025 server; tools/call `fuzz` is answered with the
 * lines of the file ANSWERS, `"@@ID@@"` in them made the call's id; any other tool answers ok.
 */
const STDIO_UPSTREAM = `
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
  const { id, method, params } = JSON.parse(line);
  if (id === undefined || method === undefined) return;
  if (method === 'initialize') {
    send({ jsonrpc: '2.0', id, result: { protocolVersion: params.protocolVersion,
      capabilities: { tools: {} }, serverInfo: { name: 'generated', version: '1' } } });
  } else if (method === 'tools/list') {
    send({ jsonrpc: '2.0', id, result: { tools: [] } });
  } else if (method === 'tools/call' && params?.name === 'fuzz') {
    process.stdout.write(readFileSync(process.env.ANSWERS, 'utf8').replaceAll('"${ID}"', JSON.stringify(id)));
  } else if (method === 'tools/call') {
    send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'ok' }] } });
  } else {
    send({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
  }
});
`;

describe('a stdio upstream whose answers are generated', () => {
  it('the caller gets a result or an error naming the upstream, bounded; the next call is served', async (t) => {
    const dir = tempDir('mnemo-fuzz-upstream-');
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const script = path.join(dir, 'upstream.mjs');
    const answers = path.join(dir, 'answers.jsonl');
    fs.writeFileSync(script, STDIO_UPSTREAM);
    const label = 'gen';
    const { gateway, url } = await serve(t, {
      [label]: { command: process.execPath, args: [script], env: { ANSWERS: answers } },
    });
    const caller = { url, label };
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        lines,
        way,
        timeBoxed(6, async (written: string[], how: Way) => {
          const id = ++run % 2 === 0 ? run : `call-${run}`;
          await gateway.upstream(label)?.whenReady(10_000);
          fs.writeFileSync(answers, `${written.join('\n')}\n`);
          assertAnswer(await callTool(caller, 'fuzz', how, id), label, id);
          assertNoPollution();
          await assertServed(
            gateway,
            caller,
            -run,
            written.some((l) => l.length > CAP),
          );
        }),
      ),
      runs(40),
    );
  });
});

/** An HTTP answer: status, content type (none when empty) and body. */
interface HttpAnswer {
  status: number;
  type: string;
  body: string;
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/event-stream',
  'text/html',
  'text/plain',
  '',
  'application/json, text/event-stream',
  'application/jsonl',
  'text/event-streams',
  'multipart/mixed; boundary=x',
];

/** An SSE `retry:` (ms before the client reopens the stream): days, none, or no number. */
const sseRetry = fc.oneof(
  { weight: 1, arbitrary: fc.nat().map(String) },
  {
    weight: 3,
    arbitrary: fc.constantFrom('2147483647', '86400000', '600000', '0', '-1', '1e999', 'x'),
  },
);

/** An SSE event: its data one line, beside hostile fields and comments. */
const sseEvent = fc
  .record(
    {
      event: fc.constantFrom('message', '', 'error', 'endpoint', 'x\u0000'),
      id: fc.oneof(fc.string({ maxLength: 10 }), fc.constant(ID)),
      retry: sseRetry,
      comment: fc.oneof(hostileText, fc.constant(`you sent ${AUTH}`)),
      data: fc.oneof(line, fc.constant(AUTH)),
    },
    { requiredKeys: ['data'] },
  )
  .map((e) =>
    [
      e.comment !== undefined ? `: ${e.comment}` : '',
      e.event !== undefined ? `event: ${e.event}` : '',
      e.id !== undefined ? `id: ${e.id}` : '',
      e.retry !== undefined ? `retry: ${e.retry}` : '',
      `data: ${e.data}`,
    ]
      .filter((l) => l !== '')
      .join('\n'),
  );

const httpAnswer: fc.Arbitrary<HttpAnswer> = fc
  .tuple(
    fc.oneof(
      { weight: 6, arbitrary: fc.constant(200) },
      fc.constantFrom(201, 202, 204, 301, 400, 401, 403, 404, 406, 413, 429, 500, 502, 503),
      fc.integer({ min: 200, max: 599 }),
    ),
    fc.oneof(
      // JSON: an answer, one line, or a batch of lines.
      {
        weight: 5,
        arbitrary: fc
          .oneof(
            { weight: 4, arbitrary: answer },
            { weight: 2, arbitrary: line },
            { weight: 1, arbitrary: lines.map((ls) => `[${ls.join(',')}]`) },
          )
          .map((body) => ({ type: 'application/json', body })),
      },
      // SSE: maybe a priming event (an id to resume from, a retry), progress, events, maybe the
      // answer, the last maybe cut short.
      {
        weight: 5,
        arbitrary: fc
          .tuple(
            fc.option(
              fc
                .tuple(fc.stringMatching(/^[0-9a-z_-]{1,12}$/), sseRetry)
                .map(([id, retry]) => `id: ${id}\nretry: ${retry}\ndata:`),
              { freq: 2, nil: undefined },
            ),
            fc.array(progress, { maxLength: 2 }),
            fc.array(sseEvent, { maxLength: 4 }),
            fc.option(answer, { freq: 3, nil: undefined }),
            fc.constantFrom('\n\n', '\r\n\r\n', '\n'),
            fc.boolean(),
          )
          .map(([priming, reports, events, last, separator, ended]) => {
            const all = [
              ...(priming === undefined ? [] : [priming]),
              ...reports.map((report) => `data: ${report}`),
              ...events,
              ...(last === undefined ? [] : [`event: message\ndata: ${last}`]),
            ];
            return {
              type: 'text/event-stream',
              body: `${all.join(separator)}${ended ? separator : ''}`,
            };
          }),
      },
      // A page, or text: the Authorization header echoed in it, maybe.
      {
        weight: 2,
        arbitrary: fc
          .tuple(
            fc.constantFrom('text/html', 'text/plain', 'application/json'),
            hostileText,
            fc.boolean(),
          )
          .map(([type, text, echo]) => ({
            type,
            body: `<html><body>${text}${echo ? ` you sent ${AUTH}` : ''}</body></html>`,
          })),
      },
      { weight: 1, arbitrary: fc.constant({ type: '', body: '' }) },
      // Past the cap: the connection is closed, and the upstream restarted.
      {
        weight: 1,
        arbitrary: fc.constantFrom('application/json', 'text/event-stream').map((type) => ({
          type,
          body: `${type === 'text/event-stream' ? 'data: ' : ''}"${'o'.repeat(CAP)}"`,
        })),
      },
    ),
    // The content type said: most often the body's own.
    fc.oneof(
      { weight: 3, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
    ),
  )
  .map(([status, { type, body }, said]) => ({ status, type: said ?? type, body }));

/**
 * A streamable HTTP upstream by hand: opens as a 2025 server; tools/call `fuzz` is answered with
 * `answer()`, the call's id and the Authorization header it was sent put in; any other tool
 * answers ok.
 */
function generatedUpstream(answer: () => HttpAnswer): http.Server {
  return handUpstream('generated', ({ id, method, params, req, res, json }) => {
    if (method !== 'tools/call') return false;
    if (params?.name !== 'fuzz') {
      json({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'ok' }] } });
      return true;
    }
    const { status, type, body: text } = answer();
    // Everything the gateway sent, echoed where the body says.
    const echo = JSON.stringify(req.headers);
    res
      .writeHead(status, type === '' ? {} : { 'content-type': type })
      .end(text.replaceAll(`"${ID}"`, JSON.stringify(id)).replaceAll(AUTH, echo));
    return true;
  });
}

describe('an HTTP upstream whose answers are generated', () => {
  it('the caller gets a result or an error naming the upstream, bounded, no token in it; the next call is served', async (t) => {
    const timers = heldTimers();
    let current: HttpAnswer = { status: 200, type: '', body: '' };
    const upstream = generatedUpstream(() => current);
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    t.after(async () => {
      upstream.closeAllConnections();
      await new Promise((resolve) => upstream.close(resolve));
    });
    const port = (upstream.address() as { port: number }).port;
    const label = 'web';
    const leaks: string[] = [];
    const { gateway, url, close } = await serve(
      t,
      {
        [label]: {
          url: `http://127.0.0.1:${port}/mcp`,
          headers: { Authorization: `Bearer ${UPSTREAM_SECRET}` },
          token: ROUTE_TOKEN,
        },
      },
      (logged) => {
        if (logged.includes(UPSTREAM_SECRET) || logged.includes(ROUTE_TOKEN)) leaks.push(logged);
      },
    );
    const caller = { url, label, headers: { authorization: `Bearer ${ROUTE_TOKEN}` } };
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        httpAnswer,
        way,
        timeBoxed(6, async (generated: HttpAnswer, how: Way) => {
          const id = ++run % 2 === 0 ? run : `call-${run}`;
          await gateway.upstream(label)?.whenReady(10_000);
          leaks.length = 0;
          current = generated;
          const got = await callTool(caller, 'fuzz', how, id);
          for (const secret of [UPSTREAM_SECRET, ROUTE_TOKEN]) {
            assert.ok(!got.text.includes(secret), `the answer holds a token: ${clip(got.text)}`);
          }
          assertAnswer(got, label, id);
          assertNoPollution();
          await assertServed(gateway, caller, -run, generated.body.length > CAP);
          assert.deepEqual(
            leaks.map((l) => clip(l)),
            [],
            'the log holds a token',
          );
        }),
      ),
      runs(40),
    );
    // Closed, the gateway holds the process open no longer: an SSE `retry:` of days from the
    // upstream set a timer the SDK's close() left running.
    await close();
    assert.ok(heldTimers() <= timers, 'the closed gateway left timers running');
  });
});
