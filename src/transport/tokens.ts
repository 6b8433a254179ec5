// The token file of `mnemo serve` (MNEMO_TOKENS): which namespaces each bearer token may use.
// Its messages name the line and the fix, never a token.
import { jsonSyntaxWhere, UserError } from '../platform/errors.js';
import { isNamespace, NAMESPACE_PATTERN } from '../storage/engine.js';

/** One token and the namespaces it may use; the first is the one a request gets by default. */
export interface TokenGrant {
  token: string;
  namespaces: readonly string[];
}

export class TokenFileError extends UserError {
  override name = 'TokenFileError';
}

const MIN_TOKEN = 16;

const FORMAT =
  'write one "<token> <namespace>[,<namespace>...]" a line (# starts a comment), or a JSON object {"<token>": ["<namespace>", ...]}';

/**
 * Reads a token file: JSON (`{"<token>": ["a", "b"]}`, or "a,b") when it starts with `{`, else
 * lines of `<token> <namespace>[,<namespace>]`, blank lines and `#` comments skipped. `source`
 * names the file in the messages.
 */
/**
 * A line without its `#` comment: `/#.*$/` removes from the first `#` after the line's last
 * terminator (`.` stops at `\r`, U+2028 and U+2029 too), found in one pass.
 */
export function withoutComment(line: string): string {
  let from = 0;
  for (let at = line.length - 1; at >= 0; at--) {
    const char = line[at];
    if (char === '\n' || char === '\r' || char === '\u2028' || char === '\u2029') {
      from = at + 1;
      break;
    }
  }
  const hash = line.indexOf('#', from);
  return hash === -1 ? line : line.slice(0, hash);
}

export function parseTokenFile(text: string, source: string): TokenGrant[] {
  const fail = (where: string, why: string) =>
    new TokenFileError(`MNEMO_TOKENS (${source}), ${where}: ${why}. ${FORMAT}`);
  const grants: TokenGrant[] = [];
  const seen = new Set<string>();
  const add = (where: string, token: string, namespaces: unknown) => {
    if (token.length < MIN_TOKEN || /\s/.test(token)) {
      throw fail(
        where,
        `a token must be ${MIN_TOKEN} or more characters without white space (e.g. openssl rand -hex 32)`,
      );
    }
    if (seen.has(token)) throw fail(where, 'this token is given twice: give it once');
    const names = typeof namespaces === 'string' ? namespaces.split(',') : namespaces;
    if (!Array.isArray(names) || names.length === 0) {
      throw fail(where, 'no namespace: give the namespaces this token may use after it');
    }
    const trimmed = names.map((n) => (typeof n === 'string' ? n.trim() : n));
    const bad = trimmed.findIndex((n) => !isNamespace(n));
    if (bad !== -1) {
      // Quoted only when too short to hold a token: a token written where its namespace goes
      // (the two swapped) must not be shown.
      const shown = JSON.stringify(trimmed[bad]);
      const which = shown.length < MIN_TOKEN + 2 ? shown : `namespace ${bad + 1}`;
      throw fail(
        where,
        `${which} is not a namespace name: use 1 to 64 of a-z, 0-9, _ and - (${NAMESPACE_PATTERN.source})`,
      );
    }
    seen.add(token);
    grants.push({ token, namespaces: Object.freeze([...new Set(trimmed as string[])]) });
  };

  if (text.trimStart().startsWith('{')) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw fail('its JSON', `it cannot be read: not valid JSON${jsonSyntaxWhere(error, text)}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw fail('its JSON', 'it must be an object of tokens');
    }
    Object.entries(value).forEach(([token, namespaces], i) => {
      add(`entry ${i + 1}`, token, namespaces);
    });
  } else {
    // A CRLF file's lines too: withoutComment keeps a comment ending in \r, as /#.*$/ did.
    text.split(/\r?\n/).forEach((raw, i) => {
      const line = withoutComment(raw).trim();
      if (line === '') return;
      const fields = line.split(/\s+/);
      if (fields.length !== 2) {
        throw fail(
          `line ${i + 1}`,
          `expected a token and its namespaces, found ${fields.length} field(s)`,
        );
      }
      add(`line ${i + 1}`, fields[0] as string, fields[1] as string);
    });
  }
  if (grants.length === 0) throw fail('the whole file', 'no token in it');
  return grants;
}
