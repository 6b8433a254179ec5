import type { StoreListener } from '../storage/engine.js';
import type { MemoryRecord } from '../storage/records.js';
import { Bm25Index, type LexicalHits } from './bm25.js';
import { MemoryTexts, memoryWords, type NoteText } from './memory-text.js';
import { Tokenizer } from './tokenizer.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: a range over all of ASCII, on purpose
const NON_ASCII = /[^\x00-\x7f]/;
const LOOSE_SPACE = /\s\s|[^\S ]/;

/** Content compared for exact duplicates: NFC, case and runs of white space folded. */
export function normalizeContent(content: string): string {
  let s = NON_ASCII.test(content) ? content.normalize('NFC') : content;
  s = s.trim();
  if (LOOSE_SPACE.test(s)) s = s.replace(/\s+/g, ' ');
  return s.toLowerCase();
}

/**
 * A 53-bit hash of a string (two 32-bit FNV-1a style passes): a compact key for the duplicate
 * lookup, which confirms every hit against the content itself.
 */
export function contentHash(text: string): number {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  }
  return (h1 >>> 0) * 0x200000 + ((h2 >>> 0) & 0x1fffff);
}

/**
 * Keeps a BM25 index and a duplicate lookup in step with the store, whichever process wrote.
 */
export class LexicalIndex implements StoreListener {
  readonly tokenizer = new Tokenizer();
  private readonly bm25 = new Bm25Index<MemoryRecord>();
  private readonly byContent = new Map<number, string>();
  /** What each memory is searched by (its note's text once promoted), shared with the vectors. */
  private readonly texts: MemoryTexts;

  constructor(texts = new MemoryTexts()) {
    this.texts = texts;
    texts.onChange((id, before) => this.noteChanged(id, before));
  }

  upsert(record: MemoryRecord, previous: MemoryRecord | undefined): void {
    const text = this.indexedText(record);
    if (previous) {
      const before = this.indexedText(previous);
      if (before === text) {
        this.bm25.setDoc(record.id, record);
        return;
      }
      this.dropContent(previous);
      this.bm25.add(
        record.id,
        this.tokenizer.termIds(text),
        this.tokenizer.termIds(before),
        record,
      );
    } else {
      this.bm25.add(record.id, this.tokenizer.termIds(text), undefined, record);
    }
    this.byContent.set(contentHash(normalizeContent(record.content)), record.id);
  }

  remove(previous: MemoryRecord): void {
    this.bm25.remove(previous.id, this.tokenizer.termIds(this.indexedText(previous)));
    this.dropContent(previous);
  }

  reset(): void {
    this.bm25.clear();
    this.byContent.clear();
  }

  search(query: string): LexicalHits<MemoryRecord> {
    return this.bm25.search(this.tokenizer.termIds(query, false));
  }

  /** The id of a live memory with the same normalized content, if any. */
  duplicateOf(content: string): string | undefined {
    const normalized = normalizeContent(content);
    const id = this.byContent.get(contentHash(normalized));
    const record = id === undefined ? undefined : this.bm25.doc(id);
    return record && normalizeContent(record.content) === normalized ? id : undefined;
  }

  /** Indexes a memory again when the note it is searched by changed. */
  private noteChanged(memoryId: string, before: NoteText | undefined): void {
    const record = this.bm25.doc(memoryId);
    if (!record) return;
    const old = memoryWords(record, before);
    const text = this.indexedText(record);
    if (text === old) return;
    this.bm25.add(memoryId, this.tokenizer.termIds(text), this.tokenizer.termIds(old), record);
  }

  private indexedText(record: MemoryRecord): string {
    return memoryWords(record, this.texts.noteOf(record.id));
  }

  private dropContent(record: MemoryRecord): void {
    const key = contentHash(normalizeContent(record.content));
    if (this.byContent.get(key) === record.id) this.byContent.delete(key);
  }
}
