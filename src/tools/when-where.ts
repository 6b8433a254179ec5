// A result's when and where as text lines: what an agent reads without the structured answer.
import type { Neighbours } from '../contract/when-where.js';

const oneLine = (text: string, length: number) => text.replace(/\s+/g, ' ').slice(0, length);

/** "saved 2023-05-08, a Monday (3 days ago), source chat, context standup". */
export function whenWhereLine(r: {
  date?: string | undefined;
  ago?: string | undefined;
  source?: string | undefined;
  context?: string | undefined;
}): string {
  if (r.date === undefined) return '';
  const where = [
    r.source ? `source ${oneLine(r.source, 80)}` : '',
    r.context ? `context ${oneLine(r.context, 80)}` : '',
  ].filter(Boolean);
  return `saved ${r.date} (${r.ago})${where.length ? `, ${where.join(', ')}` : ''}`;
}

/** The neighbours, one indented line each, saved before (-) or after (+) the result. */
export function neighbourLines(neighbours: Neighbours | undefined): string {
  if (!neighbours?.length) return '';
  return neighbours
    .map(
      (n) =>
        `\n     ${n.offset > 0 ? `+${n.offset}` : n.offset} [${n.memory_id}] ${n.date.slice(0, 10)}: ${oneLine(n.content, 160)}`,
    )
    .join('');
}
