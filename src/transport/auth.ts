import { createHash, timingSafeEqual } from 'node:crypto';

/** The token of an Authorization header: `Bearer <t>` or a bare `<t>`; undefined when absent. */
export function presentedToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  const bearer = /^bearer\s+(.+)$/i.exec(value);
  const token = bearer ? (bearer[1] as string).trim() : value;
  return token === '' ? undefined : token;
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
