import type { MemoryRecord } from '../storage/records.js';
import type { StoreListener } from '../storage/store.js';
import { Bm25Index, type LexicalHits } from './bm25.js';
import { Tokenizer } from './tokenizer.js';

/** The words of a memory that lexical search matches: content, tags and entities. */
export function searchableText(
  record: Pick<MemoryRecord, 'content' | 'meta' | 'entities'>,
): string {
  return `${record.content}\n${record.meta.tags.join(' ')}\n${record.entities.join(' ')}`;
}

/** Content compared for exact duplicates: NFC, case and runs of white space folded. */
export function normalizeContent(content: string): string {
  return content.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
}

/**
 * Keeps a BM25 index and a duplicate lookup in step with the store, whichever process wrote.
 */
export class LexicalIndex implements StoreListener {
  readonly tokenizer = new Tokenizer();
  private readonly bm25 = new Bm25Index();
  private readonly byContent = new Map<string, string>();

  upsert(record: MemoryRecord, previous: MemoryRecord | undefined): void {
    const text = searchableText(record);
    if (previous) {
      const before = searchableText(previous);
      if (before === text) return;
      this.dropContent(previous);
      this.bm25.add(record.id, this.tokenizer.tokens(text), this.tokenizer.tokens(before));
    } else {
      this.bm25.add(record.id, this.tokenizer.tokens(text));
    }
    this.byContent.set(normalizeContent(record.content), record.id);
  }

  remove(previous: MemoryRecord): void {
    this.bm25.remove(previous.id, this.tokenizer.tokens(searchableText(previous)));
    this.dropContent(previous);
  }

  reset(): void {
    this.bm25.clear();
    this.byContent.clear();
  }

  search(query: string): LexicalHits {
    return this.bm25.search(this.tokenizer.tokens(query));
  }

  /** The id of a live memory with the same normalized content, if any. */
  duplicateOf(content: string): string | undefined {
    return this.byContent.get(normalizeContent(content));
  }

  private dropContent(record: MemoryRecord): void {
    const key = normalizeContent(record.content);
    if (this.byContent.get(key) === record.id) this.byContent.delete(key);
  }
}
