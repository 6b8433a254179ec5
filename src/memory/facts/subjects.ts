// Who a fact is about, read from the words just before its verb: "I" and "the user" are the
// person the agent saves for, a capitalised name is that person, "my sister" and "Caroline's
// sister" are relations, "she" is the person named last in the same memory. A subject that
// cannot be told (a noun, a pronoun with no name before it) gives no fact at all.

export const SELF = 'self';

export interface SubjectContext {
  /** The subject of the clause's first fact: "and works at Google" shares it. */
  clauseSubject: string | null;
  /** The third person named last in the memory, for "she" and "his". */
  lastNamed: string | null;
}

export interface SubjectReading {
  subject: string | null;
  negated: boolean;
  /** "used to": it held once. */
  past: boolean;
  /** "was", "were" just before the verb. */
  was: boolean;
  /** "has", "have": a perfect tense ("has lived in Denver since 2020") still holds. */
  perfect: boolean;
  /** The second of "Ben and Anna got engaged": the partner of a relationship. */
  partner: string;
}

/** Words that may stand between a subject and its verb without changing who it is. */
const BETWEEN = new Set([
  'now',
  'recently',
  'just',
  'finally',
  'currently',
  'still',
  'also',
  'actually',
  'officially',
  'already',
  'really',
  'happily',
  'eventually',
  'later',
  'has',
  'have',
  'had',
  'is',
  'am',
  'are',
  'was',
  'were',
  'been',
  'be',
  'does',
  'do',
  'did',
  'got',
  'get',
  'gets',
  'ever',
  'always',
  'only',
  'both',
  'all',
  'again',
  'apparently',
  'reportedly',
  'both',
  'absolutely',
  'totally',
  'truly',
  'definitely',
]);

const NEGATORS = new Set([
  'no',
  'longer',
  'never',
  'not',
  "doesn't",
  "don't",
  "didn't",
  "isn't",
  "aren't",
  "wasn't",
  "weren't",
  "can't",
  'cannot',
  "hasn't",
  "haven't",
]);

const PRONOUNS = new Set(['she', 'he', 'they', 'her', 'his', 'him', 'their', 'them']);
const FIRST_PERSON = new Set(['i', 'we', 'me', 'us']);
const CONJUNCTIONS = new Set(['and', 'but', 'then', 'so', 'also', 'yet']);
const POSSESSIVE_FIRST = new Set(['my', 'our']);

/** Capitalised words that start sentences or dates, not names. */
const NOT_NAMES = new Set([
  'today',
  'yesterday',
  'recently',
  'now',
  'so',
  'then',
  'also',
  'last',
  'this',
  'since',
  'after',
  'before',
  'in',
  'on',
  'as',
  'the',
  'our',
  'my',
  'dr',
  'mr',
  'mrs',
  'ms',
  'prof',
  'update',
  'note',
  'fact',
  'and',
  'but',
  'actually',
  'apparently',
  'finally',
  'well',
  'oh',
  'yes',
  'ok',
  'okay',
]);

const CAPITALISED = /^\p{Lu}/u;

function bare(token: string): string {
  return token.toLowerCase().replace(/[^\p{L}'-]/gu, '');
}

/** A person's key from a run of capitalised words: its first word that is a name. */
function nameKey(run: readonly string[]): string | null {
  for (const token of run) {
    const word = bare(token).replace(/'s$/, '');
    if (word !== '' && !NOT_NAMES.has(word)) return `name:${word}`;
  }
  return null;
}

/** A possessor's key: "my" is the self, "her" the last named, "Caroline's" Caroline. */
export function possessorKey(token: string, context: SubjectContext): string | null {
  const word = bare(token);
  if (POSSESSIVE_FIRST.has(word)) return SELF;
  if (word === "user's") return SELF;
  if (word === 'the') return 'the';
  if (PRONOUNS.has(word)) return context.lastNamed;
  const name = word.replace(/'s$/, '');
  return name !== word && name !== '' && CAPITALISED.test(token) ? `name:${name}` : null;
}

/**
 * Who the fact whose verb follows `before` is about, and whether the words between say it
 * no longer holds ("no longer", "doesn't") or held once ("used to").
 */
export function subjectBefore(before: string, context: SubjectContext): SubjectReading {
  const tokens = before.trim().split(' ').slice(-8);
  const reading: SubjectReading = {
    subject: null,
    negated: false,
    past: false,
    was: false,
    perfect: false,
    partner: '',
  };
  let i = tokens.length - 1;
  for (; i >= 0; i -= 1) {
    const word = bare(tokens[i] as string);
    if (NEGATORS.has(word)) reading.negated = true;
    else if (word === 'was' || word === 'were') reading.was = true;
    else if (word === 'has' || word === 'have') reading.perfect = true;
    else if (word === 'to' && bare(tokens[i - 1] ?? '') === 'used') {
      reading.past = true;
      i -= 1;
    } else if (!BETWEEN.has(word)) break;
  }
  const token = tokens[i];
  if (token === undefined || token === '') return reading;
  const word = bare(token);
  if (token.endsWith(',') || CONJUNCTIONS.has(word)) {
    reading.subject = context.clauseSubject;
  } else if (FIRST_PERSON.has(word) || word === 'user') {
    reading.subject = SELF;
    const partner = tokens[i - 2];
    if (tokens[i - 1] === 'and' && partner && CAPITALISED.test(partner)) {
      // "Anna and I got engaged".
      reading.partner = bare(partner);
    }
  } else if (PRONOUNS.has(word)) {
    reading.subject = context.lastNamed;
  } else if (CAPITALISED.test(token)) {
    const run: string[] = [];
    for (let j = i; j >= 0 && j > i - 3; j -= 1) {
      const part = tokens[j] as string;
      if (!CAPITALISED.test(part) || (j < i && part.endsWith(','))) break;
      run.unshift(part);
    }
    const owner = i > 0 ? possessorKey(tokens[i - 1] as string, context) : null;
    reading.subject = owner && run.length === 1 ? `${owner}:${word}` : nameKey(run);
    if (owner && run.length === 1 && owner === SELF) reading.subject = `name:${word}`;
    const first = tokens[i - run.length - 1];
    if (run.length === 1 && tokens[i - 1] === 'and' && first) {
      // "Ben and Anna got engaged": about Ben, with Anna; "the user and Anna", about the user.
      const firstWord = bare(first);
      const self = FIRST_PERSON.has(firstWord) || firstWord === 'user';
      const named = CAPITALISED.test(first) ? nameKey([first]) : null;
      if (self || named) {
        reading.subject = self ? SELF : named;
        reading.partner = word;
      }
    }
  } else if (i > 0) {
    // "my sister", "my older sister", "Caroline's sister": a relation of a known person.
    const owner =
      possessorKey(tokens[i - 1] as string, context) ??
      (i > 1 ? possessorKey(tokens[i - 2] as string, context) : null);
    reading.subject = owner ? `${owner}:${word}` : null;
  }
  return reading;
}

/** The person a clause opens with ("Caroline told me..."), for the pronouns that follow. */
export function leadingName(clause: string): string | null {
  const space = clause.indexOf(' ');
  const first = space < 0 ? clause : clause.slice(0, space);
  // Most clauses open with "I" or a word in lower case: no name, and nothing to clean.
  if (first === 'I' || !CAPITALISED.test(first)) return null;
  const word = bare(first).replace(/'s$/, '');
  if (word === 'i' || PRONOUNS.has(word) || NOT_NAMES.has(word)) {
    return null;
  }
  return word === '' || word === 'user' ? null : `name:${word}`;
}
