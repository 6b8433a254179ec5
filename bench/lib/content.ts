// Deterministic synthetic content: sentences of 10-40 words over a Zipf-like vocabulary of a few
// thousand words (real function words and common words first, then made-up words), the same
// for every server and every run.

/** mulberry32: a small seeded PRNG returning floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The most frequent English words, most of them stop words for mnemo.
const FUNCTION_WORDS = `the of and to a in is that for it was on with as be by at this are from
  or have an they which not but we you had his all their has there been one were would can if
  so when what more about will out up into than them some could only other then its also after
  our over should most use new two how just very`.split(/\s+/);

// Everyday words of the things an agent remembers: people, projects, tools, decisions.
const COMMON_WORDS = `user project team meeting deploy server client database release bug fix
  prefers likes wants decided agreed reviewed changed moved planned scheduled deadline budget
  design feature test build pipeline branch merge commit issue ticket customer contract invoice
  payment account password token key config setting option default version update upgrade
  migration schema index query cache memory disk network latency timeout retry error warning
  log metric alert dashboard report document note draft email message call chat slack calendar
  monday tuesday wednesday thursday friday weekend morning evening week month quarter year
  office remote home travel flight hotel train car bike coffee lunch dinner birthday holiday
  vacation doctor dentist gym running reading book music movie game family partner daughter son
  friend manager engineer designer product marketing sales support legal finance hiring
  interview onboarding offer salary review feedback goal plan roadmap milestone launch demo
  prototype experiment result analysis data model training evaluation benchmark performance
  security privacy backup restore storage cloud cluster container kubernetes docker linux
  python typescript rust golang java javascript react node postgres redis kafka terraform api
  endpoint service library framework package dependency license repository documentation
  readme style lint format editor terminal shell script command keyboard laptop phone monitor
  printer router wifi vpn ssh certificate domain dns email invoice receipt tax insurance rent
  grocery recipe allergy vegetarian spicy tea chocolate garden dog cat weather rain snow summer
  winter spring autumn city paris london berlin tokyo york lisbon madrid rome amsterdam
  important urgent blocked done pending cancelled approved rejected priority risk cost price
  cheap expensive fast slow simple complex stable broken flaky secure private public shared`
  .split(/\s+/)
  .filter((w, i, all) => w !== '' && all.indexOf(w) === i);

const ONSETS = 'b c d f g h j k l m n p r s t v w z br cl dr fl gr pl pr sk st tr ch sh th'.split(
  ' ',
);
const VOWELS = 'a e i o u ai ea io ou'.split(' ');
const CODAS = ['', '', 'n', 'r', 's', 'l', 'm', 't', 'x', 'nd', 'st', 'rk'];

/** `count` distinct made-up words of two or three syllables. */
function madeUpWords(count: number, random: () => number, taken: Set<string>): string[] {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
  const out: string[] = [];
  while (out.length < count) {
    const syllables = random() < 0.7 ? 2 : 3;
    let word = '';
    for (let s = 0; s < syllables; s++) word += pick(ONSETS) + pick(VOWELS);
    word += pick(CODAS);
    if (!taken.has(word)) {
      taken.add(word);
      out.push(word);
    }
  }
  return out;
}

/** Draws ranks 0..n-1 with probability proportional to 1 / (rank + 1)^s. */
export class ZipfSampler {
  private readonly cdf: Float64Array;

  constructor(n: number, s = 1) {
    this.cdf = new Float64Array(n);
    let total = 0;
    for (let r = 0; r < n; r++) {
      total += 1 / (r + 1) ** s;
      this.cdf[r] = total;
    }
    for (let r = 0; r < n; r++) this.cdf[r] = (this.cdf[r] as number) / total;
  }

  sample(random: () => number): number {
    const u = random();
    let lo = 0;
    let hi = this.cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.cdf[mid] as number) < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

export interface Vocabulary {
  /** All words, most frequent first. */
  words: string[];
  /** The words worth searching for (no function words), most frequent first. */
  contentWords: string[];
}

export function buildVocabulary(size = 4000, seed = 7): Vocabulary {
  const taken = new Set([...FUNCTION_WORDS, ...COMMON_WORDS]);
  const extra = madeUpWords(size - taken.size, seededRandom(seed), taken);
  const contentWords = [...COMMON_WORDS, ...extra];
  return { words: [...FUNCTION_WORDS, ...contentWords], contentWords };
}

/** An endless, deterministic source of sentences and queries over one vocabulary. */
export class ContentGenerator {
  private readonly random: () => number;
  private readonly words: ZipfSampler;
  private readonly contentWords: ZipfSampler;

  constructor(
    private readonly vocabulary: Vocabulary,
    seed: number,
  ) {
    this.random = seededRandom(seed);
    this.words = new ZipfSampler(vocabulary.words.length);
    this.contentWords = new ZipfSampler(vocabulary.contentWords.length);
  }

  /** One sentence of 10 to 40 words, capitalized, with a full stop. */
  sentence(): string {
    const length = 10 + Math.floor(this.random() * 31);
    const out: string[] = [];
    for (let i = 0; i < length; i++) {
      out.push(this.vocabulary.words[this.words.sample(this.random)] as string);
      if (i > 3 && i < length - 3 && this.random() < 0.06) out[i] += ',';
    }
    const first = out[0] as string;
    out[0] = first.charAt(0).toUpperCase() + first.slice(1);
    return `${out.join(' ')}.`;
  }

  sentences(count: number): string[] {
    return Array.from({ length: count }, () => this.sentence());
  }

  /** A query of 1 to 3 content words (no function words), drawn by frequency. */
  query(): string {
    const length = 1 + Math.floor(this.random() * 3);
    const out: string[] = [];
    for (let i = 0; i < length; i++) {
      out.push(this.vocabulary.contentWords[this.contentWords.sample(this.random)] as string);
    }
    return out.join(' ');
  }

  queries(count: number): string[] {
    return Array.from({ length: count }, () => this.query());
  }

  /** A float in [0, 1) from the same seeded stream. */
  next(): number {
    return this.random();
  }
}
