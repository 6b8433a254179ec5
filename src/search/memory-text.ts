// What a memory is searched by. Words and meaning read the same text, decided here once.
import type { MemoryRecord } from '../storage/records.js';

/** The parts of a promoted memory's note that search reads, as the person left them. */
export interface NoteText {
  title: string;
  tags: string[];
  body: string;
}

// The links section mnemo writes at the end of a note (renderNote): a heading, then wikilinks.
const RELATED = /(?:^|\r?\n)## Related[ \t]*(?:\r?\n[ \t]*- \[\[[^\n]*\]\][ \t]*)*\s*$/;

/**
 * A memory's text: its note's once promoted and edited, else its own content. The links mnemo
 * added to the note are not part of it (they name other memories), and a note whose text is still
 * the content gives the content itself, so its vector is not computed again.
 */
export function memoryText(content: string, note: NoteText | undefined): string {
  if (!note) return content;
  const text = note.body.replace(RELATED, '').trim();
  return text === content.trim() ? content : text;
}

/**
 * The words lexical search matches: the text with the memory's tags and entities, or, once it
 * has a note, the text with the note's title and tags (the person's to change).
 */
export function memoryWords(
  record: Pick<MemoryRecord, 'content' | 'meta' | 'entities'>,
  note: NoteText | undefined,
): string {
  const text = memoryText(record.content, note);
  return note
    ? `${note.title}\n${note.tags.join(' ')}\n${text}`
    : `${text}\n${record.meta.tags.join(' ')}\n${record.entities.join(' ')}`;
}

/** Called with the memory whose note changed and the note it had before. */
export type NoteTextListener = (memoryId: string, before: NoteText | undefined) => void;

/**
 * The notes that promoted memories are searched by, shared by the lexical and the semantic
 * index: a change is told to both, so they never see different texts.
 */
export class MemoryTexts {
  private readonly notes = new Map<string, NoteText>();
  private readonly listeners: NoteTextListener[] = [];

  noteOf(memoryId: string): NoteText | undefined {
    return this.notes.get(memoryId);
  }

  /** Makes a memory searched by this note (or by its own content again, with undefined). */
  setNote(memoryId: string, note: NoteText | undefined): void {
    const before = this.notes.get(memoryId);
    if (sameNote(before, note)) return;
    if (note) {
      this.notes.set(memoryId, { title: note.title, tags: [...note.tags], body: note.body });
    } else {
      this.notes.delete(memoryId);
    }
    for (const listener of this.listeners) listener(memoryId, before);
  }

  onChange(listener: NoteTextListener): void {
    this.listeners.push(listener);
  }
}

function sameNote(a: NoteText | undefined, b: NoteText | undefined): boolean {
  if (!a || !b) return a === b;
  return a.title === b.title && a.body === b.body && a.tags.join('\n') === b.tags.join('\n');
}
