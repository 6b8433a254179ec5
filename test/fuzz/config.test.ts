// The settings (MNEMO_* variables and the flags beside them) and the token file (MNEMO_TOKENS),
// given anything: a Config or a ConfigError naming the variable or flag to fix; tokens or a
// TokenFileError naming the line. No other throw, no secret in a message, no prototype pollution.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ConfigError, type ConfigFlags, loadConfig, SETTINGS } from '../../src/config/index.js';
import type { Setting } from '../../src/config/rows.js';
import { isNamespace } from '../../src/storage/engine.js';
import { parseTokenFile, TokenFileError } from '../../src/transport/tokens.js';
import {
  assertNoPollution,
  bounded,
  clip,
  hostileJson,
  hostileNumber,
  hostileText,
  objectOf,
  timeBoxed,
} from './hostile.js';

const ROWS = Object.values(SETTINGS) as Setting[];
const VARIABLES = ROWS.map((row) => row.variable);
/** The settings whose value is a secret: a bearer token, a URL that may carry a password. */
const SECRET = new Set<string>(['MNEMO_AUTH_TOKEN', 'MNEMO_DATABASE_URL']);
const FLAGS: Record<string, keyof ConfigFlags> = {
  '--data-dir': 'dataDir',
  '--at': 'at',
  '--host': 'host',
  '--port': 'port',
  '--namespace': 'namespace',
  '--database-url': 'databaseUrl',
};

/** Text a setting might be given: hostile, numbers written out, near-valid values. */
const settingText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: hostileText },
  { weight: 2, arbitrary: hostileNumber.map(String) },
  { weight: 1, arbitrary: fc.bigInt().map(String) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 400 }).map((n) => '9'.repeat(n)) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\t\n',
      '\0',
      '__proto__',
      'constructor',
      'true',
      'off',
      '0',
      '-0',
      '0x10',
      '1e3',
      'Infinity',
      '-Infinity',
      'NaN',
      '20261399',
      '2026-02-30',
      '99999999999999999999',
      '-99999999999999999999',
      '1mb',
      'exponential',
      'debug',
      'static',
      'default',
      'postgres://u:p@h/db',
      'https://x.example',
      'ftp://x',
      '0.5',
    ),
  },
  { weight: 1, arbitrary: fc.tuple(fc.string(), fc.string()).map(([a, b]) => ` ${a}\0${b} `) },
);

/** A distinctive run a secret carries, so that finding it in a message is a leak, not chance. */
const marker = fc
  .array(fc.constantFrom(...'0123456789abcdefABCDEF+/='), { minLength: 16, maxLength: 48 })
  .map((c) => `Q${c.join('')}Z`);
const secretText: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(fc.oneof(fc.constant(''), hostileText), marker, fc.oneof(fc.constant(''), hostileText))
    .map(([a, m, b]) => `${a}${m}${b}`),
  fc
    .tuple(marker, fc.constantFrom('postgres://u:', 'postgresql://', 'mysql://u:', ' '))
    .map(([m, pre]) => `${pre}${m}@h/db`),
  marker.map((m) => m.slice(0, 10)),
);

/** An environment: some real MNEMO_* names, some unknown ones, `__proto__` as an own key. */
const environment = fc
  .tuple(
    fc
      .uniqueArray(fc.constantFrom(...VARIABLES), { maxLength: 8 })
      .chain((names) =>
        fc.tuple(
          ...names.map((name) =>
            (SECRET.has(name) ? fc.oneof(secretText, settingText) : settingText).map(
              (text) => [name, text] as [string, unknown],
            ),
          ),
        ),
      ),
    fc.array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom('MNEMO_', 'MNEMO_TOKEN', 'MNEMO_SECRET', 'MNEMO_data_dir', 'mnemo_port'),
          fc.string({ maxLength: 12 }).map((s) => `MNEMO_${s}`),
          fc.constantFrom('XDG_DATA_HOME', 'HOME'),
        ),
        settingText,
      ),
      { maxLength: 3 },
    ),
    fc.option(fc.constantFrom('__proto__', 'constructor'), { nil: undefined }),
  )
  .map(
    ([known, extra, proto]) =>
      objectOf([
        ...(extra as [string, unknown][]),
        ...(proto ? [[proto, { polluted: 1 }] as [string, unknown]] : []),
        ...known,
      ]) as NodeJS.ProcessEnv,
  );

const flags = fc
  .dictionary(fc.constantFrom(...Object.values(FLAGS)), settingText, { maxKeys: 3 })
  .map((f) => f as ConfigFlags);

/** The names (variables and flags) `env` and `flags` give a value to, as loadConfig reads them. */
function givenNames(env: NodeJS.ProcessEnv, given: ConfigFlags): string[] {
  const names: string[] = [];
  for (const row of ROWS) {
    if (row.flag && given[FLAGS[row.flag] as keyof ConfigFlags] !== undefined) names.push(row.flag);
    else {
      const text = Object.hasOwn(env, row.variable) ? env[row.variable] : undefined;
      if (typeof text === 'string' && (row.blankIsValue || text.trim() !== ''))
        names.push(row.variable);
    }
  }
  return names;
}

/** loadConfig's answer: the Config, or the ConfigError's message; any other throw fails. */
function load(env: NodeJS.ProcessEnv, given: ConfigFlags = {}): string | undefined {
  try {
    const config = loadConfig({ env, flags: given, home: '/home/fuzz' });
    assert.equal(Object.getPrototypeOf(config), Object.prototype);
    return undefined;
  } catch (error) {
    if (!(error instanceof ConfigError)) {
      assert.fail(`loadConfig threw ${String((error as Error)?.name)}: ${clip(String(error))}`);
    }
    return error.message;
  }
}

/** Whether `message` shows a run of 12 characters of the marker in `secret` found nowhere else. */
function leaks(message: string, secret: string, others: string[]): string | undefined {
  const run = /Q[0-9a-fA-F+/=]{16,48}Z/.exec(secret)?.[0];
  if (run === undefined) {
    // No marker: the whole value, when long enough not to be found in a message by chance.
    const whole = secret.trim();
    return whole.length >= 12 && message.includes(whole) && !others.some((o) => o.includes(whole))
      ? whole
      : undefined;
  }
  for (let i = 0; i + 12 <= run.length; i++) {
    const part = run.slice(i, i + 12);
    if (message.includes(part) && !others.some((o) => o.includes(part))) return part;
  }
  return undefined;
}

describe('loadConfig, given any environment and flags', () => {
  it('property: one setting given anything loads, or is refused by a ConfigError naming it', () => {
    const row = fc.constantFrom(...ROWS);
    fc.assert(
      fc.property(
        row,
        fc.oneof(settingText, secretText),
        fc.boolean(),
        timeBoxed(4, (setting, text, asFlag) => {
          const viaFlag = asFlag && setting.flag !== undefined;
          const env = viaFlag ? {} : { [setting.variable]: text };
          const given: ConfigFlags = viaFlag
            ? { [FLAGS[setting.flag as string] as string]: text }
            : {};
          const message = load(env, given);
          if (message === undefined) return;
          const name = viaFlag ? (setting.flag as string) : setting.variable;
          const dangerZone =
            setting.variable.startsWith('MNEMO_DANGER_ZONE_') &&
            message.startsWith('MNEMO_DANGER_ZONE_MIN must be below MNEMO_DANGER_ZONE_MAX');
          assert.ok(
            message.startsWith(`${name} `) || dangerZone,
            `does not start with ${name}: ${clip(message)}`,
          );
          if (viaFlag) {
            assert.ok(!message.includes(setting.variable), `names the variable: ${clip(message)}`);
          }
          if (SECRET.has(setting.variable)) {
            const shown = leaks(message, text, []);
            assert.equal(shown, undefined, `shows ${shown} of the secret: ${clip(message)}`);
          }
          assertNoPollution();
        }),
      ),
      bounded(3_000),
    );
  });

  it('property: any map of variables and flags gives a Config or a ConfigError naming one given, no secret in it', () => {
    fc.assert(
      fc.property(
        environment,
        flags,
        timeBoxed(4, (env, given) => {
          const message = load(env, given);
          assertNoPollution();
          if (message === undefined) return;
          const names = givenNames(env, given);
          assert.ok(
            names.some((name) => message.startsWith(`${name} `)) ||
              (message.startsWith('MNEMO_DANGER_ZONE_MIN must be below') &&
                names.some((name) => name.startsWith('MNEMO_DANGER_ZONE_'))),
            `names none of ${names.join(', ')} first: ${clip(message)}`,
          );
          for (const variable of SECRET) {
            const text = Object.hasOwn(env, variable) ? env[variable] : undefined;
            if (typeof text !== 'string') continue;
            const others = [
              ...Object.entries(env)
                .filter(([key]) => key !== variable)
                .map(([, v]) => String(v)),
              ...Object.values(given).map(String),
            ];
            const shown = leaks(message, text, others);
            assert.equal(shown, undefined, `shows ${shown} of ${variable}: ${clip(message)}`);
          }
        }),
      ),
      bounded(2_000),
    );
  });
});

// --- The token file (MNEMO_TOKENS). Its JSON syntax errors have their property in
// test/transport/token-file.test.ts; here: the lines form, and JSON of any shape.

/** Tokens as people make them: hex, base64, base64url; never white space or `#`. */
const token = fc
  .tuple(
    fc.constantFrom(
      '0123456789abcdef',
      'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=',
      'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
    ),
    fc.array(fc.nat(), { minLength: 16, maxLength: 64 }),
  )
  .map(([alphabet, picks]) => picks.map((n) => alphabet[n % alphabet.length]).join(''));

const namespace = fc.oneof(
  fc.constantFrom('default', 'a', 'work', 'shared', 'x-1', 'a_b', 'team-research-notes'),
  fc.stringMatching(/^[a-z0-9_-]{1,64}$/),
);
const badNamespace = fc.oneof(
  fc.constantFrom('', 'Bad', 'a b', '../x', '__proto__', 'é', 'a'.repeat(65), '\0', 'constructor!'),
  hostileText,
);

/** Spaces between fields and around the line: spaces, tabs, odd white space. */
const gap = fc.constantFrom(' ', '  ', '\t', ' \t ', '\u00a0', '\u3000', '\ufeff');
const eol = fc.constantFrom(
  '\n',
  '\r\n',
  '\n\n',
  '\n# note\n',
  '  # a comment\n',
  '\n   \n',
  ' # a comment\r\n',
  '\r\n# note\r\n',
);

/** A line of a token file: right, or wrong in one of the ways people get it wrong. */
const line = (tok: string) =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(gap, fc.array(namespace, { minLength: 1, maxLength: 3 }))
        .map(([g, ns]) => `${tok}${g}${ns.join(',')}`),
    },
    // The namespace first, the token after it.
    { weight: 2, arbitrary: fc.tuple(namespace, gap).map(([ns, g]) => `${ns}${g}${tok}`) },
    { weight: 1, arbitrary: fc.constant(tok) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(gap, namespace, gap, hostileText)
        .map(([g, ns, h, x]) => `${tok}${g}${ns}${h}${x}`),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(gap, namespace, badNamespace)
        .map(([g, ns, bad]) => `${tok}${g}${ns},${bad}`),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(gap, namespace).map(([g, ns]) => `${tok.slice(0, 15)}${g}${ns}`),
    },
    { weight: 1, arbitrary: fc.tuple(gap, namespace).map(([g, ns]) => `${tok}${g}${ns}`) },
    {
      weight: 1,
      arbitrary: fc.tuple(gap, namespace).map(([g, ns]) => `${tok}, ${ns}`.replace(' ', g)),
    },
    { weight: 1, arbitrary: fc.tuple(gap, namespace).map(([g, ns]) => `# ${tok}${g}${ns}`) },
    { weight: 1, arbitrary: hostileText },
  );

/** A token file of lines, its tokens (some given twice), and every line's possible faults. */
const linesFile = fc
  .uniqueArray(token, { minLength: 1, maxLength: 5 })
  .chain((tokens) =>
    fc
      .array(fc.tuple(fc.constantFrom(...tokens).chain(line), eol), { minLength: 0, maxLength: 8 })
      .map((lines) => ({ tokens, text: lines.map(([l, e]) => l + e).join('') })),
  );

/** The messages' fixed text, in which a run of a token's characters is no leak. */
const TEMPLATES = [
  '',
  'x',
  'aaaaaaaaaaaaaaaa',
  'aaaaaaaaaaaaaaaa a b',
  'aaaaaaaaaaaaaaaa Bad',
  'aaaaaaaaaaaaaaaa a\naaaaaaaaaaaaaaaa b',
  'short a',
  '{}',
  '[1]',
  '{"x": 1',
  '{"aaaaaaaaaaaaaaaa": []}',
]
  .map((text) => {
    try {
      parseTokenFile(text, 'tokens');
      return '';
    } catch (error) {
      return (error as Error).message;
    }
  })
  .join('\n');

/** Parses `text`; the grants, or the TokenFileError's message; any other throw fails. */
function parse(text: string): ReturnType<typeof parseTokenFile> | string {
  try {
    return parseTokenFile(text, 'tokens');
  } catch (error) {
    if (!(error instanceof TokenFileError)) {
      assert.fail(`parseTokenFile threw ${String((error as Error)?.name)}: ${clip(String(error))}`);
    }
    return error.message;
  }
}

/** Asserts `message` shows no 6 characters in a row of a token, but where the file has them bare. */
function assertNoTokenIn(message: string, text: string, tokens: string[]): void {
  let bare = text;
  for (const tok of [...tokens].sort((a, b) => b.length - a.length))
    bare = bare.replaceAll(tok, '\u0001');
  for (const tok of tokens) {
    for (let i = 0; i + 6 <= tok.length; i++) {
      const part = tok.slice(i, i + 6);
      if (message.includes(part) && !bare.includes(part) && !TEMPLATES.includes(part)) {
        assert.fail(`shows ${part} of a token: ${clip(message)}`);
      }
    }
  }
}

describe('the token file, given any text', () => {
  it('property: lines (comments, blanks, CRLF, odd white space) of valid grants read back as written', () => {
    const grant = fc.record({
      token,
      namespaces: fc.uniqueArray(namespace, { minLength: 1, maxLength: 4 }),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(grant, { minLength: 1, maxLength: 5, selector: (g) => g.token }),
        fc.array(fc.tuple(gap, gap, eol), { minLength: 5, maxLength: 5 }),
        fc.constantFrom('', '\n', '# tokens\n', '\ufeff', '\r\n\r\n'),
        timeBoxed(3, (grants, spacing, head) => {
          const text =
            head +
            grants
              .map((g, i) => {
                const [lead, between, end] = spacing[i] as [string, string, string];
                return `${lead.trim() === '' && lead !== '\ufeff' ? lead : ''}${g.token}${between}${g.namespaces.join(',')}${end}`;
              })
              .join('');
          const read = parse(text);
          assert.ok(typeof read !== 'string', `refused: ${clip(read as string)}\n${clip(text)}`);
          assert.deepEqual(
            read.map((g) => ({ token: g.token, namespaces: [...g.namespaces] })),
            grants.map((g) => ({ token: g.token, namespaces: [...g.namespaces] })),
          );
        }),
      ),
      bounded(1_000),
    );
  });

  it('property: any lines give grants or a TokenFileError naming a line that has text, never a token', () => {
    fc.assert(
      fc.property(
        linesFile,
        timeBoxed(4, ({ tokens, text }) => {
          const read = parse(text);
          assertNoPollution();
          if (typeof read !== 'string') {
            const seen = new Set<string>();
            for (const g of read) {
              assert.ok(g.token.length >= 16 && !/\s/.test(g.token), 'a short token read');
              assert.ok(!seen.has(g.token), 'a token read twice');
              seen.add(g.token);
              assert.ok(g.namespaces.length > 0 && g.namespaces.every(isNamespace));
              assert.ok(Object.isFrozen(g.namespaces));
            }
            return;
          }
          const at =
            /^MNEMO_TOKENS \(tokens\), (line (\d+)|the whole file|its JSON|entry \d+): /.exec(read);
          assert.ok(at, `not the documented message: ${clip(read)}`);
          assert.match(read, /write one "<token> <namespace>\[,<namespace>\.\.\.\]" a line/);
          if (at[2] !== undefined) {
            const raw = text.split('\n')[Number(at[2]) - 1];
            assert.ok(raw !== undefined && raw.trim() !== '', `line ${at[2]} is blank or missing`);
            // `#` starts a comment, to the end of the line (a CRLF file's too); past a lone
            // \r, U+2028 or U+2029 (line ends to a regex, not to a file) it may not.
            if (!/[\r\u2028\u2029]/.test(raw.replace(/\r$/, ''))) {
              assert.ok(!raw.trim().startsWith('#'), `line ${at[2]} is a comment`);
            }
          } else if (at[1] === 'the whole file' && !text.trimStart().startsWith('{')) {
            const lines = text.split('\n').map((l) => l.trim());
            assert.ok(
              lines.every((l) => l === '' || l.startsWith('#')),
              'no token, but a line',
            );
          }
          assertNoTokenIn(read, text, tokens);
        }),
      ),
      bounded(3_000),
    );
  });

  it('property: JSON of any shape (`__proto__` keys, numbers, nesting) gives grants or an error naming the entry, never a token', () => {
    const namespacesValue = fc.oneof(
      fc.array(namespace, { maxLength: 3 }).map((ns) => ns as unknown),
      fc.array(fc.oneof(namespace, badNamespace), { maxLength: 3 }),
      fc.array(namespace, { minLength: 1, maxLength: 3 }).map((ns) => ns.join(',')),
      hostileJson,
      hostileNumber.filter(Number.isFinite),
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(token, { minLength: 1, maxLength: 4 }),
        fc.array(
          fc.tuple(fc.oneof(hostileText, fc.constantFrom('__proto__', 'constructor')), hostileJson),
          { maxLength: 2 },
        ),
        fc.array(namespacesValue, { minLength: 4, maxLength: 4 }),
        fc.array(fc.nat(3), { minLength: 4, maxLength: 4 }),
        timeBoxed(4, (tokens, extra, values, swaps) => {
          // Some entries the wrong way round: a namespace for a key, the token in its list.
          const entries: [string, unknown][] = tokens.map((tok, i) =>
            swaps[i] === 0 ? ['shared-namespace-name', [tok]] : [tok, values[i]],
          );
          const text = JSON.stringify(objectOf([...extra, ...entries]));
          const read = parse(text);
          assertNoPollution();
          if (typeof read !== 'string') {
            for (const g of read)
              assert.ok(g.namespaces.length > 0 && g.namespaces.every(isNamespace));
            return;
          }
          assert.match(read, /^MNEMO_TOKENS \(tokens\), (entry \d+|the whole file|its JSON): /);
          assertNoTokenIn(read, text, tokens);
        }),
      ),
      bounded(2_000),
    );
  });
});
