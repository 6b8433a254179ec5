// Generated hostile notes thrown at the note parser and the scans over note text. Each property
// says what must hold; each runs a few hundred cases and stops after a few seconds.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { relatedSectionStart } from '../../src/platform/related-section.js';
import { bodyTags, readNote, wikilinkTargets } from '../../src/transfer/sources/markdown.js';
import {
  MAX_FRONT_MATTER_CHARS,
  parseNote,
  replaceNoteBody,
  updateOwnedProperties,
} from '../../src/vault/note.js';
import { readNoteFile } from '../../src/vault/note-file.js';
import { testDir } from '../support.js';
import { recordYamlInput } from './yaml-input.js';

const RUNS = { numRuns: 300, interruptAfterTimeLimit: 4000 } as const;
const PWNED = '__mnemoFuzzPwned';

// Lines an attacker would put in front matter: language engines, anchors and aliases (bombs
// and cycles), tags that name code, prototype keys, merge keys, odd structure, long lines.
const HOSTILE_LINE = fc.oneof(
  fc.constantFrom(
    '---',
    '---js',
    '---javascript',
    '--- coffee',
    `{ t: (globalThis.${PWNED} = 1) }`,
    `f: !!js/function "function () { globalThis.${PWNED} = 1 }"`,
    'r: !!js/regexp /(a+)+$/',
    'u: !!js/undefined ""',
    'b: !!binary aGVsbG8=',
    'd: !!timestamp 2026-01-01',
    'c: !custom {x: 1}',
    'a: &a [x, x, x, x, x, x, x, x, x]',
    'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
    'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
    'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
    'loop: &l [*l]',
    '<<: *a',
    '__proto__: {polluted: true}',
    'constructor: {prototype: {polluted: true}}',
    'memory_id: m-1',
    'title: "quoted \\u0000 nul"',
    '? [complex, key]',
    ': value',
    '  - item',
    '\t- tabbed',
    '{',
    '[',
    '%YAML 1.1',
    '...',
    '## Related',
    '- [[a]]',
  ),
  fc.string({ maxLength: 40 }),
  fc.nat({ max: 20_000 }).map((n) => `k: ${'x'.repeat(n)}`),
  fc.nat({ max: 20_000 }).map((n) => `${' '.repeat(n)}#`),
  fc
    .tuple(fc.nat({ max: 9000 }), fc.constantFrom('[', '{a: ', '- ', '? ', '[{'))
    .map(([n, open]) => `a: ${open.repeat(n)}`),
);

const HOSTILE_NOTE = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.array(HOSTILE_LINE, { maxLength: 30 }).map((lines) => lines.join('\n')),
  fc
    .tuple(fc.array(HOSTILE_LINE, { maxLength: 20 }), fc.constantFrom('\n', '\r\n'), fc.string())
    .map(([lines, eol, body]) => `---${eol}${lines.join(eol)}${eol}---${eol}${body}`),
);

/** Plain data only: what a YAML core-schema mapping can be, nothing with a prototype of its own. */
function isPlainData(value: unknown, depth = 0): boolean {
  if (depth > 200) return false;
  if (value === null) return true;
  if (['string', 'number', 'boolean'].includes(typeof value)) return true;
  if (Array.isArray(value)) return value.every((v) => isPlainData(v, depth + 1));
  if (typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value as object).every((v) => isPlainData(v, depth + 1));
}

describe('the note parser on hostile notes (property)', () => {
  // Linear time: the YAML parser is never handed more than the cap, and every regex in src is
  // linear (test/security/regex-linear.test.ts).
  it('never throws, never runs anything, answers plain data, never parses more than the cap', (t) => {
    const yaml = recordYamlInput(t);
    fc.assert(
      fc.property(HOSTILE_NOTE, (text) => {
        const parsed = parseNote(text);
        assert.ok(yaml.most <= MAX_FRONT_MATTER_CHARS, `${yaml.most} characters of YAML`);
        assert.equal((globalThis as Record<string, unknown>)[PWNED], undefined, 'code ran');
        assert.equal(({} as Record<string, unknown>).polluted, undefined, 'prototype polluted');
        assert.ok(isPlainData(parsed.properties), JSON.stringify(text.slice(0, 200)));
        assert.equal(typeof parsed.body, 'string');
        if (!parsed.valid) assert.deepEqual(parsed.properties, {});
      }),
      RUNS,
    );
  });

  it('updateOwnedProperties and replaceNoteBody never throw; what they write reads back', (t) => {
    const yaml = recordYamlInput(t);
    fc.assert(
      fc.property(HOSTILE_NOTE, fc.string({ maxLength: 30 }), (text, value) => {
        const updated = updateOwnedProperties(text, { last_used: value, use_count: 3 });
        if (updated !== undefined) {
          const back = parseNote(updated);
          assert.ok(back.valid);
          assert.equal(back.properties.last_used, value);
          assert.equal(back.properties.use_count, 3);
        }
        const replaced = replaceNoteBody(text, parseNote(text).body, value);
        if (replaced !== undefined) assert.ok(parseNote(replaced).valid);
        assert.ok(yaml.most <= MAX_FRONT_MATTER_CHARS, `${yaml.most} characters of YAML`);
      }),
      RUNS,
    );
  });

  it('the Markdown import reads any note without throwing, never parsing more than the cap', (t) => {
    const yaml = recordYamlInput(t);
    fc.assert(
      fc.property(HOSTILE_NOTE, (text) => {
        const read = readNote('n.md', text, 0);
        assert.ok(yaml.most <= MAX_FRONT_MATTER_CHARS, `${yaml.most} characters of YAML`);
        assert.equal((globalThis as Record<string, unknown>)[PWNED], undefined, 'code ran');
        if ('item' in read) assert.equal(typeof read.item.content, 'string');
      }),
      RUNS,
    );
  });
});

// The regexes the scans replaced, as the reference on short text (where backtracking is cheap):
// the scans must find exactly what they found.
const OLD_RELATED = /(?:^|\r?\n)## Related[ \t]*(?:\r?\n[ \t]*- \[\[[^\n]*\]\][ \t]*)*\s*$/;
const OLD_WIKILINK = /!?\[\[([^\]\n]+?)\]\]/g;
const PIECES = fc.constantFrom(
  '\n',
  '\r\n',
  '\r',
  ' ',
  '\t',
  '\u00a0',
  '## Related',
  '- [[',
  '[[',
  ']]',
  ']',
  '[',
  '!',
  'a',
  '|',
  '#',
  '-',
);
const SHORT = fc.array(PIECES, { maxLength: 24 }).map((p) => p.join(''));

describe('the linear scans find what the regexes they replaced found (property)', () => {
  it('relatedSectionStart: where the Related section starts', () => {
    fc.assert(
      fc.property(SHORT, (body) => {
        const match = OLD_RELATED.exec(body);
        assert.equal(relatedSectionStart(body), match ? match.index : body.length);
      }),
      { numRuns: 2000, interruptAfterTimeLimit: 4000 },
    );
  });

  it('wikilinkTargets: the targets of [[...]]', () => {
    const old = (prose: string) =>
      [...prose.matchAll(OLD_WIKILINK)]
        .map((m) =>
          (m[1] as string)
            .split('|')[0]
            ?.split('#')[0]
            ?.split('^')[0]
            ?.trim()
            .replace(/\\$/, '')
            .replace(/\.md$/i, ''),
        )
        .filter(Boolean);
    fc.assert(
      fc.property(SHORT, (prose) => assert.deepEqual(wikilinkTargets(prose), old(prose))),
      { numRuns: 2000, interruptAfterTimeLimit: 4000 },
    );
  });

  it('bodyTags: #tags, trailing slashes dropped', () => {
    const tags = fc
      .array(fc.constantFrom('#', 'a', '1', '/', ' ', '\n', '(', '-', '_'), { maxLength: 20 })
      .map((p) => p.join(''));
    const old = (prose: string) =>
      [...prose.matchAll(/(?:^|[\s(])#([\p{L}\p{N}_/-]+)/gu)]
        .map((m) => (m[1] as string).replace(/\/+$/, ''))
        .filter((t) => /[^\d]/.test(t));
    fc.assert(
      fc.property(tags, (prose) => assert.deepEqual(bodyTags(prose), old(prose))),
      { numRuns: 1000, interruptAfterTimeLimit: 3000 },
    );
  });
});

describe('the note reader on generated files (property)', () => {
  it('reads back exactly what a regular file holds, and refuses a link to it', (t) => {
    const root = testDir(t);
    let n = 0;
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), (bytes) => {
        const name = `n${n++}.md`;
        fs.writeFileSync(path.join(root, name), bytes);
        fs.symlinkSync(name, path.join(root, `link-${name}`));
        const file = readNoteFile(root, name);
        assert.ok(file.ok);
        assert.equal(file.text, Buffer.from(bytes).toString('utf8'));
        const link = readNoteFile(root, `link-${name}`);
        assert.deepEqual([link.ok, !link.ok && link.why], [false, 'link']);
      }),
      { numRuns: 200, interruptAfterTimeLimit: 3000 },
    );
  });
});
