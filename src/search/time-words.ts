// The words of time: the tables the time in a text is read with (time-query.ts), and the
// quick tests of a token or a text that spare most words the parse.

/**
 * A table of words without a prototype: a word of the text such as "constructor" is no entry
 * (it once read as a season and took the words after it).
 */
const table = <T>(entries: Record<string, T>): Record<string, T> =>
  Object.assign(Object.create(null) as Record<string, T>, entries);

export const MONTHS: Record<string, number> = table({
  january: 0,
  jan: 0,
  february: 1,
  feb: 1,
  march: 2,
  mar: 2,
  april: 3,
  apr: 3,
  may: 4,
  june: 5,
  jun: 5,
  july: 6,
  jul: 6,
  august: 7,
  aug: 7,
  september: 8,
  sept: 8,
  sep: 8,
  october: 9,
  oct: 9,
  november: 10,
  nov: 10,
  december: 11,
  dec: 11,
});

/** Month names that are also common words: a month only beside a day, a year or "in". */
export const AMBIGUOUS_MONTHS = new Set(['may', 'march', 'mar', 'jan', 'sep', 'dec', 'oct', 'nov']);

export const NUMBER_WORDS: Record<string, number> = table({
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  couple: 2,
  few: 3,
  several: 3,
});

export type Unit = 'day' | 'week' | 'weekend' | 'month' | 'year';
export const UNITS: Record<string, Unit> = table({
  day: 'day',
  days: 'day',
  week: 'week',
  weeks: 'week',
  weekend: 'weekend',
  weekends: 'weekend',
  month: 'month',
  months: 'month',
  year: 'year',
  years: 'year',
});

/** Meteorological seasons of the northern hemisphere: the month each starts in. */
export const SEASONS: Record<string, number> = table({
  spring: 2,
  summer: 5,
  fall: 8,
  autumn: 8,
  winter: 11,
});

/** Words before a bare month name that make it a month ("in May", not "you may"). */
export const MONTH_LEADS = new Set([
  'in',
  'during',
  'since',
  'until',
  'till',
  'by',
  'of',
  'early',
  'late',
  'mid',
  'last',
  'this',
  'next',
  'before',
  'after',
]);
export const WHEN_VERBS = new Set([
  'did',
  'was',
  'were',
  'is',
  'are',
  'do',
  'does',
  'will',
  'would',
  'has',
  'have',
  'had',
  'can',
  'could',
  'should',
]);
export const TIME_NOUNS = new Set(['date', 'day', 'year', 'month', 'week', 'time', 'season']);

// Dates as 2023-05-08, words, numbers (an ordinal's suffix is a word of its own). Each branch
// is one character class: linear.
export const TOKEN = /\d{4}-\d{1,2}-\d{1,2}|[a-z]+|\d+/g;

/**
 * The words an expression can begin with (time-query.ts's `rangeAt`, `dateAt`); a number can too. Every other
 * word is passed over at once: most of a text's words name no time, and a search reads the
 * texts of a hundred memories.
 */
export const STARTS = new Set([
  'the',
  'a',
  'before',
  'after',
  'since',
  'until',
  'today',
  'tonight',
  'yesterday',
  'tomorrow',
  'last',
  'this',
  'next',
  'past',
  'in',
  'during',
  'of',
  ...Object.keys(SEASONS),
  ...Object.keys(NUMBER_WORDS),
  ...Object.keys(MONTHS),
]);

/** Whether the token's first character is a digit (a number or a date: TOKEN's other kinds). */
export const numeric = (token: string) => {
  const c = token.charCodeAt(0);
  return c >= 48 && c <= 57;
};

/** /^\d+$/ without a regex (a token is tested a few times on its way through). */
export function digitsOnly(token: string): boolean {
  if (token.length === 0) return false;
  for (let k = 0; k < token.length; k++) {
    const c = token.charCodeAt(k);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** /^\d{4}-/ without a regex: a date as 2023-05-08. */
export function isoStart(token: string): boolean {
  if (token.length < 5 || token.charCodeAt(4) !== 45) return false;
  for (let k = 0; k < 4; k++) {
    const c = token.charCodeAt(k);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * Every expression time-query.ts reads holds a digit or one of these words (the months, seasons
 * and units above, and the days by name): a text with none names no time. A literal pattern, so
 * that its linearity is checked; a test holds it to the tables. Literal words between letter
 * boundaries: linear, and quicker than cutting the text in tokens.
 */
export const CUE =
  /\d|(?<![a-z])(?:january|jan|february|feb|march|mar|april|apr|may|june|jun|july|jul|august|aug|september|sept|sep|october|oct|november|nov|december|dec|spring|summer|fall|autumn|winter|days?|weeks?|weekends?|months?|years?|today|tonight|yesterday|tomorrow|night)(?![a-z])/;
