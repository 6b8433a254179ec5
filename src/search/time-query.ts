// Time named in words ("last summer", "in May 2023", "two weeks ago", "the week before 9 June
// 2023") as ranges of epoch seconds, relative to a clock. A search uses it on the query (what
// time it asks about, and whether it asks "when"), and on a memory's content with the memory's
// own date as the clock ("yesterday" said on 8 May 2023 is 7 May 2023).
//
// The text is cut to a bound and read as tokens by one linear regex; every pattern then looks a
// few tokens ahead, so the work is linear in the text. Days are UTC days.

import {
  AMBIGUOUS_MONTHS,
  CUE,
  digitsOnly,
  isoStart,
  MONTH_LEADS,
  MONTHS,
  NUMBER_WORDS,
  numeric,
  SEASONS,
  STARTS,
  TIME_NOUNS,
  TOKEN,
  UNITS,
  type Unit,
  WHEN_VERBS,
} from './time-words.js';

const DAY = 86_400;
const WEEK = 7 * DAY;
/** What is read of a text: a query is at most 2,000 characters, a memory's opening says its time. */
export const MAX_TIME_TEXT = 4000;
/** Ranges one text gives at most: a long text's dates past these add nothing to a ranking. */
const MAX_RANGES = 16;

/** A half-open range of epoch seconds, [from, to): from < to, either end may be infinite. */
export interface TimeRange {
  from: number;
  to: number;
  /** The words it was read from, as written (lowercased). */
  said: string;
}

export interface TimeQuery {
  ranges: TimeRange[];
  /** The text asks for a time: "when did", "what date", "how long ago", "what year". */
  asksWhen: boolean;
}

/** The time a text names, relative to `now` (epoch seconds). Never throws. */
export function parseTime(text: string, now: number): TimeQuery {
  return parseTokens(timeText(text).match(TOKEN) ?? [], now);
}

/** What is read of a text for the times it names: its opening, lowercased. */
const timeText = (text: string) => text.slice(0, MAX_TIME_TEXT).toLowerCase();

/** Whether a memory's text may state a time: without a cue (time-words.ts) it states none. */
export const maySayTime = (text: string): boolean => CUE.test(timeText(text));

function parseTokens(tokens: readonly string[], now: number): TimeQuery {
  const ranges: TimeRange[] = [];
  let asksWhen = false;
  const clock = Number.isFinite(now) ? now : 0;
  let i = 0;
  while (i < tokens.length) {
    if (!asksWhen && asksForTime(tokens, i)) asksWhen = true;
    const token = tokens[i] as string;
    const found =
      ranges.length < MAX_RANGES && (numeric(token) || STARTS.has(token))
        ? rangeAt(tokens, i, clock)
        : null;
    if (found) {
      if (found.range.from < found.range.to) ranges.push(found.range);
      i = found.next;
    } else {
      i++;
    }
  }
  return { ranges, asksWhen };
}

/**
 * The times a memory's text states (`parseTime(text, now).ranges`), read only when it holds a
 * cue: most memories name no time, and a search reads a hundred of them.
 */
export function statedTimes(text: string, now: number): TimeRange[] {
  const lower = timeText(text);
  return CUE.test(lower) ? parseTokens(lower.match(TOKEN) ?? [], now).ranges : [];
}

/** Whether `range` holds the instant `t`. */
export const within = (range: TimeRange, t: number) => t >= range.from && t < range.to;

function asksForTime(tokens: readonly string[], i: number): boolean {
  const word = tokens[i];
  const next = tokens[i + 1] ?? '';
  if (word === 'when') return i === 0 || WHEN_VERBS.has(next) || tokens[i - 1] === 'since';
  if (word === 'what' || word === 'which') return TIME_NOUNS.has(next);
  if (word === 'how') return next === 'long' && tokens[i + 2] === 'ago';
  return false;
}

interface Found {
  range: TimeRange;
  /** The token after the expression. */
  next: number;
}

const found = (
  tokens: readonly string[],
  start: number,
  next: number,
  from: number,
  to: number,
): Found => ({
  range: { from, to, said: tokens.slice(start, next).join(' ') },
  next,
});

/** The expression that starts at token `i`, if one does. */
function rangeAt(tokens: readonly string[], i: number, now: number): Found | null {
  const word = tokens[i] as string;
  // "the week before 9 June 2023", "the day after ...": relative to the date that follows.
  if (word === 'the' || word === 'a') {
    const unit = UNITS[tokens[i + 1] ?? ''];
    const side = tokens[i + 2];
    if (unit && unit !== 'year' && (side === 'before' || side === 'after')) {
      const anchor = dateAt(tokens, i + 3, now);
      if (anchor) {
        const span = unit === 'day' ? DAY : unit === 'month' ? 30 * DAY : WEEK;
        const r = anchor.range;
        return side === 'before'
          ? found(tokens, i, anchor.next, r.from - span, r.from)
          : found(tokens, i, anchor.next, r.to, r.to + span);
      }
    }
  }
  // "before 9 June 2023", "after May 2023", "since 2022", "until last week".
  if (word === 'before' || word === 'after' || word === 'since' || word === 'until') {
    const anchor = dateAt(tokens, i + 1, now);
    if (anchor) {
      const r = anchor.range;
      if (word === 'before' || word === 'until') {
        return found(
          tokens,
          i,
          anchor.next,
          Number.NEGATIVE_INFINITY,
          word === 'until' ? r.to : r.from,
        );
      }
      if (word === 'since') return found(tokens, i, anchor.next, r.from, Math.max(now, r.to));
      return found(tokens, i, anchor.next, r.to, Number.POSITIVE_INFINITY);
    }
    // "before she moved": a time relative to another memory is not resolved (its words stay).
    return null;
  }
  return dateAt(tokens, i, now);
}

/** A date or a span named from token `i`: the anchors of the relative forms too. */
function dateAt(tokens: readonly string[], i: number, now: number): Found | null {
  const word = tokens[i];
  if (word === undefined) return null;
  const next = tokens[i + 1] ?? '';
  if (isoStart(word)) return isoDate(tokens, i);
  if (word === 'today' || word === 'tonight') return dayOf(tokens, i, i + 1, now);
  if (word === 'yesterday') return dayOf(tokens, i, i + 1, now - DAY);
  if (word === 'tomorrow') return dayOf(tokens, i, i + 1, now + DAY);
  if (word === 'last' && next === 'night') return dayOf(tokens, i, i + 2, now - DAY);
  if (word === 'last' || word === 'this' || word === 'next' || word === 'past') {
    return namedPeriod(tokens, i, now);
  }
  if (word === 'in' || word === 'during' || word === 'of') {
    // "in May 2023", "in the summer of 2022", "in 2023".
    const skip = tokens[i + 1] === 'the' ? 2 : 1;
    // One level only: "in in in ..." does not recurse down a long text.
    const lead = tokens[i + skip] ?? '';
    const inner =
      lead === 'in' || lead === 'during' || lead === 'of' ? null : dateAt(tokens, i + skip, now);
    if (inner)
      return {
        range: { ...inner.range, said: tokens.slice(i, inner.next).join(' ') },
        next: inner.next,
      };
    const month = MONTHS[tokens[i + 1] ?? ''];
    if (month !== undefined) return monthOf(tokens, i, i + 2, latestYearOf(month, now), month);
    return null;
  }
  if (SEASONS[word] !== undefined) return season(tokens, i, now);
  const agoAt = ago(tokens, i, now);
  if (agoAt) return agoAt;
  const month = MONTHS[word];
  if (month !== undefined) return monthFirst(tokens, i, month, now);
  if (digitsOnly(word)) return dayFirst(tokens, i, now) ?? yearAt(tokens, i);
  return null;
}

function isoDate(tokens: readonly string[], i: number): Found | null {
  const [y, m, d] = (tokens[i] as string).split('-').map(Number) as [number, number, number];
  if (m < 1 || m > 12 || d < 1 || d > 31) return null;
  const from = Date.UTC(y, m - 1, d) / 1000;
  return found(tokens, i, i + 1, from, from + DAY);
}

/** The UTC day holding `t`. */
function dayOf(tokens: readonly string[], start: number, next: number, t: number): Found {
  const from = Math.floor(t / DAY) * DAY;
  return found(tokens, start, next, from, from + DAY);
}

/** "last week", "this month", "next year", "last weekend", "last summer", "the past week". */
function namedPeriod(tokens: readonly string[], i: number, now: number): Found | null {
  const which = tokens[i] as string;
  const what = tokens[i + 1] ?? '';
  const step = which === 'last' ? -1 : which === 'next' ? 1 : 0;
  if (which === 'past') {
    const unit = UNITS[what];
    if (!unit) return null;
    return found(tokens, i, i + 2, now - spanOf(unit), now);
  }
  if (SEASONS[what] !== undefined) {
    const start = seasonStart(what, now, step);
    return found(tokens, i, i + 2, start.from, start.to);
  }
  const month = MONTHS[what];
  if (month !== undefined) {
    const year = latestYearOf(month, now) + (step === 1 ? 1 : 0);
    return monthOf(tokens, i, i + 2, year, month);
  }
  const date = new Date(now * 1000);
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth();
  switch (UNITS[what]) {
    case 'day':
      return dayOf(tokens, i, i + 2, now + step * DAY);
    case 'week': {
      // Weeks start on Monday.
      const monday = Math.floor(now / DAY) * DAY - ((date.getUTCDay() + 6) % 7) * DAY;
      const from = monday + step * WEEK;
      return found(tokens, i, i + 2, from, from + WEEK);
    }
    case 'weekend': {
      const saturday = Math.floor(now / DAY) * DAY + ((6 - date.getUTCDay() + 7) % 7) * DAY;
      // This weekend: the coming one (or the one under way); last: the one before it.
      const sat = date.getUTCDay() === 0 ? saturday - WEEK : saturday;
      const from = sat + step * WEEK;
      return found(tokens, i, i + 2, from, from + 2 * DAY);
    }
    case 'month':
      return found(
        tokens,
        i,
        i + 2,
        Date.UTC(y, m + step, 1) / 1000,
        Date.UTC(y, m + step + 1, 1) / 1000,
      );
    case 'year':
      return found(
        tokens,
        i,
        i + 2,
        Date.UTC(y + step, 0, 1) / 1000,
        Date.UTC(y + step + 1, 0, 1) / 1000,
      );
    default:
      return null;
  }
}

function spanOf(unit: Unit): number {
  if (unit === 'day') return DAY;
  if (unit === 'week' || unit === 'weekend') return WEEK;
  if (unit === 'month') return 30 * DAY;
  return 365 * DAY;
}

/** "two weeks ago", "a few days ago", "3 months ago": the unit around that far back. */
function ago(tokens: readonly string[], i: number, now: number): Found | null {
  const word = tokens[i] as string;
  let n = digitsOnly(word) ? Number(word) : NUMBER_WORDS[word];
  let at = i + 1;
  if (n === undefined) return null;
  // "a couple of weeks ago", "a few days ago".
  if (
    (word === 'a' || word === 'an') &&
    NUMBER_WORDS[tokens[at] ?? ''] !== undefined &&
    tokens[at] !== 'a'
  ) {
    n = NUMBER_WORDS[tokens[at] as string] as number;
    at++;
  }
  if (tokens[at] === 'of') at++;
  const unit = UNITS[tokens[at] ?? ''];
  if (!unit || tokens[at + 1] !== 'ago' || n > 1000) return null;
  const span = spanOf(unit);
  const center = now - n * span;
  return found(tokens, i, at + 2, center - span / 2, center + span / 2);
}

/** "summer 2023", "summer of 2022", "the summer" (the latest one begun by now). */
function season(tokens: readonly string[], i: number, now: number): Found {
  const name = tokens[i] as string;
  let at = i + 1;
  if (tokens[at] === 'of') at++;
  const year = yearValue(tokens[at]);
  if (year !== null) {
    const from = Date.UTC(year, SEASONS[name] as number, 1) / 1000;
    return found(tokens, i, at + 1, from, Date.UTC(year, (SEASONS[name] as number) + 3, 1) / 1000);
  }
  const r = seasonStart(name, now, 0);
  return found(tokens, i, i + 1, r.from, r.to);
}

/** The season `name` under way or last begun at `now`, moved `step` seasons of that name. */
function seasonStart(name: string, now: number, step: number): { from: number; to: number } {
  const start = SEASONS[name] as number;
  const date = new Date(now * 1000);
  let year = date.getUTCFullYear();
  if (Date.UTC(year, start, 1) / 1000 > now) year--;
  // "last summer" said in July is the summer before this one; said in November, this year's.
  const underWay = now < Date.UTC(year, start + 3, 1) / 1000;
  if (step === -1) year -= underWay ? 1 : 0;
  if (step === 1) year += 1;
  return { from: Date.UTC(year, start, 1) / 1000, to: Date.UTC(year, start + 3, 1) / 1000 };
}

/** The year of the latest `month` begun by `now`. */
function latestYearOf(month: number, now: number): number {
  const date = new Date(now * 1000);
  const year = date.getUTCFullYear();
  return date.getUTCMonth() >= month ? year : year - 1;
}

function monthOf(
  tokens: readonly string[],
  start: number,
  next: number,
  year: number,
  month: number,
): Found {
  return found(
    tokens,
    start,
    next,
    Date.UTC(year, month, 1) / 1000,
    Date.UTC(year, month + 1, 1) / 1000,
  );
}

const yearValue = (token: string | undefined): number | null => {
  if (token === undefined || !/^(19|20)\d\d$/.test(token)) return null;
  return Number(token);
};

/** A day of the month, 1..31, with an ordinal's suffix ("8th") as the next token. */
function dayValue(tokens: readonly string[], i: number): { day: number; next: number } | null {
  const token = tokens[i];
  if (token === undefined || !/^\d{1,2}$/.test(token)) return null;
  const day = Number(token);
  if (day < 1 || day > 31) return null;
  const suffix = tokens[i + 1];
  const next =
    suffix === 'st' || suffix === 'nd' || suffix === 'rd' || suffix === 'th' ? i + 2 : i + 1;
  return { day, next };
}

/** "May 8, 2023", "May 8th", "May 2023", "May of 2023". */
function monthFirst(
  tokens: readonly string[],
  i: number,
  month: number,
  now: number,
): Found | null {
  const name = tokens[i] as string;
  const day = dayValue(tokens, i + 1);
  if (day) {
    const year = yearValue(tokens[day.next]);
    const y = year ?? latestYearOf(month, now);
    const from = Date.UTC(y, month, day.day) / 1000;
    return found(tokens, i, year !== null ? day.next + 1 : day.next, from, from + DAY);
  }
  const at = tokens[i + 1] === 'of' ? i + 2 : i + 1;
  const year = yearValue(tokens[at]);
  if (year !== null) return monthOf(tokens, i, at + 1, year, month);
  // A bare month name: only after a word that makes it one ("early June"), never "you may".
  if (AMBIGUOUS_MONTHS.has(name) || !MONTH_LEADS.has(tokens[i - 1] ?? '')) return null;
  return monthOf(tokens, i, i + 1, latestYearOf(month, now), month);
}

/** "8 May 2023", "8th of May", "8 May". */
function dayFirst(tokens: readonly string[], i: number, now: number): Found | null {
  const day = dayValue(tokens, i);
  if (!day) return null;
  const at = tokens[day.next] === 'of' ? day.next + 1 : day.next;
  const month = MONTHS[tokens[at] ?? ''];
  if (month === undefined) return null;
  const year = yearValue(tokens[at + 1]);
  const y = year ?? latestYearOf(month, now);
  const from = Date.UTC(y, month, day.day) / 1000;
  return found(tokens, i, year !== null ? at + 2 : at + 1, from, from + DAY);
}

/** A year alone: "2023". */
function yearAt(tokens: readonly string[], i: number): Found | null {
  const year = yearValue(tokens[i]);
  if (year === null) return null;
  return found(tokens, i, i + 1, Date.UTC(year, 0, 1) / 1000, Date.UTC(year + 1, 0, 1) / 1000);
}
