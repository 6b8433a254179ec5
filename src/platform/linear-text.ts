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
