/**
 * File names for notes: a readable slug of the content's first line that is a valid file name
 * on Linux, macOS and Windows, can never name a path outside its folder, and keeps Obsidian's
 * links working (no `# ^ [ ] |`).
 */

// Windows refuses these names whatever the extension (con.md is as bad as con).
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;
const MAX_SLUG = 60;

/** The first line with text in it, without Markdown heading or list markers. */
export function firstLine(content: string): string {
  // Line by line as far as the first that has text, not a split of the whole content.
  for (let at = 0; at <= content.length; ) {
    const nl = content.indexOf('\n', at);
    const end = nl < 0 ? content.length : nl;
    const line = content.slice(at, end > at && content[end - 1] === '\r' ? end - 1 : end);
    const text = line.replace(/^\s*(#{1,6}\s+|[-*+]\s+|>\s*)*/, '').trim();
    if (text) return text;
    if (nl < 0) break;
    at = nl + 1;
  }
  return '';
}

/**
 * Lower-case letters, digits and marks of any script, joined by single hyphens; at most 60
 * characters, cut at a word boundary where there is one. Everything else (`/`, `\`, `.`, `:`,
 * control characters, ...) becomes a separator, so `../../x` is `x` and `/etc/passwd` is
 * `etc-passwd`.
 */
export function slugify(content: string, fallback = 'memory'): string {
  const words = firstLine(content)
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter(Boolean);
  let slug = '';
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word;
    if ([...next].length > MAX_SLUG) {
      if (!slug) slug = [...word].slice(0, MAX_SLUG).join('');
      break;
    }
    slug = next;
  }
  if (!slug) slug = fallback;
  return WINDOWS_RESERVED.test(slug) ? `${slug}-note` : slug;
}

/** The n-th candidate file name for a slug: `slug.md`, `slug-2.md`, `slug-3.md`, ... */
export function candidateName(slug: string, n: number): string {
  return n <= 1 ? `${slug}.md` : `${slug}-${n}.md`;
}
