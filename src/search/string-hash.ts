// A compact key of a string, for lookups that confirm their hits or can bear a rare collision.

/**
 * A 53-bit hash of a string (two 32-bit FNV-1a style passes): a compact key for the duplicate
 * lookup, which confirms every hit against the content itself.
 */
export function contentHash(text: string): number {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  }
  return (h1 >>> 0) * 0x200000 + ((h2 >>> 0) & 0x1fffff);
}
