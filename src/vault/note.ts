import { createRequire } from 'node:module';
import type GrayMatter from 'gray-matter';
import { firstLine } from './slug.js';

/** What a note of a promoted memory says in its properties (Obsidian's name for frontmatter). */
export interface NoteProperties {
  title: string;
  memory_id: string;
  tags: string[];
  created: string;
  /** Left out of an exported note of a memory that was never promoted. */
  promoted?: string;
  last_used: string;
  use_count: number;
  strength: number;
  source?: string;
  entities: string[];
}

/**
 * The keys mnemo keeps up to date in a note it wrote. Title, tags, source, entities and the body
 * belong to the person once the note exists.
 */
const OWNED_KEYS = [
  'memory_id',
  'created',
  'promoted',
  'last_used',
  'use_count',
  'strength',
] as const;
export type OwnedKey = (typeof OWNED_KEYS)[number];

export interface RelatedLink {
  /** Vault path of the related note, e.g. `mnemo/other.md`. */
  path: string;
  title: string;
}

export interface ParsedNote {
  properties: Record<string, unknown>;
  body: string;
  /** False when the frontmatter is not valid YAML; the whole text is then the body. */
  valid: boolean;
}

// Loaded at first use, not at start: `mnemo stdio` answers the handshake sooner without it.
const require = createRequire(import.meta.url);
let loaded: typeof GrayMatter | undefined;
function matter(): typeof GrayMatter {
  loaded ??= require('gray-matter') as typeof GrayMatter;
  return loaded;
}

// Passing options keeps gray-matter from caching every text it parses (its default).
const NO_CACHE = {};
// One line per value: Obsidian's property editor does not fold long text.
// (js-yaml's dump options, which gray-matter passes through; its types do not list them.)
const DUMP = { lineWidth: -1, noRefs: true } as Parameters<typeof GrayMatter.stringify>[2];

/**
 * Obsidian's date-time property format: local time to the second, no zone (what Obsidian writes
 * when a person picks a date and time).
 */
export function obsidianDateTime(epochSeconds: number): string {
  const d = new Date(epochSeconds * 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}` +
    `T${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`
  );
}

/** A note's title: the content's first line, at most 120 characters. */
export function noteTitle(content: string): string {
  const line = firstLine(content);
  const chars = [...line];
  return chars.length <= 120 ? line : `${chars.slice(0, 119).join('')}…`;
}

/** `[[path|alias]]` without `.md`; the alias loses the characters that would end the link. */
export function wikilink(link: RelatedLink): string {
  const target = link.path.replace(/\.md$/i, '');
  const alias = link.title
    .replace(/[[\]|#^]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return alias && alias !== target ? `[[${target}|${alias}]]` : `[[${target}]]`;
}

/** A new note: YAML properties that parse back to exactly these values, then the content. */
export function renderNote(
  properties: NoteProperties,
  content: string,
  related: RelatedLink[],
): string {
  let body = content.trimEnd();
  if (related.length > 0) {
    body += `\n\n## Related\n${related.map((link) => `- ${wikilink(link)}`).join('\n')}`;
  }
  const data: Record<string, unknown> = { ...properties };
  if (data.source === undefined) delete data.source;
  if (data.promoted === undefined) delete data.promoted;
  // A file object, not a string: gray-matter would read a body that starts with `---` as
  // frontmatter.
  return matter().stringify({ content: `${body}\n` }, data, DUMP);
}

export function parseNote(text: string): ParsedNote {
  try {
    const parsed = matter()(text, NO_CACHE);
    const data = parsed.data;
    const properties =
      data && typeof data === 'object' && !Array.isArray(data)
        ? (data as Record<string, unknown>)
        : {};
    return { properties, body: parsed.content.replace(/^\r?\n/, ''), valid: true };
  } catch {
    return { properties: {}, body: text, valid: false };
  }
}

/**
 * The memory a note belongs to: its `memory_id` property, else `stm_id` (how cortexgraph marks
 * the notes it promoted; mnemo opens its data as it is).
 */
export function noteMemoryId(properties: Record<string, unknown>): string | undefined {
  for (const id of [properties.memory_id, properties.stm_id]) {
    if (typeof id === 'string' && id.length > 0) return id;
  }
  return undefined;
}

/** Tags of a note's properties: a list or a single string, with or without `#`. */
export function noteTags(properties: Record<string, unknown>): string[] {
  const raw = properties.tags ?? properties.tag;
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(/[\s,]+/) : [];
  return list
    .filter((t): t is string | number => typeof t === 'string' || typeof t === 'number')
    .map((t) => String(t).replace(/^#/, ''))
    .filter(Boolean);
}

const FRONTMATTER = /^---\r?\n([\s\S]*?\r?\n)?---[ \t]*(\r?\n|$)/;

/**
 * Sets mnemo's own keys in a note's properties and changes nothing else: the body, the other
 * keys, their order, comments and quoting stay as the person left them. Each owned key's line
 * (and its indented continuation lines) is replaced in place, or added at the end of the
 * properties. Returns undefined when the note has no frontmatter or it is not valid YAML.
 */
export function updateOwnedProperties(
  text: string,
  values: Partial<Record<OwnedKey, string | number>>,
): string | undefined {
  const parsed = parseNote(text);
  const match = FRONTMATTER.exec(text);
  if (!parsed.valid || !match) return undefined;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = (match[1] ?? '').split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const line = `${key}: ${yamlScalar(value)}`;
    const at = lines.findIndex((l) => l.startsWith(`${key}:`));
    if (at < 0) {
      lines.push(line);
      continue;
    }
    let end = at + 1;
    while (end < lines.length && /^(\s|$)/.test(lines[end] as string)) end++;
    lines.splice(at, end - at, line);
  }
  const updated = `---${eol}${lines.join(eol)}${eol}---${match[2] || eol}${text.slice(match[0].length)}`;
  // Only a result that parses to the same other values and the new owned values is written.
  const check = parseNote(updated);
  if (!check.valid || check.body !== parsed.body) return undefined;
  for (const [key, value] of Object.entries(parsed.properties)) {
    if (key in values) continue;
    if (JSON.stringify(check.properties[key]) !== JSON.stringify(value)) return undefined;
  }
  for (const [key, value] of Object.entries(values)) {
    if (check.properties[key] !== value) return undefined;
  }
  return updated;
}

// The links section renderNote writes at the end of a body: a heading, then wikilinks. (Search
// reads notes without it too: src/search/document.ts.)
const RELATED = /(?:^|\r?\n)## Related[ \t]*(?:\r?\n[ \t]*- \[\[[^\n]*\]\][ \t]*)*\s*$/;

/**
 * The note with its body's text changed from `from` to `to`, when the body is still mnemo's:
 * its text, the links section aside, is `from` (white space at the ends aside). The properties
 * and the links section stay as they are. Undefined when a person edited the body (or the note
 * cannot be read): it is then theirs, and left alone.
 */
export function replaceNoteBody(text: string, from: string, to: string): string | undefined {
  const parsed = parseNote(text);
  const match = FRONTMATTER.exec(text);
  if (!parsed.valid || !match) return undefined;
  const rest = text.slice(match[0].length);
  const lead = /^\r?\n?/.exec(rest)?.[0] ?? '';
  const body = rest.slice(lead.length);
  const related = RELATED.exec(body)?.[0] ?? '';
  const own = body.slice(0, body.length - related.length);
  if (own.trim() !== from.trim()) return undefined;
  const trailing = /\s*$/.exec(own)?.[0] ?? '';
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const ending = related === '' && trailing === '' ? eol : trailing;
  const updated = `${match[0]}${lead}${to.trimEnd()}${ending}${related}`;
  // Only a result whose properties read back the same is written.
  const check = parseNote(updated);
  if (!check.valid) return undefined;
  if (JSON.stringify(check.properties) !== JSON.stringify(parsed.properties)) return undefined;
  return updated;
}

/** A YAML scalar for a string or number, quoted when plain style would change its meaning. */
function yamlScalar(value: string | number): string {
  if (typeof value === 'number') return String(value);
  return (
    matter().stringify({ content: '' }, { v: value }, DUMP).split(/\r?\n/)[1]?.slice(3) ??
    `'${value}'`
  );
}
