// `mnemo import PATH --from markdown`: a basic-memory project or any Obsidian vault folder.
//
// Each note (`*.md`, recursively) becomes one memory; wikilinks between imported notes become
// `related` relations, yielded after every memory. Notes are read one at a time: what is kept
// across the walk is only each note's key and the targets of its links, never its text.
//
// Link resolution follows Obsidian: `[[Note]]` names a note by its file name, case-insensitively,
// wherever it is; `[[folder/Note]]` names the note whose path ends with `folder/Note.md`. When
// several notes match, the first by path (relative paths compared as strings) wins, so the
// result does not depend on the order the file system lists a folder in. Links to no imported
// note (an image, a note not written yet) are dropped.

import fs from 'node:fs';
import path from 'node:path';
import { trimEndChar } from '../../platform/linear-text.js';
import { relatedSectionStart } from '../../platform/related-section.js';
import { noteTags, parseNote } from '../../vault/note.js';
import { readNoteFileAsync } from '../../vault/note-file.js';
import { isInside } from '../../vault/paths.js';
import { firstLine } from '../../vault/slug.js';
import type { ImportEntry, ImportItem, ImportRefusal, ImportSource } from '../types.js';
import { ImportSourceError } from './source-error.js';

/** A note as read from disk: the memory it becomes and the targets its wikilinks name. */
export interface ReadNote {
  item: ImportItem;
  links: string[];
}

export const markdownSource: ImportSource = {
  format: 'markdown',
  entries: markdownEntries,
};

async function* markdownEntries(root: string): AsyncGenerator<ImportEntry> {
  const folder = path.resolve(root);
  await checkFolder(folder);
  const realRoot = await fs.promises.realpath(folder);
  // name (lower case, no `.md`) -> relative paths; path (lower case, no `.md`) -> key
  const byName = new Map<string, string[]>();
  const linksOf: { key: string; relative: string; links: string[] }[] = [];

  for await (const found of walk(folder, realRoot)) {
    if (found.kind === 'refused') {
      yield found;
      continue;
    }
    const { relative, absolute } = found;
    let read: ReadNote | ImportRefusal;
    try {
      // Read where the walk found it to lead, by the vault's note reader: never a link out of
      // the folder, a FIFO, or more than 1 MB.
      const real = await fs.promises.realpath(absolute);
      const [file, stat] = await Promise.all([
        readNoteFileAsync(realRoot, path.relative(realRoot, real)),
        fs.promises.stat(real),
      ]);
      read = file.ok
        ? readNote(relative, file.text, Math.floor(stat.mtimeMs / 1000))
        : { kind: 'refused', where: relative, why: refusedBecause(file.why, file.code) };
    } catch (error) {
      read = { kind: 'refused', where: relative, why: `cannot be read (${describe(error)})` };
    }
    if ('kind' in read) {
      yield read;
      continue;
    }
    const name = noteName(relative);
    const list = byName.get(name);
    if (list) list.push(relative);
    else byName.set(name, [relative]);
    if (read.links.length > 0) linksOf.push({ key: read.item.key, relative, links: read.links });
    yield read.item;
  }

  for (const list of byName.values()) list.sort(byPath);
  for (const note of linksOf) {
    const seen = new Set<string>();
    for (const link of note.links) {
      const target = resolveLink(link, byName);
      if (target === undefined || target === note.relative) continue;
      const toKey = keyOf(target);
      if (seen.has(toKey)) continue;
      seen.add(toKey);
      yield { kind: 'relation', fromKey: note.key, toKey, relation_type: 'related' };
    }
  }
}

async function checkFolder(folder: string): Promise<void> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(folder);
  } catch (error) {
    throw new ImportSourceError(
      `--from markdown: cannot read ${folder} (${describe(error)}): give the folder of a basic-memory project or an Obsidian vault`,
    );
  }
  if (!stat.isDirectory()) {
    throw new ImportSourceError(
      `--from markdown: ${folder} is not a folder: give the folder of a basic-memory project or an Obsidian vault (the one that holds the .md notes), not a single file`,
    );
  }
}

type Found = { kind: 'note'; relative: string; absolute: string } | ImportRefusal;

/**
 * The notes under `folder`, depth first, each folder's entries in name order. Hidden entries
 * (`.obsidian`, `.trash`, dot files) are skipped; a link is followed only when it leads to a
 * place inside the folder (each real folder once, so a link loop ends), and named as refused
 * when it leads out.
 */
async function* walk(folder: string, realRoot: string): AsyncGenerator<Found> {
  const visited = new Set<string>([realRoot]);
  const pending: string[] = [''];
  while (pending.length > 0) {
    const dirRel = pending.shift() as string;
    let names: fs.Dirent[];
    try {
      names = await fs.promises.readdir(path.join(folder, dirRel), { withFileTypes: true });
    } catch (error) {
      yield {
        kind: 'refused',
        where: `${dirRel}/`,
        why: `folder cannot be read (${describe(error)})`,
      };
      continue;
    }
    names.sort((a, b) => byPath(a.name, b.name));
    const subfolders: string[] = [];
    for (const entry of names) {
      if (entry.name.startsWith('.')) continue;
      const relative = dirRel ? `${dirRel}/${entry.name}` : entry.name;
      const absolute = path.join(folder, relative);
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        let real: string;
        try {
          real = await fs.promises.realpath(absolute);
        } catch {
          if (isMarkdown(entry.name)) {
            yield { kind: 'refused', where: relative, why: 'a link to nothing' };
          }
          continue;
        }
        if (!isInside(realRoot, real)) {
          yield {
            kind: 'refused',
            where: relative,
            why: `a link out of the folder (to ${real}): not followed`,
          };
          continue;
        }
        const stat = await fs.promises.stat(real);
        isDir = stat.isDirectory();
        isFile = stat.isFile();
      }
      if (isDir) {
        // Each real folder once, whichever name reached it first: a link loop ends.
        const real = await fs.promises.realpath(absolute);
        if (visited.has(real)) continue;
        visited.add(real);
        subfolders.push(relative);
      }
      if (!isDir && isFile && isMarkdown(entry.name)) yield { kind: 'note', relative, absolute };
    }
    // Depth first: this folder's subfolders before the rest of the queue.
    pending.unshift(...subfolders);
  }
}

/**
 * One note's memory: the title (the `title` property, else the first `# heading`, else the file
 * name) and the body; tags from the `tags` property and simple `#tags` in the body; created_at
 * from `created`, `date` or `created_at` (ISO date or epoch), else `mtime`. Refused when the
 * properties are not valid YAML.
 */
export function readNote(relative: string, text: string, mtime: number): ReadNote | ImportRefusal {
  const parsed = parseNote(text);
  if (!parsed.valid) {
    return {
      kind: 'refused',
      where: relative,
      why: 'its properties (the frontmatter between the --- lines) are not valid YAML: fix them, or move the note out of the folder',
    };
  }
  const { properties } = parsed;
  // The links section mnemo's notes end with is relations, not text: it leaves the content.
  const body = parsed.body.slice(0, relatedSectionStart(parsed.body, 1)).trim();
  const links = wikilinkTargets(withoutCode(parsed.body));
  const prose = withoutCode(body);
  const title = titleOf(properties, prose, relative);
  const content = body === '' ? title : firstLine(body) === title ? body : `${title}\n\n${body}`;
  const tags = unique([...noteTags(properties), ...bodyTags(prose)]);
  const item: ImportItem = {
    kind: 'memory',
    key: keyOf(relative),
    content,
    created_at: createdAt(properties) ?? mtime,
    extra: { path: relative },
  };
  if (tags.length > 0) item.tags = tags;
  return { item, links };
}

/** The key of the note at `relative`: `markdown:<relative path>`, with `/` between folders. */
export function keyOf(relative: string): string {
  return `markdown:${relative}`;
}

function titleOf(properties: Record<string, unknown>, prose: string, relative: string): string {
  const title = properties.title;
  if (typeof title === 'string' && title.trim()) return title.trim();
  if (typeof title === 'number') return String(title);
  const heading = firstHeading(prose);
  if (heading) return heading.trim();
  return path.posix.basename(relative).replace(/\.md$/i, '');
}

function createdAt(properties: Record<string, unknown>): number | undefined {
  for (const key of ['created', 'date', 'created_at']) {
    const seconds = toEpoch(properties[key]);
    if (seconds !== undefined) return seconds;
  }
  return undefined;
}

/**
 * Epoch seconds of a property value: a YAML date (a Date), a number (seconds, or milliseconds
 * when it is too large to be seconds) or a string (a number, or an ISO date; one without a zone
 * is local time, as Obsidian writes them).
 */
export function toEpoch(value: unknown): number | undefined {
  if (value instanceof Date) {
    const ms = value.getTime();
    return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
  }
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
    return Math.floor(value > 1e11 ? value / 1000 : value);
  }
  if (typeof value === 'string' && value.trim()) {
    const s = value.trim();
    if (/^\d+(\.\d+)?$/.test(s)) return toEpoch(Number(s));
    const ms = Date.parse(s);
    return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
  }
  return undefined;
}

// The line terminators of `^`, `$` and `.` in a regex with the m flag.
const isLineEnd = (char: string | undefined) =>
  char === '\n' || char === '\r' || char === '\u2028' || char === '\u2029';

/**
 * The text of the first ATX heading of level 1: `/^#[ \t]+(.+?)[ \t#]*$/m.exec(prose)?.[1]`,
 * a line at a time (the regex is quadratic over a long line of `#` and spaces).
 */
export function firstHeading(prose: string): string | undefined {
  for (let from = 0; from <= prose.length; ) {
    let to = from;
    while (to < prose.length && !isLineEnd(prose[to])) to++;
    const line = prose.slice(from, prose[from] === '#' ? to : from);
    from = to + 1;
    if (line[0] !== '#' || (line[1] !== ' ' && line[1] !== '\t')) continue;
    let start = 1;
    while (start < line.length && (line[start] === ' ' || line[start] === '\t')) start++;
    // `[ \t]+` gives back its last character when nothing else is left for `.+?`.
    if (start === line.length) {
      if (line.length < 3) continue;
      start = line.length - 1;
    }
    let end = line.length;
    while (
      end > start &&
      (line[end - 1] === ' ' || line[end - 1] === '\t' || line[end - 1] === '#')
    )
      end--;
    return line.slice(start, Math.max(end, start + 1));
  }
  return undefined;
}

/**
 * The text without fenced code blocks and inline code: no links or tags are read from code.
 * A block opens with ``` or ~~~ at a line's start, before a newline, and closes at the next line
 * starting with the same fence (to that line's end), or at the text's end: what
 * `/^(```|~~~)[^\n]*\n[\s\S]*?(^\1[^\n]*$|(?![\s\S]))/gm` removes, in one pass.
 */
export function withoutCode(text: string): string {
  let out = '';
  let kept = 0;
  for (let at = 0; at < text.length; at++) {
    if (at > 0 && !isLineEnd(text[at - 1])) continue;
    const fence = text.startsWith('```', at) ? '```' : text.startsWith('~~~', at) ? '~~~' : '';
    if (fence === '') continue;
    const opened = text.indexOf('\n', at + 3);
    // No newline after it: no block can open here or later.
    if (opened === -1) break;
    let end = text.length;
    for (let line = opened + 1; line <= text.length; line++) {
      if (line > opened + 1 && !isLineEnd(text[line - 1])) continue;
      if (text.startsWith(fence, line)) {
        const close = text.indexOf('\n', line + 3);
        end = close === -1 ? text.length : close;
        break;
      }
    }
    out += text.slice(kept, at);
    kept = end;
    at = end - 1;
  }
  out += text.slice(kept);
  return out.replace(/`[^`\n]*`/g, '');
}

/**
 * `#tags` in the body: `#` after a space or a line's start, then letters, digits, `_`, `-`, `/`,
 * with at least one that is not a digit (Obsidian's rule: `#1984` is no tag). A heading's `# `
 * has a space after it, so it is none.
 */
export function bodyTags(prose: string): string[] {
  const tags: string[] = [];
  for (const match of prose.matchAll(/(?:^|[\s(])#([\p{L}\p{N}_/-]+)/gu)) {
    const tag = trimEndChar(match[1] as string, '/');
    if (/[^\d]/.test(tag)) tags.push(tag);
  }
  return tags;
}

/**
 * The notes `[[...]]` links name: `[[Note]]`, `[[Note|alias]]`, `[[folder/Note]]`,
 * `[[Note#heading]]`, `![[Note]]` (an embed), without heading, block and alias; `.md` dropped.
 */
export function wikilinkTargets(prose: string): string[] {
  const targets: string[] = [];
  for (const link of wikilinks(prose)) {
    const target = link
      .split('|')[0]
      ?.split('#')[0]
      ?.split('^')[0]
      ?.trim()
      .replace(/\\$/, '')
      .replace(/\.md$/i, '');
    if (target) targets.push(target);
  }
  return targets;
}

/**
 * What each `[[...]]` holds, in order: `/!?\[\[([^\]\n]+?)\]\]/g`'s captures, found with one
 * forward pointer to the next `]` or newline instead of a scan from every `[[`.
 */
export function wikilinks(prose: string): string[] {
  const found: string[] = [];
  let stop = -1;
  for (let at = 0; at + 1 < prose.length; at++) {
    if (prose[at] !== '[' || prose[at + 1] !== '[') continue;
    if (stop < at + 2) {
      stop = at + 2;
      while (stop < prose.length && prose[stop] !== ']' && prose[stop] !== '\n') stop++;
    }
    if (stop > at + 2 && prose[stop] === ']' && prose[stop + 1] === ']') {
      found.push(prose.slice(at + 2, stop));
      at = stop + 1;
    }
  }
  return found;
}

/** The imported note a link names, as Obsidian resolves it (see the top of this file). */
function resolveLink(link: string, byName: Map<string, string[]>): string | undefined {
  const parts = link
    .toLowerCase()
    .split('/')
    .filter((p) => p && p !== '.');
  const name = parts.at(-1);
  if (name === undefined) return undefined;
  const candidates = byName.get(name);
  if (!candidates) return undefined;
  if (parts.length === 1) return candidates[0];
  const suffix = parts.join('/');
  return candidates.find((relative) => {
    const lower = relative.toLowerCase().replace(/\.md$/, '');
    return lower === suffix || lower.endsWith(`/${suffix}`);
  });
}

function noteName(relative: string): string {
  return path.posix.basename(relative).replace(/\.md$/i, '').toLowerCase();
}

function isMarkdown(name: string): boolean {
  return /\.md$/i.test(name);
}

function byPath(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}

function refusedBecause(why: string, code: string | undefined): string {
  switch (why) {
    case 'too-large':
      return 'larger than 1 MB: a note, not a data dump';
    case 'not-a-file':
      return 'not a regular file';
    case 'link':
      return 'a link out of the folder: not followed';
    case 'hard-link':
      return 'a hard link (a file with a second name, which may be outside the folder): not read';
    default:
      return `cannot be read (${code ?? why})`;
  }
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code ?? (error instanceof Error ? error.message : String(error));
}
