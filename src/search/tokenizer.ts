import { stemmer } from 'stemmer';

// NLTK's English stop words, less the negations ("not", "no", "nor"), which change meaning.
const STOP_WORDS = new Set(
  `i me my myself we our ours ourselves you your yours yourself yourselves he him his himself
  she her hers herself it its itself they them their theirs themselves what which who whom this
  that these those am is are was were be been being have has had having do does did doing a an
  the and but if or because as until while of at by for with about against between into through
  during before after above below to from up down in out on off over under again further then
  once here there when where why how all any both each few more most other some such only own
  same so than too very s t can will just don should now d ll m o re ve y ain aren couldn didn
  doesn hadn hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn would could
  also us let lets get got`.split(/\s+/),
);

// Anything but letters and digits separates words; "ralph's" gives ralph and s (a stop word).
const SEPARATORS = /[^\p{L}\p{N}]+/u;
const WORD_CACHE_LIMIT = 200_000;
/**
 * What a word becomes (splitting, stop words, stemming): a sidecar made by another version is
 * not read. Change it whenever `words`, the stop words or the stemmer change.
 */
export const TOKENIZER_VERSION = 1;
const STOP = -1;

/**
 * Words for lexical search: lowercased, stop words out, Porter-stemmed, so that "who is
 * ralph?" and "Ralph's" meet on "ralph". It also numbers the stems it has seen (the index's
 * vocabulary), so the index works on small integers rather than strings.
 */
export class Tokenizer {
  /** Lowercased word -> term id, or STOP. A cache: cleared when it grows too large. */
  private readonly wordIds = new Map<string, number>();
  /** The same cache for ASCII text, looked up by the text's own characters (no word strings). */
  private readonly asciiWords = new AsciiWordTable();
  /** Stem -> term id: the vocabulary, which only grows. */
  private readonly stemIds = new Map<string, number>();
  private readonly stems: string[] = [];
  /** Changes whenever term ids given out are given to other stems (a restore, a compaction). */
  generation = 0;

  /** The stems of `text`, in order. */
  tokens(text: string): string[] {
    const out: string[] = [];
    for (const word of words(text)) {
      if (!STOP_WORDS.has(word)) out.push(stemOf(word));
    }
    return out;
  }

  /** Term ids of `text`; `learn` false leaves out stems the vocabulary does not have. */
  termIds(text: string, learn = true): number[] {
    // Most text is ASCII: its words are looked up by their characters in place, and a string is
    // made only of a word not seen before (a load of 1M memories met 46M words, 6,000 distinct).
    if (!NON_ASCII.test(text)) return this.asciiTermIds(text, learn);
    const out: number[] = [];
    for (const word of words(text)) {
      let id = this.wordIds.get(word);
      if (id === undefined) {
        id = STOP_WORDS.has(word) ? STOP : this.stemId(stemOf(word), learn);
        if (id === undefined) continue;
        if (this.wordIds.size >= WORD_CACHE_LIMIT) this.wordIds.clear();
        this.wordIds.set(word, id);
      }
      if (id !== STOP) out.push(id);
    }
    return out;
  }

  /**
   * `termIds` of ASCII text: the same words as `words` (runs of letters and digits, lowercased),
   * each hashed as it is scanned and found in `asciiWords` by comparing characters.
   */
  private asciiTermIds(text: string, learn: boolean): number[] {
    const out: number[] = [];
    const table = this.asciiWords;
    const length = text.length;
    let start = -1;
    let hash = 0;
    for (let i = 0; i <= length; i++) {
      let c = i < length ? text.charCodeAt(i) : 0;
      if (c >= 65 && c <= 90) c += 32;
      if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
        if (start < 0) {
          start = i;
          hash = FNV_OFFSET;
        }
        hash = Math.imul(hash ^ c, FNV_PRIME);
        continue;
      }
      if (start < 0) continue;
      let id = table.find(text, start, i, hash);
      if (id === undefined) {
        const word = text.slice(start, i).toLowerCase();
        id = STOP_WORDS.has(word) ? STOP : this.stemId(stemOf(word), learn);
        if (id !== undefined) {
          if (table.size >= WORD_CACHE_LIMIT) table.clear();
          table.add(word, hash, id);
        }
      }
      start = -1;
      if (id !== undefined && id !== STOP) out.push(id);
    }
    return out;
  }

  /** The term id of `stem`, numbered now if it has none (what `termIds` does for a new word). */
  learn(stem: string): number {
    return this.stemId(stem, true) as number;
  }

  get vocabularySize(): number {
    return this.stems.length;
  }

  /** The stems by term id: what a sidecar keeps to number them the same again. */
  vocabulary(): readonly string[] {
    return this.stems;
  }

  /** Takes `stems` as the vocabulary (term id = index), forgetting the words seen. */
  restoreVocabulary(stems: readonly string[]): void {
    this.generation++;
    this.wordIds.clear();
    this.asciiWords.clear();
    this.stemIds.clear();
    this.stems.length = 0;
    for (const stem of stems) this.stemId(stem, true);
  }

  /**
   * Keeps the stems `keep` says, renumbered in their order, and forgets the others (a stem no
   * memory holds any more); answers each old term id's new one, -1 for a forgotten stem. Without
   * it the vocabulary grew with every word ever indexed: 300 updates of one memory to 6,000 new
   * words held 290 MB.
   */
  compact(keep: (term: number) => boolean): Int32Array {
    const remap = new Int32Array(this.stems.length).fill(-1);
    const kept: string[] = [];
    this.stems.forEach((stem, term) => {
      if (!keep(term)) return;
      remap[term] = kept.length;
      kept.push(stem);
    });
    this.restoreVocabulary(kept);
    return remap;
  }

  private stemId(stem: string, learn: boolean): number | undefined {
    let id = this.stemIds.get(stem);
    if (id === undefined && learn) {
      id = this.stems.length;
      this.stems.push(stem);
      this.stemIds.set(stem, id);
    }
    return id;
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: a range over all of ASCII, on purpose
const NON_ASCII = /[^\x00-\x7f]/;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * Lowercased ASCII word -> term id (or STOP), an open-addressing table keyed by the word's FNV-1a
 * hash, that `find` answers from a range of a text's characters: no string is made for a word
 * it has. Upper-case letters of the text compare as their lower-case ones.
 */
class AsciiWordTable {
  /** 1 + the entry at each bucket, 0 for none. */
  private buckets = new Int32Array(1 << 12);
  private words: string[] = [];
  private hashes: number[] = [];
  private ids: number[] = [];

  get size(): number {
    return this.words.length;
  }

  find(text: string, start: number, end: number, hash: number): number | undefined {
    const buckets = this.buckets;
    const mask = buckets.length - 1;
    const length = end - start;
    for (let b = hash & mask; ; b = (b + 1) & mask) {
      const entry = (buckets[b] as number) - 1;
      if (entry < 0) return undefined;
      if (this.hashes[entry] !== hash) continue;
      const word = this.words[entry] as string;
      if (word.length !== length) continue;
      let same = true;
      for (let k = 0; k < length; k++) {
        let c = text.charCodeAt(start + k);
        if (c >= 65 && c <= 90) c += 32;
        if (word.charCodeAt(k) !== c) {
          same = false;
          break;
        }
      }
      if (same) return this.ids[entry];
    }
  }

  /** Adds `word` (not in the table), whose hash is `hash`. */
  add(word: string, hash: number, id: number): void {
    if ((this.words.length + 1) * 2 > this.buckets.length) this.grow();
    this.words.push(word);
    this.hashes.push(hash);
    this.ids.push(id);
    this.place(this.words.length - 1);
  }

  clear(): void {
    this.buckets = new Int32Array(1 << 12);
    this.words = [];
    this.hashes = [];
    this.ids = [];
  }

  private place(entry: number): void {
    const buckets = this.buckets;
    const mask = buckets.length - 1;
    let b = (this.hashes[entry] as number) & mask;
    while (buckets[b] !== 0) b = (b + 1) & mask;
    buckets[b] = entry + 1;
  }

  private grow(): void {
    this.buckets = new Int32Array(this.buckets.length * 2);
    for (let entry = 0; entry < this.words.length; entry++) this.place(entry);
  }
}

/** The lowercased words of `text`, split at anything but letters and digits. */
export function words(text: string): string[] {
  const lower = text.toLowerCase();
  // Most text is ASCII: a scan of char codes, several times faster than the Unicode split that
  // every other text takes (and that gives the same words for ASCII, a test checks).
  if (NON_ASCII.test(lower)) return lower.split(SEPARATORS).filter((w) => w.length > 0);
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i < lower.length; i++) {
    const c = lower.charCodeAt(i);
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      out.push(lower.slice(start, i));
      start = -1;
    }
  }
  if (start >= 0) out.push(lower.slice(start));
  return out;
}

// Digits and very short words stem to themselves.
function stemOf(word: string): string {
  return word.length <= 2 || /\d/.test(word) ? word : stemmer(word);
}

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase());
}
