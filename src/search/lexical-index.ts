import { MEMORY_STATUSES, type MemoryRecord, type MemoryStatus } from '../storage/records.js';
import { Bm25Index, type LexicalHits, type Matches } from './bm25.js';
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

/** A memory's class in the BM25 index: its status, so a search picks statuses in the walk. */
const classOf = (status: MemoryStatus) => MEMORY_STATUSES.indexOf(status) + 1;

/** The classes of these statuses, as a mask for `Bm25Index.match`. */
function statusMask(statuses: Iterable<MemoryStatus>): number {
  let mask = 0;
  for (const status of statuses) mask |= 1 << classOf(status);
  return mask;
}

/**
 * A BM25 index of the memories' words and a lookup of their content for exact duplicates. The
 * retriever keeps it in step with the store, and says what each memory's words are.
 */
export class LexicalIndex {
  private readonly tokenizer = new Tokenizer();
  private readonly bm25 = new Bm25Index<MemoryRecord>();
  private readonly byContent = new Map<number, string>();

  /** Indexes `record` by `words`; `previous` is what it was indexed as before, if anything. */
  upsert(
    record: MemoryRecord,
    words: string,
    previous: { record: MemoryRecord; words: string } | undefined,
  ): void {
    if (previous) {
      if (previous.words === words) {
        this.bm25.setDoc(record.id, record, classOf(record.status));
        return;
      }
      this.dropContent(previous.record);
      this.bm25.add(
        record.id,
        this.tokenizer.termIds(words),
        this.tokenizer.termIds(previous.words),
        record,
        classOf(record.status),
      );
    } else {
      this.bm25.add(
        record.id,
        this.tokenizer.termIds(words),
        undefined,
        record,
        classOf(record.status),
      );
    }
    this.byContent.set(contentHash(normalizeContent(record.content)), record.id);
  }

  /** Drops `previous`, which was indexed by `words`. */
  remove(previous: MemoryRecord, words: string): void {
    this.bm25.remove(previous.id, this.tokenizer.termIds(words));
    this.dropContent(previous);
  }

  reset(): void {
    this.bm25.clear();
    this.byContent.clear();
  }

  search(query: string): LexicalHits<MemoryRecord> {
    return this.bm25.search(this.tokenizer.termIds(query, false));
  }

  /**
   * The memories of these statuses that match the query's words, as `Bm25Index.match`: ordinals
   * (`recordAt` reads one) and BM25 scores, in buffers the next search reuses.
   */
  match(query: string, statuses: Iterable<MemoryStatus>): Matches {
    return this.bm25.match(this.tokenizer.termIds(query, false), statusMask(statuses));
  }

  recordAt(ordinal: number): MemoryRecord {
    return this.bm25.docAt(ordinal);
  }

  /** The id of a live memory with the same normalized content, if any. */
  duplicateOf(content: string): string | undefined {
    const normalized = normalizeContent(content);
    const id = this.byContent.get(contentHash(normalized));
    const record = id === undefined ? undefined : this.bm25.doc(id);
    return record && normalizeContent(record.content) === normalized ? id : undefined;
  }

  private dropContent(record: MemoryRecord): void {
    const key = contentHash(normalizeContent(record.content));
    if (this.byContent.get(key) === record.id) this.byContent.delete(key);
  }
}
