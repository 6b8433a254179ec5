// A memory's text cut into clauses, each with what its words say about how to read a fact in
// it: a question or a wish states nothing, "now" and "no longer" mark a change.

/** How much of a memory is read for facts: a fact is stated early, and the cost stays bounded. */
export const MAX_FACT_TEXT = 2000;

/** How many clauses of one memory are read. */
const MAX_CLAUSES = 16;

export interface Clause {
  /** Single-spaced, "I'm" as "I am", curly quotes straight. */
  text: string;
  /** It asks rather than states ("Does Caroline still live in Boston?"). */
  question: boolean;
}

const QUESTION_START =
  /^(?:do|does|did|is|are|was|were|where|what|when|who|whom|how|which|why|has|have|can|should|shall)\b/;

/** Any character outside ASCII, where toLowerCase would lower more than A-Z. */
const NON_ASCII = /[\u0080-\uffff]/;

/** The text with A-Z lowered and nothing else: the same length, so offsets carry over. */
export function asciiLower(text: string): string {
  // On ASCII text toLowerCase lowers A-Z only, natively: the save path reads every text for facts.
  if (!NON_ASCII.test(text)) return text.toLowerCase();
  return text.replace(/[A-Z]/g, (char) => char.toLowerCase());
}

const CURLY_QUOTE = /[\u2018\u2019]/;
/** White space that `\s+` to one space changes: any but a space, or two in a row. */
const UNEVEN_SPACE = /[^\S ]|\s\s/;

const QUESTION_MARK = 0x3f;

/** Enough of a clause's start for QUESTION_START: its longest word and the boundary after it. */
const QUESTION_START_CHARS = 8;

/** The memory's first MAX_FACT_TEXT characters, cut at ends of sentences, semicolons and lines. */
export function clausesOf(content: string): Clause[] {
  // Each rewrite only where it changes something: a replace builds a new text even when every
  // match is replaced by itself (a single space by a space), and the save path reads every text.
  let text = content.slice(0, MAX_FACT_TEXT);
  if (CURLY_QUOTE.test(text)) text = text.replace(/[\u2018\u2019]/g, "'");
  if (text.includes("I'm")) text = text.replace(/\bI'm\b/g, 'I am');
  if (text.includes("I've")) text = text.replace(/\bI've\b/g, 'I have');
  if (UNEVEN_SPACE.test(text)) text = text.replace(/\s+/g, ' ');
  const clauses: Clause[] = [];
  let start = 0;
  for (let i = 0; i <= text.length && clauses.length < MAX_CLAUSES; i += 1) {
    // Char codes, not one-character strings: the save path reads every text.
    const code = text.charCodeAt(i);
    const end =
      i === text.length ||
      code === QUESTION_MARK ||
      code === 0x21 /* ! */ ||
      code === 0x3b /* ; */ ||
      code === 0x0a /* \n */ ||
      (code === 0x2e /* . */ && (i + 1 === text.length || text.charCodeAt(i + 1) === 0x20));
    if (!end) continue;
    const body = text.slice(start, i).trim();
    if (body !== '') {
      const start = asciiLower(body.slice(0, QUESTION_START_CHARS));
      clauses.push({ text: body, question: code === QUESTION_MARK || QUESTION_START.test(start) });
    }
    start = i + 1;
  }
  return clauses;
}

/** Words before a fact's verb that make it a wish, a plan or a guess rather than a fact. */
const HYPOTHETICAL =
  /\b(?:might|could|would|should|will|shall|won't|going to|gonna|plans? to|planning|planned|wants? to|wanted to|wish|wishes|hopes? to|hoping|thinking|considering|consider|if|unless|whether|maybe|perhaps|someday|probably|dreams?|dreaming|imagine|suppose|pretend)\b|'ll\b|'d\b/;

/** Whether the words before a fact's verb make it hypothetical. "may" only in lower case (May). */
export function isHypothetical(before: string): boolean {
  return HYPOTHETICAL.test(asciiLower(before)) || /\bmay\b/.test(before);
}

/** Words in a clause that say its fact is new: what it replaces no longer holds. */
const CHANGE_CUE =
  /\b(?:now|no longer|anymore|any more|recently|just|new|newly|finally|switched|changed|moved|relocated|since|these days|nowadays|currently|as of|started|joined|became|got|turned|promoted|instead|again|updated|latest|left|quit)\b/;

export function hasChangeCue(clause: string): boolean {
  // A capitalised word past the first is a name ("New York", "Just Eat"), not a cue.
  return CHANGE_CUE.test(asciiLower(clause.replace(/(?<=\S )\p{Lu}[\p{L}'-]*/gu, '')));
}

/** Words after a verb that end the fact ("doesn't like coffee anymore"). */
export function endsAfter(after: string): boolean {
  return /\b(?:anymore|any more|no more|any longer)\b/.test(asciiLower(after));
}
