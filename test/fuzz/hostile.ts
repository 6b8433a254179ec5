// What the fuzzers throw at mnemo's edges: text, numbers and JSON an attacker would try, and the
// checks every answer must pass. Each property is bounded in runs and in time, so the suite stays
// within seconds on a small machine.
import assert from 'node:assert/strict';
import os from 'node:os';
import fc from 'fast-check';

/**
 * The runs of one property, with fast-check's report shortened. Time is bounded by `timeBoxed`
 * on the predicate: fast-check's own limits do not fit an async property (interruptAfterTimeLimit
 * abandons a run midway, which then writes on into the next property's data; both it and
 * skipAllAfterTimeLimit count the runs left as failed preconditions and fail the property).
 */
export function bounded(numRuns: number): fc.Parameters<unknown> {
  return { numRuns, reporter: shortReport };
}

/**
 * `predicate`, passing at once once `seconds` have gone since its first run, unless a run has
 * failed (then fast-check's shrinking runs it in full). Each property's time stays within about
 * `seconds` plus one run, and plus the shrinking of a failure.
 */
export function timeBoxed<A extends unknown[], R>(
  seconds: number,
  predicate: (...args: A) => R,
): (...args: A) => R {
  let deadline: number | undefined;
  let failed = false;
  const fail = (error: unknown): never => {
    failed = true;
    throw error;
  };
  return (...args: A): R => {
    const now = performance.now();
    deadline ??= now + seconds * 1000;
    if (!failed && now > deadline) return undefined as R;
    try {
      const result = predicate(...args);
      return (result instanceof Promise ? result.catch(fail) : result) as R;
    } catch (error) {
      return fail(error);
    }
  };
}

/** fast-check's report with long runs of one character shortened: a counterexample can be 1 MB. */
function shortReport(out: fc.RunDetails<unknown>): void {
  if (!out.failed) return;
  const message = (fc.defaultReportMessage(out) ?? 'property failed').replace(
    /(.)\1{31,}/gs,
    (run, char: string) => `${char.repeat(8)}...(${run.length} times)`,
  );
  throw new Error(clip(message, 4000), { cause: out.errorInstance });
}

const MB = 1 << 20;

/** Text that has broken parsers: separators, traversal, NUL, lone surrogates, long runs. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\0',
      'a\0b',
      '../../../../etc/passwd',
      '..',
      '/',
      '/etc/passwd',
      'C:\\Windows\\win.ini',
      '%2e%2e%2f',
      '__proto__',
      'constructor',
      'prototype',
      '\u2028\u2029',
      '\ud800',
      '\r\n',
      '\n',
      '---js\n{}\n---',
      '[[',
      '## Related',
      '{"jsonrpc":"2.0"}',
      '<script>alert(1)</script>',
      '\u0024{process.env}',
      'NaN',
      '1e999',
      '-1',
      '\u202e',
      '\ufeff',
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(' ', '[', '#', 'a', '\n', '/', '\\', ']]', '0')
      .chain((c) => fc.integer({ min: 1_000, max: 200_000 }).map((n) => c.repeat(n))),
  },
);

/** Numbers a schema must refuse or clamp: negative, fractional, huge, not safe integers. */
export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(
    -1,
    0,
    -0,
    0.5,
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER + 2,
    Number.MIN_SAFE_INTEGER - 2,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    2 ** 31,
    2 ** 53,
  ),
);

/** A key that has polluted prototypes elsewhere. */
export const hostileKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString');

/** Any JSON value with hostile leaves, and objects that carry `__proto__` as an own key. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileText,
    hostileNumber.filter(Number.isFinite),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    tie('object'),
  ),
  object: fc
    .array(fc.tuple(fc.oneof(fc.string({ maxLength: 8 }), hostileKey), tie('value')), {
      maxLength: 5,
    })
    .map(objectOf),
})).value;

/** An object from entries, `__proto__` kept as an own key (as JSON.parse makes it). */
export function objectOf(entries: [string, unknown][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(out, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** `{...}` with an own `__proto__` key, as text: JSON.parse keeps it, a literal would not. */
export function withProtoKey(json: string, polluted = '"polluted"'): string {
  return json.replace(/^\{/, `{"__proto__":{"polluted":${polluted}},`).replace(/,\}$/, '}');
}

/** Throws if anything put a property on Object.prototype (a prototype pollution). */
export function assertNoPollution(): void {
  const plain: Record<string, unknown> = {};
  assert.equal(plain.polluted, undefined, 'Object.prototype was polluted');
  assert.deepEqual(Object.keys(Object.prototype), [], 'Object.prototype has new keys');
}

const HOME = os.homedir();
const TMP = os.tmpdir();

/**
 * A text shown to a remote caller: no absolute path of this machine (the temp dir where the test
 * keeps its data, the home folder, the source tree), no stack trace.
 */
export function assertNoInternals(text: string, where: string, extra: string[] = []): void {
  for (const secret of [TMP, HOME, process.cwd(), ...extra]) {
    if (secret.length > 1)
      assert.ok(!text.includes(secret), `${where} shows ${secret}: ${clip(text)}`);
  }
  assert.doesNotMatch(
    text,
    /\n\s+at [^\n]*:\d+:\d+/,
    `${where} shows a stack trace: ${clip(text)}`,
  );
}

const METHODS = [
  'ping',
  'initialize',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'notifications/cancelled',
  'notifications/initialized',
  '__proto__',
  'constructor',
  'tools/call/',
  '',
];

const requestId = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 20 }),
  hostileNumber,
  fc.constantFrom(null, true, {}, [], 1e308, 2 ** 64, -0, 'x'.repeat(100_000)),
);

/** A message near JSON-RPC: each field right, wrong or missing, `__proto__` beside them. */
export const rpcish: fc.Arbitrary<Record<string, unknown>> = fc
  .record(
    {
      jsonrpc: fc.oneof(fc.constant('2.0'), fc.constantFrom('1.0', '2', 2, null, '2.0 ')),
      id: requestId,
      method: fc.oneof(fc.constantFrom(...METHODS), hostileText),
      params: fc.oneof(
        hostileJson,
        fc.record({
          name: fc.oneof(fc.constantFrom('save_memory', 'search_memory', 'nope'), hostileText),
          arguments: hostileJson,
        }),
        fc.record({
          uri: fc.oneof(
            hostileText,
            fc.constantFrom(
              'mnemo://vault/../../etc/passwd',
              'mnemo://anchor',
              'file:///etc/passwd',
            ),
          ),
        }),
        fc.record({ name: hostileText, arguments: fc.dictionary(fc.string(), hostileText) }),
      ),
      result: hostileJson,
      error: hostileJson,
    },
    { requiredKeys: [] },
  )
  .chain((fields) =>
    fc
      .boolean()
      .map((proto) =>
        objectOf([
          ...Object.entries(fields),
          ...(proto ? [['__proto__', { polluted: 1 }] as [string, unknown]] : []),
        ]),
      ),
  );

export function clip(text: string, length = 300): string {
  return text.length > length ? `${text.slice(0, length)}... (${text.length} chars)` : text;
}

export { MB };
