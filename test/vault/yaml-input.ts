import { createRequire } from 'node:module';
import type { TestContext } from 'node:test';

/** The yaml package as src/vault/note.ts requires it: the same CommonJS module object. */
const yaml = createRequire(import.meta.url)('yaml') as typeof import('yaml');

export interface YamlInput {
  /** Texts handed to the YAML parser. */
  parses: number;
  /** The longest of them, in characters. */
  most: number;
  /** The options each composer was made with. */
  composers: { uniqueKeys?: unknown }[];
  /** The `maxAliasCount` of each document turned into data. */
  aliasCounts: unknown[];
}

/**
 * Records what note parsing hands the yaml package until the test ends: what a parse costs
 * grows with the text the parser sees, so a bound on that text (and linear regexes, checked in
 * test/security/regex-linear.test.ts) bounds the parse on any input, however slow the machine.
 */
export function recordYamlInput(t: TestContext): YamlInput {
  const seen: YamlInput = { parses: 0, most: 0, composers: [], aliasCounts: [] };
  const parse = yaml.Parser.prototype.parse;
  t.mock.method(
    yaml.Parser.prototype,
    'parse',
    function (this: InstanceType<typeof yaml.Parser>, source: string, incomplete?: boolean) {
      seen.parses++;
      seen.most = Math.max(seen.most, source.length);
      return parse.call(this, source, incomplete);
    },
  );
  const compose = yaml.Composer.prototype.compose;
  t.mock.method(
    yaml.Composer.prototype,
    'compose',
    function (this: InstanceType<typeof yaml.Composer>, ...args: Parameters<typeof compose>) {
      seen.composers.push((this as unknown as { options: { uniqueKeys?: unknown } }).options);
      return compose.apply(this, args);
    },
  );
  const toJS = yaml.Document.prototype.toJS;
  t.mock.method(
    yaml.Document.prototype,
    'toJS',
    function (this: InstanceType<typeof yaml.Document>, ...args: Parameters<typeof toJS>) {
      seen.aliasCounts.push(args[0]?.maxAliasCount);
      return toJS.apply(this, args);
    },
  );
  return seen;
}
