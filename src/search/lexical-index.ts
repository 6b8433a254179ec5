import { KeyIndex, numberHash } from '../platform/key-index.js';
import { MEMORY_STATUSES, type MemoryRecord, type MemoryStatus } from '../storage/records.js';
import { Bm25Index, type Matches, type RareMatches } from './bm25.js';
import type { Bm25State } from './bm25-state.js';
import type { PreparedWords, Vocabulary } from './load-words.js';
import { RANK_FACTS, rankFactsOf } from './rank-facts.js';
import { contentHash } from './string-hash.js';
import { TOKENIZER_VERSION, Tokenizer } from './tokenizer.js';
import { VocabularyCompaction } from './vocabulary-compaction.js';

export { contentHash };

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
 * `contentHash(normalizeContent(content))`, without making the normalized string when the
 * content is ASCII: white space trimmed and each run of it hashed as one space, letters folded
 * to lower case as they are hashed. Every memory loaded pays it: the regex and the copies took
 * 2 s of a 1M load.
 */
export function normalizedContentHash(content: string): number {
  if (NON_ASCII.test(content)) return contentHash(normalizeContent(content));
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  let started = false;
  let space = false;
  for (let i = 0; i < content.length; i++) {
    let c = content.charCodeAt(i);
    // What \s and trim() take in ASCII: tab, line feed, vertical tab, form feed, return, space.
    if (c === 32 || (c >= 9 && c <= 13)) {
      space = started;
      continue;
    }
    if (space) {
      h1 = Math.imul(h1 ^ 32, 0x01000193);
      h2 = Math.imul(h2 ^ 32, 0x5bd1e995);
      space = false;
    }
    started = true;
    if (c >= 65 && c <= 90) c += 32;
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

/** What a lexical index keeps in a sidecar, keyed as the caller says. */
export interface LexicalState {
  bm25: Bm25State;
  vocabulary: readonly string[];
  /** The buckets of the table from content hash to ordinal (KeyIndex.buckets), when kept. */
  contentTable?: Int32Array | undefined;
}

/**
 * A BM25 index of the memories' words and a lookup of their content for exact duplicates. The
 * retriever keeps it in step with the store, and says what each memory's words are.
 */
/**
 * The numbers of a memory its decay score is worked out from, kept by the index beside its words
 * (typed columns): a search scores its matches without reading their records.
 */
export const DYNAMICS = ['created_at', 'last_used', 'use_count', 'strength'] as const;
export const LAST_USED = 1;

/** The fields of a memory its decay score depends on. */
export type Dynamics = Pick<MemoryRecord, (typeof DYNAMICS)[number]>;

/** Beside them, the hash of its normalized content: the duplicate lookup. */
const CONTENT_HASH = DYNAMICS.length;

/** After it, the facts a search's ranking reads of a memory (rank-facts.ts). */
export const RANK_FACTS_AT = CONTENT_HASH + 1;

/** How many numbers the index keeps of a memory: DYNAMICS, CONTENT_HASH, then the rank facts. */
export const INDEX_VALUES = RANK_FACTS_AT + RANK_FACTS;

/**
 * The numbers the index keeps of a memory: DYNAMICS, then CONTENT_HASH, then `rankFactsOf`. The
 * workers of a load longer than FACTS_IN_LOAD_BYTES leave the facts unknown (`withFacts` false:
 * reading every memory's facts costs a first start a fifth more and more): NaN, which a search
 * fills in when it first reads the record, and a fill behind the calls reads the rest.
 */
export function valuesOf(
  record: MemoryRecord,
  contentHash?: number,
  withFacts = true,
): Float64Array {
  const out = new Float64Array(INDEX_VALUES);
  putValues(out, 0, record, contentHash ?? normalizedContentHash(record.content), withFacts);
  return out;
}

/**
 * `valuesOf` the record written into `out` from `at`, with no array of its own (a load's workers
 * write a million of them into their chunks' columns).
 */
export function putValues(
  out: Float64Array,
  at: number,
  record: MemoryRecord,
  contentHash: number,
  withFacts: boolean,
): void {
  // DYNAMICS, in its order.
  out[at] = record.created_at;
  out[at + 1] = record.last_used;
  out[at + 2] = record.use_count;
  out[at + 3] = record.strength;
  out[at + CONTENT_HASH] = contentHash;
  if (!withFacts) {
    out.fill(Number.NaN, at + RANK_FACTS_AT, at + INDEX_VALUES);
    return;
  }
  const facts = rankFactsOf(record);
  for (let i = 0; i < RANK_FACTS; i++) out[at + RANK_FACTS_AT + i] = facts[i] as number;
}

/** What the state of a lexical index depends on beyond its documents. */
export const LEXICAL_SHAPE = {
  tokenizer: TOKENIZER_VERSION,
  bm25: 'k1=1.2,b=0.3',
  /** 2: ordinals and 16-bit tfs side by side (1: [ordinal, tf] pairs of 32-bit numbers). */
  postings: 2,
  values: INDEX_VALUES,
};

function vocabularyOf(tokenizer: Tokenizer): Vocabulary {
  return {
    learn: (stem) => tokenizer.learn(stem),
    get generation() {
      return tokenizer.generation;
    },
  };
}

export class LexicalIndex {
  /** Matches made so far (`matchStamp`). */
  private matchings = 0;
  private readonly tokenizer = new Tokenizer();
  private readonly bm25: Bm25Index<undefined> = new Bm25Index<undefined>({
    k1: 1.2,
    b: 0.3,
    values: INDEX_VALUES,
    renumbered: () => this.byContent.rebuild(this.bm25.ordinals),
  });
  private readonly vocabulary = new VocabularyCompaction(this.tokenizer, this.bm25);
  /** Content hash -> the ordinal of a live memory with that content. */
  private readonly byContent = new KeyIndex<number>(numberHash, (ordinal) =>
    this.bm25.classAt(ordinal) === 0 ? undefined : this.bm25.valueAt(ordinal, CONTENT_HASH),
  );

  /** `lookup`: the live memory of an id (the index keeps ids, not records). */
  constructor(private readonly lookup: (id: string) => MemoryRecord | undefined) {}

  /**
   * Indexes `record` by `words`; `previous` is what it was indexed as before, if anything.
   * `prepared`: `words` already tokenized in this index's vocabulary (a load's worker did it).
   */
  upsert(
    record: MemoryRecord,
    words: string,
    previous: { record: MemoryRecord; words: string } | undefined,
    prepared?: PreparedWords,
  ): void {
    const values = prepared?.values ?? valuesOf(record, undefined, false);
    if (prepared) this.factsDue.delete(record.id);
    else this.factsLater(record);
    if (previous) {
      if (previous.words === words) {
        this.bm25.setDoc(record.id, undefined, classOf(record.status), values);
        return;
      }
      this.dropContent(previous.record);
    }
    const terms = prepared?.terms ?? this.tokenizer.termIds(words);
    const before = previous && this.tokenizer.termIds(previous.words);
    this.added(this.bm25.add(record.id, terms, before, undefined, classOf(record.status), values));
  }

  /**
   * Indexes a memory new to the index from what a load's worker read of its line (`LoadWords`):
   * as `upsert` with no previous, without the record. `status`: its `statusCode`.
   */
  addPrepared(id: string, status: number, prepared: PreparedWords): void {
    this.factsDue.delete(id);
    this.added(this.bm25.add(id, prepared.terms, undefined, undefined, status, prepared.values));
  }

  private added(ordinal: number): void {
    this.byContent.set(this.bm25.valueAt(ordinal, CONTENT_HASH), ordinal);
    this.vocabulary.afterChange();
  }

  /** The vocabulary a load's worker numbers its words into (`LoadWords`). */
  readonly vocabularyForLoad: Vocabulary = vocabularyOf(this.tokenizer);

  /** Drops `previous`, which was indexed by `words`. */
  remove(previous: MemoryRecord, words: string): void {
    this.dropContent(previous);
    this.bm25.remove(previous.id, this.tokenizer.termIds(words));
    this.vocabulary.afterChange();
  }

  reset(): void {
    this.factsDue.clear();
    this.bm25.clear();
    this.byContent.clear();
  }

  /**
   * The memories of these statuses that match the query's words, as `Bm25Index.match`: ordinals
   * (`recordAt` reads one) and BM25 scores, in buffers the next search reuses.
   */
  match(query: string, statuses: Iterable<MemoryStatus>): Matches {
    return this.matchTerms(this.termsOf(query), statuses);
  }

  /** The term ids of a query's words (none learnt: a word no memory has matches nothing). */
  termsOf(query: string): number[] {
    return this.tokenizer.termIds(query, false);
  }

  /** `match` of term ids (`termsOf`). */
  matchTerms(terms: readonly number[], statuses: Iterable<MemoryStatus>): Matches {
    this.learnDueFacts();
    this.matchings++;
    return this.bm25.match(terms, statusMask(statuses));
  }

  /**
   * `match` of the memories that hold one of the query's rarer words, when it has words so
   * common that leaving out the memories holding only those pays (`Bm25Index.matchRare`).
   */
  matchRare(query: string, statuses: Iterable<MemoryStatus>): RareMatches | undefined {
    this.learnDueFacts();
    this.matchings++;
    return this.bm25.matchRare(this.termsOf(query), statusMask(statuses));
  }

  /**
   * Moves on with every change to the index and every match (whose buffers the next reuses): a
   * match read after an await is the one asked for only if this has not moved since.
   */
  get matchStamp(): string {
    return `${this.bm25.revision}:${this.matchings}`;
  }

  /** Memories that hold `term`, whatever their status: what walking its postings costs. */
  documentFrequency(term: number): number {
    return this.bm25.documentFrequency(term);
  }

  /** What `term` adds to the score of each of `ordinals` (rising), into `scores`. */
  termScores(term: number, ordinals: Int32Array, scores: Float64Array): void {
    this.bm25.termScores(term, ordinals, scores);
  }

  idAt(ordinal: number): string {
    return this.bm25.idAt(ordinal);
  }

  /** Memories in the index. */
  get size(): number {
    return this.bm25.size;
  }

  /** Every memory in the index, by its ordinal (no lookup by id). */
  eachOrdinal(visit: (ordinal: number, id: string) => void): void {
    const count = this.bm25.ordinals;
    for (let ordinal = 0; ordinal < count; ordinal++) {
      if (this.bm25.classAt(ordinal) === 0) continue;
      visit(ordinal, this.bm25.idAt(ordinal));
    }
  }

  /** The ordinal of a memory in the index (what `match` answers), if it is in it. */
  ordinalOf(id: string): number | undefined {
    return this.bm25.ordinal(id);
  }

  /** Value `column` of DYNAMICS of the memory at `ordinal`. */
  valueAt(ordinal: number, column: number): number {
    return this.bm25.valueAt(ordinal, column);
  }

  /** Appends to `out` the numbers of `rankFactsOf` of the memory at `ordinal` (NaN: unknown). */
  rankFactsAt(ordinal: number, out: number[]): void {
    for (let c = 0; c < RANK_FACTS; c++) out.push(this.bm25.valueAt(ordinal, RANK_FACTS_AT + c));
  }

  /**
   * Keeps the rank facts of `record`, a memory of the index read whole: its facts are then known
   * to the next search, and to the sidecar written after the next change. Derived from the
   * record, so not a change of the index (its revision stays).
   */
  learnRankFacts(record: MemoryRecord): void {
    if (this.keepFacts(record)) this.learnt++;
  }

  /**
   * Keeps `rankFactsOf(record)` where the index holds the memory and does not know its facts
   * (they are known or unknown all together); answers whether it did.
   */
  private keepFacts(record: MemoryRecord): boolean {
    const ordinal = this.bm25.ordinal(record.id);
    if (ordinal === undefined || !Number.isNaN(this.bm25.valueAt(ordinal, RANK_FACTS_AT))) {
      return false;
    }
    rankFactsOf(record).forEach((value, c) => {
      this.bm25.setValueAt(ordinal, RANK_FACTS_AT + c, value);
    });
    return true;
  }

  /**
   * Keeps `facts` (`rankFactsOf` its record, worked out elsewhere: rank-facts-fill.ts) as memory
   * `id`'s rank facts, when the index holds it with the text of hash `contentHash` and does not
   * know its facts yet. Answers whether it kept them; not a change either.
   */
  fillRankFacts(id: string, contentHash: number, facts: ArrayLike<number>): boolean {
    const ordinal = this.bm25.ordinal(id);
    if (ordinal === undefined || this.bm25.valueAt(ordinal, CONTENT_HASH) !== contentHash) {
      return false;
    }
    for (let c = 0; c < RANK_FACTS; c++) {
      if (!Number.isNaN(this.bm25.valueAt(ordinal, RANK_FACTS_AT + c))) return false;
    }
    for (let c = 0; c < RANK_FACTS; c++) {
      this.bm25.setValueAt(ordinal, RANK_FACTS_AT + c, facts[c] as number);
    }
    this.learnt++;
    return true;
  }

  /** Memories written since this turn began (the latest record of each), their facts unknown. */
  private factsDue = new Map<string, MemoryRecord>();

  /**
   * Works out the rank facts of `record` once this turn is over, or at the next match (or state
   * taken) if that comes first: a save's answer does not wait for them (the times a memory says are parsed for
   * them), and a search finds them known as before.
   */
  private factsLater(record: MemoryRecord): void {
    if (this.factsDue.size === 0) setImmediate(() => this.learnDueFacts());
    this.factsDue.set(record.id, record);
  }

  /** The rank facts `factsLater` put off, kept (not counted as learnt: they came with a change). */
  private learnDueFacts(): void {
    if (this.factsDue.size === 0) return;
    const due = this.factsDue;
    this.factsDue = new Map();
    // One gone since, or whose facts a search read meanwhile, is passed over.
    for (const record of due.values()) this.keepFacts(record);
  }

  /** Whether a memory of the index has rank facts not known yet (a load's worker left them). */
  hasUnknownRankFacts(): boolean {
    this.learnDueFacts();
    const count = this.bm25.ordinals;
    for (let ordinal = 0; ordinal < count; ordinal++) {
      if (this.bm25.classAt(ordinal) === 0) continue;
      if (Number.isNaN(this.bm25.valueAt(ordinal, RANK_FACTS_AT))) return true;
    }
    return false;
  }

  /**
   * Memories whose rank facts this index learnt since it began (`learnRankFacts`,
   * `fillRankFacts`): not changes, but what a sidecar written now holds more than one before.
   */
  learnt = 0;

  /** The status of the memory at `ordinal`. */
  statusAt(ordinal: number): MemoryStatus {
    return MEMORY_STATUSES[this.bm25.classAt(ordinal) - 1] as MemoryStatus;
  }

  /** Whether the memory at `ordinal` has one of these statuses. */
  hasStatus(ordinal: number, statuses: Iterable<MemoryStatus>): boolean {
    return ((statusMask(statuses) >>> this.bm25.classAt(ordinal)) & 1) === 1;
  }

  /** Fills `out` with the decay numbers of the memory at `ordinal` and answers it. */
  dynamicsAt<T extends Dynamics>(ordinal: number, out: T): T {
    out.created_at = this.bm25.valueAt(ordinal, 0);
    out.last_used = this.bm25.valueAt(ordinal, 1);
    out.use_count = this.bm25.valueAt(ordinal, 2);
    out.strength = this.bm25.valueAt(ordinal, 3);
    return out;
  }

  recordAt(ordinal: number): MemoryRecord {
    return this.lookup(this.bm25.idAt(ordinal)) as MemoryRecord;
  }

  /** The id of a live memory with the same normalized content, if any. */
  duplicateOf(content: string): string | undefined {
    const normalized = normalizeContent(content);
    const ordinal = this.byContent.get(contentHash(normalized));
    const id = ordinal === undefined ? undefined : this.bm25.idAt(ordinal);
    const record = id === undefined ? undefined : this.lookup(id);
    return record && normalizeContent(record.content) === normalized ? id : undefined;
  }

  /** Its state, each id as `keyOf` says (-1: not kept). */
  state(keyOf: (id: string, hint?: number) => number): LexicalState {
    this.learnDueFacts();
    return { bm25: this.bm25.state(keyOf), vocabulary: this.tokenizer.vocabulary() };
  }

  /** `state` a slice at a time: see `Bm25Index.stateInSteps`, and `revision`. */
  *stateInSteps(keyOf: (id: string, hint?: number) => number): Generator<void, LexicalState> {
    this.learnDueFacts();
    const bm25 = yield* this.bm25.stateInSteps(keyOf);
    return {
      bm25,
      vocabulary: this.tokenizer.vocabulary(),
      contentTable: this.byContent.buckets(),
    };
  }

  /** Moves on with every change to what `state` answers (the vocabulary grows only with one). */
  get revision(): number {
    return this.bm25.revision;
  }

  /** Takes `state` as the whole index; `idOf` turns a key back into its id. */
  restore(state: LexicalState, idOf: (key: number) => string): void {
    this.factsDue.clear();
    this.tokenizer.restoreVocabulary(state.vocabulary);
    this.bm25.restore(state.bm25, idOf);
    // A copy: the table is written to after, and a state may be restored more than once.
    const table = state.contentTable?.slice();
    if (!table || !this.byContent.adopt(table, this.bm25.ordinals)) {
      this.byContent.rebuild(this.bm25.ordinals);
    }
  }

  /** Moves every posting into the compact form (after a load: what a search walks fastest). */
  compact(): void {
    this.bm25.freeze();
  }

  private dropContent(record: MemoryRecord): void {
    const ordinal = this.bm25.ordinal(record.id);
    if (ordinal === undefined) return;
    this.byContent.delete(this.bm25.valueAt(ordinal, CONTENT_HASH), ordinal);
  }
}
