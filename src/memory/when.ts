// A memory's date in words an agent reads without arithmetic: the day, and how long ago it is
// at the server's clock (never the wall clock). UTC days, as the time in queries.
const DAY = 86_400;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** "2023-05-08, a Monday". */
export function dayInWords(t: number): string {
  const date = new Date(Math.floor(t) * 1000);
  if (Number.isNaN(date.getTime())) return 'an unknown day';
  return `${date.toISOString().slice(0, 10)}, a ${WEEKDAYS[date.getUTCDay()]}`;
}

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** "today", "yesterday", "3 days ago", "2 weeks ago", "5 months ago", "2 years 6 months ago". */
export function agoInWords(t: number, now: number): string {
  const then = new Date(Math.floor(t) * 1000);
  const at = new Date(Math.floor(now) * 1000);
  if (Number.isNaN(then.getTime()) || Number.isNaN(at.getTime())) return 'at an unknown time';
  const days = Math.floor(now / DAY) - Math.floor(t / DAY);
  if (days < 0) return days === -1 ? 'tomorrow' : `in ${plural(-days, 'day')}`;
  if (days === 0) return 'today';
  if (days === 1) return 'yesterday';
  if (days < 14) return `${plural(days, 'day')} ago`;
  // Whole calendar months: 8 May to 7 June is not yet a month.
  let months =
    (at.getUTCFullYear() - then.getUTCFullYear()) * 12 + at.getUTCMonth() - then.getUTCMonth();
  if (at.getUTCDate() < then.getUTCDate()) months--;
  if (months < 1) return `${plural(Math.floor(days / 7), 'week')} ago`;
  if (months < 12) return `${plural(months, 'month')} ago`;
  const years = Math.floor(months / 12);
  const rest = months % 12;
  return `${plural(years, 'year')}${rest > 0 ? ` ${plural(rest, 'month')}` : ''} ago`;
}

/** A memory's when and where, as every result carries them. */
export function whenWhereOf(
  record: { created_at: number; meta: { source: string | null; context: string | null } },
  now: number,
  contextLength: number,
): { date: string; ago: string; source?: string; context?: string } {
  const { source, context } = record.meta;
  return {
    date: dayInWords(record.created_at),
    ago: agoInWords(record.created_at, now),
    ...(source ? { source } : {}),
    ...(context
      ? {
          context:
            context.length <= contextLength
              ? context
              : `${context.slice(0, Math.max(0, contextLength - 1))}…`,
        }
      : {}),
  };
}
