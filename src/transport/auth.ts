import { createHash, timingSafeEqual } from 'node:crypto';

/** The token of an Authorization header: `Bearer <t>` or a bare `<t>`; undefined when absent. */
export function presentedToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  const bearer = bearerToken(value);
  const token = bearer !== undefined ? bearer.trim() : value;
  return token === '' ? undefined : token;
}

const SPACE = /^\s$/;
const LINE_END = /[\n\r\u2028\u2029]/;

/**
 * What follows `Bearer` and white space in a trimmed header, when nothing after that white space
 * ends a line: `/^bearer\s+(.+)$/i.exec(value)?.[1]` without its quadratic backtracking.
 */
function bearerToken(value: string): string | undefined {
  if (value.slice(0, 6).toLowerCase() !== 'bearer' || !SPACE.test(value[6] ?? '')) return undefined;
  let at = 7;
  while (at < value.length && SPACE.test(value[at] as string)) at++;
  const rest = value.slice(at);
  return rest === '' || LINE_END.test(rest) ? undefined : rest;
}

/**
 * Compares tokens in constant time. Both sides are hashed first, so neither the content nor the
 * length of the expected token shows in the timing.
 */
export function tokenMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
