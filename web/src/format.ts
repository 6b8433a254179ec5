// Numbers and dates as the page shows them: UTC, like the CLI.
export const DAY = 86_400;

export const score = (x: number | null | undefined) => (x == null ? '' : x.toFixed(3));

export function date(t: number | null | undefined): string {
  if (t == null) return '';
  return new Date(t * 1000).toISOString().slice(0, 16).replace('T', ' ');
}

export const day = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);

/** "3 days ago", "in 2 hours", from `now` (the server's clock). */
export function ago(t: number, now: number): string {
  const d = now - t;
  const abs = Math.abs(d);
  const [n, unit] =
    abs < 3600
      ? [Math.round(abs / 60), 'minute']
      : abs < DAY
        ? [Math.round(abs / 3600), 'hour']
        : [Math.round(abs / DAY), 'day'];
  const words = `${n} ${unit}${n === 1 ? '' : 's'}`;
  return d >= 0 ? `${words} ago` : `in ${words}`;
}
