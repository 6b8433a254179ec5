// Scans over text a client, a note or a file controls, written as loops because the regexes
// they replace backtrack: each of these is one pass (test/security/regex-linear.test.ts holds
// every regex in src to linear time, and test/security/linear-text.test.ts these to their
// regexes' answers).

/** `text` without the run of `char` at its end: `text.replace(/x+$/, '')` in one pass. */
export function trimEndChar(text: string, char: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === char) end--;
  return text.slice(0, end);
}

const HEADING = '## Related';
const NEWLINE = 0x0a;
const HASH = 0x23;

/**
 * Where the links section mnemo writes at the end of a note's body starts (the newline before
 * its heading, or 0), or -1 when the body does not end with one. The same answer as the index of
 * `/(?:^|\r?\n)## Related[ \t]*(?:\r?\n[ \t]*- \[\[[^\n]*\]\][ \t]*)*\s*$/` (`+` for the links
 * when `minLinks` is 1), found from the end in one pass instead of by backtracking.
 */
export function relatedSectionStart(body: string, minLinks: 0 | 1 = 0): number {
  // From `blank` on the body is white space only (`\s*$`).
  const blank = body.trimEnd().length;
  // A line ending at `end` (a newline, or the body's end) is followed by the section's rest when
  // it ends exactly there or at a \r before that newline.
  const endsAt = (at: number, end: number) => at === end || (at === end - 1 && body[at] === '\r');
  // Lines from the last to the first. For the newline ending the line in hand: `linked`, the
  // next line is a link line followed by link lines then white space; `rest`, from that newline
  // on, link lines (or none) then white space. The earliest heading found wins, as in the regex.
  let end = body.length;
  let hasNext = false;
  let linked = false;
  let rest = false;
  let found = -1;
  // A scan by character code: a lastIndexOf a line costs more than the line over many short ones.
  for (let newline = body.length - 1; newline >= -1; newline--) {
    if (newline !== -1 && body.charCodeAt(newline) !== NEWLINE) continue;
    const start = newline + 1;
    if (body.charCodeAt(start) === HASH && body.startsWith(HEADING, start)) {
      let at = start + HEADING.length;
      while (body[at] === ' ' || body[at] === '\t') at++;
      const links = minLinks === 0 ? rest : linked;
      if ((minLinks === 0 && at >= blank) || (hasNext && endsAt(at, end) && links)) {
        found = newline <= 0 ? 0 : body[newline - 1] === '\r' ? newline - 1 : newline;
      }
    }
    if (newline === -1) return found;
    const after = linkLineEnd(body, start, end);
    linked = after !== -1 && (after >= blank || (hasNext && endsAt(after, end) && rest));
    rest = newline >= blank || linked;
    hasNext = true;
    end = newline;
  }
  return found;
}

/**
 * Where `[ \t]*- \[\[[^\n]*\]\][ \t]*` can end at the latest on the line [start, end), or -1.
 * Only the last `]]` of the line matters: an end after an earlier one stops before a `]`.
 */
function linkLineEnd(text: string, start: number, end: number): number {
  let at = start;
  while (at < end && (text[at] === ' ' || text[at] === '\t')) at++;
  if (!text.startsWith('- [[', at) || at + 4 > end) return -1;
  const first = at + 4;
  let close = -1;
  for (let i = end - 2; i >= first; i--) {
    if (text[i] === ']' && text[i + 1] === ']') {
      close = i;
      break;
    }
  }
  if (close === -1) return -1;
  let after = close + 2;
  while (after < end && (text[after] === ' ' || text[after] === '\t')) after++;
  return after;
}
