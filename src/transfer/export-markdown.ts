// `mnemo export --format markdown --out DIR`: one note per memory, in the vault's note format
// (properties, the content, a Related section of wikilinks), so a person can read all of it in
// Obsidian.
//
// The folder gets a hidden marker, `.mnemo-export` (JSON: the format and the notes written), so
// an export may go again into a folder an earlier export made: its notes are then replaced, and
// those of memories no longer there removed. Any other folder must be new or empty. A file a
// person added to an export folder is never written over: the note takes the next free name.
//
// Two passes, so that a link can name a note written after the one that holds it: the first
// writes each note without its links and keeps id -> file name and title; the second adds the
// Related section to the notes that have relations. Each write is atomic (temp file and rename).

import fs from 'node:fs';
import path from 'node:path';
import { makeDirs, readIfExists, replaceFile } from '../platform/durable-file.js';
import { UserError } from '../platform/errors.js';
import type { MemoryRecord, RelationRecord } from '../storage/records.js';
import { noteTitle, type RelatedLink, renderNote, wikilink } from '../vault/note.js';
import { readNoteFile } from '../vault/note-file.js';
import { candidateName, slugify } from '../vault/slug.js';
import { propertiesOf } from '../vault/writer.js';

export const EXPORT_MARKER = '.mnemo-export';

export interface ExportMarkdownOptions {
  records: Iterable<MemoryRecord> | AsyncIterable<MemoryRecord>;
  /** The relations of a memory, either end. */
  relationsOf: (id: string) => RelationRecord[];
  outDir: string;
}

interface Marker {
  format: 'mnemo-markdown-export';
  version: 1;
  notes: string[];
}

/** A folder that cannot take an export: the message names it and the fix. */
export class ExportError extends UserError {
  override name = 'ExportError';
}

const MAX_NAMES = 10_000;

export async function exportMarkdown(options: ExportMarkdownOptions): Promise<{ written: number }> {
  const outDir = path.resolve(options.outDir);
  const earlier = checkOutDir(outDir);
  makeDirs(outDir);

  // Lower case: two names that differ in case only are one file on macOS and Windows.
  const taken = new Set<string>();
  const earlierNotes = new Set(earlier?.notes.map((n) => n.toLowerCase()) ?? []);
  const notes = new Map<string, RelatedLink>();
  const linked: string[] = [];

  for await (const record of options.records) {
    const name = freeName(outDir, slugify(record.content), taken, earlierNotes);
    taken.add(name.toLowerCase());
    const { promoted, ...properties } = propertiesOf(record);
    const text = renderNote(
      record.status === 'promoted' ? { ...properties, promoted } : properties,
      record.content,
      [],
    );
    write(outDir, name, text);
    notes.set(record.id, { path: name, title: noteTitle(record.content) });
    if (options.relationsOf(record.id).length > 0) linked.push(record.id);
  }

  for (const id of linked) {
    const links = relatedLinks(id, options.relationsOf(id), notes);
    const note = notes.get(id);
    if (!note || links.length === 0) continue;
    // The note this export has just written, read back without following a link put there since.
    const file = readNoteFile(outDir, note.path);
    if (!file.ok) {
      throw new ExportError(
        `the exported note ${note.path} cannot be read back (${file.why}): export to a folder only mnemo writes`,
      );
    }
    const text = file.text;
    // What renderNote writes for the same links: the section after the body's last line.
    const section = `\n## Related\n${links.map((link) => `- ${wikilink(link)}`).join('\n')}\n`;
    write(outDir, note.path, `${text}${section}`);
  }

  const written = [...notes.values()].map((n) => n.path);
  const keep = new Set(written.map((n) => n.toLowerCase()));
  for (const old of earlier?.notes ?? []) {
    if (!keep.has(old.toLowerCase()) && isPlainName(old)) removeNote(outDir, old);
  }
  const marker: Marker = { format: 'mnemo-markdown-export', version: 1, notes: written };
  write(outDir, EXPORT_MARKER, `${JSON.stringify(marker, null, 2)}\n`);
  return { written: written.length };
}

/** The earlier export's marker, or undefined for a new or empty folder; throws for any other. */
function checkOutDir(outDir: string): Marker | undefined {
  let entries: string[];
  try {
    entries = fs.readdirSync(outDir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ENOTDIR') {
      throw new ExportError(
        `--out ${outDir} is a file: give a new or empty folder (or one an earlier mnemo export --format markdown wrote) to export into`,
      );
    }
    throw new ExportError(
      `--out ${outDir} cannot be read (${code ?? String(error)}): give a folder you can write`,
    );
  }
  if (entries.length === 0) return undefined;
  const marker = readMarker(outDir);
  if (marker === undefined) {
    throw new ExportError(
      `--out ${outDir} is not empty and no earlier markdown export (it has no ${EXPORT_MARKER}): give a new or empty folder, so that no note of yours is written over`,
    );
  }
  return marker;
}

function readMarker(outDir: string): Marker | undefined {
  let text: string | undefined;
  try {
    text = readIfExists(path.join(outDir, EXPORT_MARKER));
  } catch {
    return undefined;
  }
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<Marker>;
    if (value.format !== 'mnemo-markdown-export' || !Array.isArray(value.notes)) return undefined;
    return {
      format: value.format,
      version: 1,
      notes: value.notes.filter((n): n is string => typeof n === 'string'),
    };
  } catch {
    return undefined;
  }
}

/**
 * The first of `slug.md`, `slug-2.md`, ... not taken by this export, and either free on disk or
 * a note of the earlier export (which this one replaces).
 */
function freeName(
  outDir: string,
  slug: string,
  taken: ReadonlySet<string>,
  earlier: ReadonlySet<string>,
): string {
  for (let n = 1; n <= MAX_NAMES; n++) {
    const name = candidateName(slug, n);
    const lower = name.toLowerCase();
    if (taken.has(lower)) continue;
    if (earlier.has(lower) || !fs.existsSync(path.join(outDir, name))) return name;
  }
  throw new ExportError(`no free note name for "${slug}" in ${outDir}: export into a new folder`);
}

/** The notes related to `id`, once each, in the order of its relations. */
function relatedLinks(
  id: string,
  relations: RelationRecord[],
  notes: ReadonlyMap<string, RelatedLink>,
): RelatedLink[] {
  const seen = new Set<string>();
  const links: RelatedLink[] = [];
  for (const relation of relations) {
    const other = relation.from_memory_id === id ? relation.to_memory_id : relation.from_memory_id;
    const note = notes.get(other);
    if (other === id || !note || seen.has(other)) continue;
    seen.add(other);
    links.push(note);
  }
  return links;
}

function write(outDir: string, name: string, text: string): void {
  try {
    replaceFile(path.join(outDir, name), text, { hidden: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ExportError(
      `cannot write ${path.join(outDir, name)} (${code ?? String(error)}): make ${outDir} writable, or export into another folder`,
      undefined,
      { cause: error },
    );
  }
}

/**
 * Removes a note of the earlier export. A hand-edited marker may name what no export wrote: a
 * folder stays, a name no file can have (too long) is nothing to remove.
 */
function removeNote(outDir: string, name: string): void {
  const file = path.join(outDir, name);
  try {
    if (!fs.lstatSync(file).isDirectory()) fs.rmSync(file, { force: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENAMETOOLONG') return;
    throw new ExportError(
      `cannot remove ${file}, a note of the earlier export (${code ?? String(error)}): make ${outDir} writable, or export into another folder`,
      undefined,
      { cause: error },
    );
  }
}

/** A marker's entry that names a file of the folder itself (a hand-edited marker cannot lead out). */
function isPlainName(name: string): boolean {
  return (
    name === path.basename(name) &&
    name !== '.' &&
    name !== '..' &&
    !name.includes('\\') &&
    !name.includes('\0')
  );
}
