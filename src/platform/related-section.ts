// The links section at the end of a promoted memory's note, found in linear time.

/**
 * Where the links section mnemo writes at the end of a note's body (src/vault/note.ts,
 * renderNote) starts, the line end before its heading included; the body's length when it has
 * none. The section is a `## Related` line, then only `- [[...]]` lines (at least `minLinks` of
 * them), then only white space. Read line by line from the end, in one pass: the regex it
 * replaces backtracked quadratically on a long last line (a `touch_memory` of a promoted memory
 * took seconds and held every namespace). Here, not in the vault: search, the vault and the
 * Markdown import all read the section.
 */
export function relatedSectionStart(body: string, minLinks = 0): number {
  let lineEnd = body.trimEnd().length;
  let links = 0;
  for (;;) {
    const nl = body.lastIndexOf('\n', lineEnd - 1);
    let line = body.slice(nl + 1, lineEnd);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    line = trimTabsAndSpacesEnd(line);
    if (line.startsWith('## Related') && isTabsAndSpaces(line.slice('## Related'.length))) {
      if (links < minLinks) return body.length;
      return nl < 0 ? 0 : nl > 0 && body[nl - 1] === '\r' ? nl - 1 : nl;
    }
    if (nl < 0 || !isLinkLine(line)) return body.length;
    links++;
    lineEnd = nl;
  }
}

/** `[ \t]*- [[...]]`: a list item of one wikilink, as renderNote writes them. */
function isLinkLine(line: string): boolean {
  let i = 0;
  while (line[i] === ' ' || line[i] === '\t') i++;
  const item = line.slice(i);
  return item.startsWith('- [[') && item.endsWith(']]') && item.length >= 6;
}

function isTabsAndSpaces(text: string): boolean {
  return trimTabsAndSpacesEnd(text) === '';
}

function trimTabsAndSpacesEnd(text: string): string {
  let end = text.length;
  while (end > 0 && (text[end - 1] === ' ' || text[end - 1] === '\t')) end--;
  return text.slice(0, end);
}
