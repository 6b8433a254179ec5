import { createRequire } from 'node:module';
import type {
  CreateNodeOptions,
  CST,
  DocumentOptions,
  ParseOptions,
  SchemaOptions,
  ToJSOptions,
  ToStringOptions,
} from 'yaml';
import { relatedSectionStart } from '../platform/related-section.js';
import { firstLine } from './slug.js';

const requireHere = createRequire(import.meta.url);

/**
 * The yaml package (its Node build is CommonJS: the same module an import loads), required at the
 * first note read or written rather than on every start: 73 modules and about 10 MB that a
 * server whose vault is empty, or which has none, never uses.
 */
function yamlLib(): typeof import('yaml') {
  return requireHere('yaml') as typeof import('yaml');
}

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

/**
 * Aliases a note's properties may resolve, in all. A note is a few lines of properties; a bound
 * this small refuses the alias bomb (nine levels of nine aliases: 612 bytes that expand to
 * hundreds of MB) before anything is expanded.
 */
export const MAX_NOTE_ALIASES = 50;

/**
 * The longest front matter read, in characters. The YAML parser takes up to a few milliseconds a
 * kilobyte on the worst text (thousands of keys, deep `[[[`, long flow lists), and a rewrite of a
 * note parses it several times: this keeps each call to tens of milliseconds. Obsidian's
 * properties and what mnemo writes (a title, tags, entities) stay far below it; a note past it
 * is read as one whose properties are not valid.
 */
export const MAX_FRONT_MATTER_CHARS = 16 * 1024;

/** How deep a note's properties may nest: Obsidian's are a level or two. */
export const MAX_NOTE_DEPTH = 64;

// YAML only, the core schema only: no language engine (gray-matter's `---js` ran the note as
// JavaScript), no custom tags (an unknown `!!js/function` stays a string, never code), no dates
// or other objects: a note's properties are plain data (strings, numbers, booleans, null,
// arrays, plain objects).
const PARSE: ParseOptions & DocumentOptions & SchemaOptions = {
  schema: 'core',
  customTags: [],
  // Without this, an explicit !!timestamp, !!binary, !!set or !!omap makes a Date, a Uint8Array,
  // a Set or a Map even under the core schema.
  resolveKnownTags: false,
  merge: false,
  prettyErrors: false,
  // The check of unique keys compares every key with every other: quadratic in the keys. A key
  // given twice is data too (the last one counts), and never a reason to stall.
  uniqueKeys: false,
};
const TO_JS: ToJSOptions = { maxAliasCount: MAX_NOTE_ALIASES };
// What js-yaml's dump wrote (through gray-matter) and the tests pin: one line per value
// (Obsidian's property editor does not fold long text), single quotes, no anchors. The YAML 1.1
// schema decides only what must be quoted: a string that any reader could take for a date, a
// number or a boolean (`2026-01-01`, `yes`) is quoted, so its meaning never changes.
const DUMP: CreateNodeOptions & DocumentOptions & SchemaOptions & ToStringOptions = {
  schema: 'yaml-1.1',
  lineWidth: 0,
  singleQuote: true,
  aliasDuplicateObjects: false,
};

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
  return `---\n${yamlLib().stringify(data, DUMP).trim()}\n---\n${body}\n`;
}

/**
 * A note's properties and body. Front matter is the YAML between a first line that is exactly
 * `---` and the next line that is `---`; a note without it is all body. A first line `---js` (or
 * any `---<language>`) opens no front matter that mnemo reads: such a note is invalid, its whole
 * text the body, and nothing in it runs. Properties longer than MAX_FRONT_MATTER_CHARS, not valid
 * YAML, using more than MAX_NOTE_ALIASES aliases, holding themselves (an alias cycle) or not a
 * mapping make the note invalid the same way.
 */
export function parseNote(text: string): ParsedNote {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (/^---[ \t]*[^\s-]/.test(source)) return { properties: {}, body: text, valid: false };
  const front = frontMatterOf(source);
  if (!front) return { properties: {}, body: source, valid: true };
  if (front.yaml.length > MAX_FRONT_MATTER_CHARS)
    return { properties: {}, body: text, valid: false };
  const properties = yamlMapping(front.yaml);
  if (!properties) return { properties: {}, body: text, valid: false };
  return { properties, body: source.slice(front.end).replace(/^\r?\n/, ''), valid: true };
}

/** The YAML text as a plain object (empty text: no properties); undefined when it is not one. */
function yamlMapping(yaml: string): Record<string, unknown> | undefined {
  const { Composer, Parser } = yamlLib();
  try {
    // First the syntax tree (built without recursion), its depth checked before the composer
    // (which recurses a level a nesting) sees it: `[[[...` 8,000 deep ran it out of stack, and a
    // second such note aborted the process (V8 gives up compiling a regex at the stack's end).
    const tokens = [...new Parser().parse(yaml)];
    if (tokens.some((token) => nestingOf(token) > MAX_NOTE_DEPTH)) return undefined;
    const docs = [...new Composer(PARSE).compose(tokens, true, yaml.length)];
    const doc = docs[0];
    if (!doc || docs.length > 1 || doc.errors.length > 0) return undefined;
    const data: unknown = doc.toJS(TO_JS);
    if (data === null || data === undefined) return {};
    return typeof data === 'object' && !Array.isArray(data) && isTree(data)
      ? (data as Record<string, unknown>)
      : undefined;
  } catch {
    // An alias count over the bound, or a document the parser gives up on.
    return undefined;
  }
}

/** How deep collections nest in a syntax tree, walked with a stack of its own. */
function nestingOf(root: CST.Token): number {
  let deepest = 0;
  const pending: [CST.Token | undefined, number][] = [[root, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [token, depth] = next;
    if (!token) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_NOTE_DEPTH) return deepest;
    if (token.type === 'document') pending.push([token.value, depth]);
    if ('items' in token) {
      for (const item of token.items as { key?: CST.Token | null; value?: CST.Token }[]) {
        if (item.key) pending.push([item.key, depth + 1]);
        if (item.value) pending.push([item.value, depth + 1]);
      }
    }
  }
  return deepest;
}

/**
 * Whether `value` holds itself nowhere: an alias inside its own anchor (`a: &l [*l]`) makes a
 * cycle, which every reader of the properties (JSON, the checks before a rewrite) would loop on.
 */
function isTree(value: unknown, ancestors = new Set<unknown>()): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (ancestors.has(value)) return false;
  ancestors.add(value);
  const children = Array.isArray(value) ? value : Object.values(value);
  const ok = children.every((child) => isTree(child, ancestors));
  ancestors.delete(value);
  return ok;
}

interface FrontMatter {
  /** The YAML lines, each with its line end. */
  yaml: string;
  /** Where the text after the closing line's line end starts. */
  end: number;
  /** The closing line's line end: `\n`, `\r\n`, or '' at the end of the text. */
  closingEol: string;
}

/**
 * The front matter block at the start of `text`, found line by line (one pass: a lazy regex over
 * the whole note backtracked on hostile text).
 */
function frontMatterOf(text: string): FrontMatter | undefined {
  const open = /^---[ \t]*\r?\n/.exec(text);
  if (!open) return undefined;
  let at = open[0].length;
  while (at <= text.length) {
    const nl = text.indexOf('\n', at);
    const lineEnd = nl < 0 ? text.length : nl;
    const line = text.slice(at, lineEnd);
    if (isClosingLine(line)) {
      const closingEol = nl < 0 ? '' : line.endsWith('\r') ? '\r\n' : '\n';
      return {
        yaml: text.slice(open[0].length, at),
        end: nl < 0 ? text.length : nl + 1,
        closingEol,
      };
    }
    if (nl < 0) return undefined;
    at = nl + 1;
  }
  return undefined;
}

/** `---`, then only spaces or tabs (and the `\r` of a CRLF line end). */
function isClosingLine(line: string): boolean {
  if (!line.startsWith('---')) return false;
  for (let i = 3; i < line.length; i++) {
    const c = line[i];
    if (c !== ' ' && c !== '\t' && !(c === '\r' && i === line.length - 1)) return false;
  }
  return true;
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
  const front = frontMatterOf(text);
  if (!parsed.valid || !front) return undefined;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = front.yaml.split(/\r?\n/);
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
  const updated = `---${eol}${lines.join(eol)}${eol}---${front.closingEol || eol}${text.slice(front.end)}`;
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

/**
 * The note with its body's text changed from `from` to `to`, when the body is still mnemo's:
 * its text, the links section aside, is `from` (white space at the ends aside). The properties
 * and the links section stay as they are. Undefined when a person edited the body (or the note
 * cannot be read): it is then theirs, and left alone.
 */
export function replaceNoteBody(text: string, from: string, to: string): string | undefined {
  const parsed = parseNote(text);
  const front = frontMatterOf(text);
  if (!parsed.valid || !front) return undefined;
  const head = text.slice(0, front.end);
  const rest = text.slice(front.end);
  const lead = /^\r?\n?/.exec(rest)?.[0] ?? '';
  const body = rest.slice(lead.length);
  const related = body.slice(relatedSectionStart(body));
  const own = body.slice(0, body.length - related.length);
  if (own.trim() !== from.trim()) return undefined;
  const trailing = own.slice(own.trimEnd().length);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const ending = related === '' && trailing === '' ? eol : trailing;
  const updated = `${head}${lead}${to.trimEnd()}${ending}${related}`;
  // Only a result whose properties read back the same is written.
  const check = parseNote(updated);
  if (!check.valid) return undefined;
  if (JSON.stringify(check.properties) !== JSON.stringify(parsed.properties)) return undefined;
  return updated;
}

/** A YAML scalar for a string or number, quoted when plain style would change its meaning. */
function yamlScalar(value: string | number): string {
  if (typeof value === 'number') return String(value);
  const line = yamlLib().stringify({ v: value }, DUMP).trimEnd();
  // A value that would take more than one line (a block scalar) is written as JSON, which is
  // YAML's double-quoted style.
  return line.includes('\n') ? JSON.stringify(value) : line.slice(3);
}
