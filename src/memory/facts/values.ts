// A fact's value as a key two statements can be compared by: "the Google office" and "Google"
// are one employer, "two kids" and "2 children" one count, "May 3rd" and "3 May" one date.

/** Words that end a value: what follows them is about something else. */
const VALUE_ENDS = new Set([
  'and',
  'but',
  'with',
  'because',
  'since',
  'for',
  'as',
  'after',
  'before',
  'when',
  'where',
  'who',
  'which',
  'while',
  'now',
  'again',
  'anymore',
  'too',
  'instead',
  'these',
  'nowadays',
  'last',
  'this',
  'next',
  'ago',
  'from',
  'until',
  'so',
  'though',
  'although',
  'or',
  'full-time',
  'part-time',
  'remotely',
  'currently',
  'already',
  'yesterday',
  'today',
  'recently',
  'lately',
  'over',
  'than',
  'rather',
  'in',
  'near',
  'at',
  'on',
  'downtown',
  'any',
  'no',
  'not',
  'every',
  'most',
]);

/** Words dropped from the front of a value. */
const VALUE_LEADS = new Set([
  'a',
  'an',
  'the',
  'my',
  'his',
  'her',
  'their',
  'our',
  'some',
  'really',
  'on',
  'at',
]);

const SMALL_NUMBERS = new Map<string, number>([
  ['no', 0],
  ['zero', 0],
  ['a', 1],
  ['an', 1],
  ['one', 1],
  ['two', 2],
  ['three', 3],
  ['four', 4],
  ['five', 5],
  ['six', 6],
  ['seven', 7],
  ['eight', 8],
  ['nine', 9],
  ['ten', 10],
  ['eleven', 11],
  ['twelve', 12],
]);

const MONTHS = new Map<string, number>([
  ['jan', 1],
  ['feb', 2],
  ['mar', 3],
  ['apr', 4],
  ['may', 5],
  ['jun', 6],
  ['jul', 7],
  ['aug', 8],
  ['sep', 9],
  ['oct', 10],
  ['nov', 11],
  ['dec', 12],
]);

/** How many words a value keeps at most: place and company names are short. */
const MAX_VALUE_WORDS = 5;

/** How much of a value's text is read: five words of a place or a name fit. */
const MAX_VALUE_CHARS = 120;

const isKept = (char: string) => /[\p{L}\p{N}]/u.test(char);

/** A word without the punctuation around it ("(Boston)," is "boston"); "+" and "@" may lead. */
function trimPunctuation(token: string): string {
  let start = 0;
  let end = token.length;
  while (
    start < end &&
    !isKept(token[start] as string) &&
    token[start] !== '+' &&
    token[start] !== '@'
  ) {
    start += 1;
  }
  while (end > start && !isKept(token[end - 1] as string)) end -= 1;
  return token.slice(start, end);
}

/** A count in digits or small words ("two", "no"), or undefined. */
export function countOf(word: string): number | undefined {
  const lower = word.toLowerCase();
  const small = SMALL_NUMBERS.get(lower);
  if (small !== undefined) return small;
  return /^\d{1,4}$/.test(lower) ? Number(lower) : undefined;
}

function monthOf(word: string): number | undefined {
  return word.length >= 3 ? MONTHS.get(word.slice(0, 3)) : undefined;
}

/** "May 3rd", "3 May", "2024-05-03": a month-day key (with the year when given), or undefined. */
function dateKey(words: readonly string[]): string | undefined {
  const iso = words.find((w) => /^\d{4}-\d{2}-\d{2}$/.test(w));
  if (iso) return `${Number(iso.slice(5, 7))}-${Number(iso.slice(8, 10))}`;
  for (let i = 0; i < words.length; i += 1) {
    const month = monthOf(words[i] as string);
    if (month === undefined) continue;
    const day = [words[i + 1], words[i - 1], words[i - 2]]
      .map((w) => (w ? /^(\d{1,2})(?:st|nd|rd|th)?$/.exec(w)?.[1] : undefined))
      .find((d) => d !== undefined);
    if (day !== undefined) return `${month}-${Number(day)}`;
  }
  return undefined;
}

/** A plural's last "s" off, so "dogs" and "dog" are one value. */
function singular(word: string): string {
  if (word === 'children' || word === 'kids' || word === 'kid') return 'child';
  return word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;
}

/**
 * The comparable key of a value as written after its verb: cut at the first word that starts
 * something else, leading articles and trailing punctuation off, lower case, a date as month-day.
 */
export function valueKey(raw: string): string {
  const words: string[] = [];
  for (const token of raw.slice(0, MAX_VALUE_CHARS).toLowerCase().split(' ')) {
    const word = trimPunctuation(token);
    if (word === '') continue;
    if (words.length > 0 && VALUE_ENDS.has(word)) break;
    if (words.length === 0 && VALUE_LEADS.has(word)) continue;
    if (/^(?:19|20)\d{2}$/.test(word) && words.length > 0) break;
    words.push(word);
    if (words.length >= MAX_VALUE_WORDS) break;
  }
  return dateKey(words) ?? words.map(singular).join(' ');
}

/** Whether two value keys name one thing: equal, or one a leading part of the other. */
export function sameValue(a: string, b: string): boolean {
  if (a === b) return true;
  if (a === '' || b === '') return false;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return long.startsWith(`${short} `);
}
