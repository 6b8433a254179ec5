// The numbers of a bench's report, formatted the same way everywhere: counts with separators,
// milliseconds with the digits that matter, and markdown table rows.

/** A whole count with thousands separators: 100,000. */
export const count = (n: number) => n.toLocaleString('en-US');

/** Milliseconds: 2 decimals under 10, 1 under 100, whole above (with separators from 1,000). */
export const ms = (x: number) =>
  x >= 100 ? count(Math.round(x)) : x >= 10 ? x.toFixed(1) : x.toFixed(2);

/** A rate (calls/s): 1 decimal under 100, whole above. */
export const rate = (x: number) => (x >= 100 ? count(Math.round(x)) : x.toFixed(1));

/** Bytes as MB, 1 decimal. */
export const mb = (bytes: number) => (bytes / 1024 ** 2).toFixed(1);

/** One markdown table row. */
export const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;

/** The rule under a header: the first `left` columns left-aligned, the rest right-aligned. */
export const rule = (header: readonly string[], left: number) =>
  line(header.map((_, i) => (i < left ? '---' : '---:')));

/** A markdown table: the header, its rule (`left` columns left-aligned), a line a row. */
export const table = (header: readonly string[], left: number, rows: readonly string[][]) =>
  [line(header), rule(header, left), ...rows.map(line)].join('\n');
