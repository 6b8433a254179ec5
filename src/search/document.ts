// What a memory is searched by, decided here once: words and meaning read the same document.
import { relatedSectionStart } from '../platform/related-section.js';
import type { MemoryRecord } from '../storage/records.js';

/** The parts of a promoted memory's note that search reads, as the person left them. */
export interface NoteText {
  title: string;
  tags: string[];
  body: string;
}

/** What `documentOf` makes of a memory: a sidecar made by another version is not read. */
export const DOCUMENT_VERSION = 2;

/** One memory as search sees it. */
export interface MemoryDocument {
  /** Its text: what its meaning (vector) is of. */
  text: string;
  /** The text with what names and files it: what its words (BM25) are. */
  words: string;
}

/**
 * A memory's document. Its text is its note's once promoted and edited, else its own content:
 * the links mnemo added to the note are not part of it (they name other memories), and a note
 * whose text is still the content gives the content itself, so its vector is not computed again.
 * Its words are the text with the memory's tags and entities, or, once it has a note, with the
 * note's tags (the person's to change) and its title when the title says something of its own:
 * the title mnemo gives a note is the content's first line, and counting it would weigh the
 * promoted memory's words twice against the same memory not promoted.
 */
export function documentOf(
  record: Pick<MemoryRecord, 'content' | 'meta' | 'entities'>,
  note: NoteText | undefined,
): MemoryDocument {
  if (!note) {
    const text = record.content;
    return { text, words: `${text}\n${record.meta.tags.join(' ')}\n${record.entities.join(' ')}` };
  }
  const body = note.body.slice(0, relatedSectionStart(note.body)).trim();
  const text = body === record.content.trim() ? record.content : body;
  const title = titleRepeats(note.title, text) ? '' : note.title;
  return { text, words: `${title}\n${note.tags.join(' ')}\n${text}\n${record.entities.join(' ')}` };
}

/**
 * Whether a note's title only repeats the start of its text: the first line, or its first 119
 * characters and an ellipsis, as mnemo titles a note (the vault's `noteTitle`).
 */
export function titleRepeats(title: string, text: string): boolean {
  const head = (title.endsWith('…') ? title.slice(0, -1) : title).trim();
  return head.length > 0 && text.trimStart().startsWith(head);
}

export function sameNote(a: NoteText | undefined, b: NoteText | undefined): boolean {
  if (!a || !b) return a === b;
  return a.title === b.title && a.body === b.body && a.tags.join('\n') === b.tags.join('\n');
}
