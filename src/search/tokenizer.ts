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
const STEM_CACHE_LIMIT = 100_000;

/**
 * Words for lexical search: lowercased, stop words out, Porter-stemmed, so that "who is
 * ralph?" and "Ralph's" meet on "ralph". One instance per index; its stem cache is bounded.
 */
export class Tokenizer {
  private readonly stems = new Map<string, string>();

  tokens(text: string): string[] {
    const out: string[] = [];
    for (const word of text.toLowerCase().split(SEPARATORS)) {
      if (word.length === 0 || STOP_WORDS.has(word)) continue;
      out.push(this.stem(word));
    }
    return out;
  }

  private stem(word: string): string {
    let stem = this.stems.get(word);
    if (stem === undefined) {
      // Digits and very short words stem to themselves.
      stem = word.length <= 2 || /\d/.test(word) ? word : stemmer(word);
      if (this.stems.size >= STEM_CACHE_LIMIT) this.stems.clear();
      this.stems.set(word, stem);
    }
    return stem;
  }
}

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase());
}
