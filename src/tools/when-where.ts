// A result's when and where as text lines: what an agent reads without the structured answer.
import type { Neighbours } from '../contract/when-where.js';

/** White space that one-lining changes: a run of it, or any but a space. */
const LOOSE_SPACE = /\s\s|[^\S ]/;

/**
 * The first `length` characters of `text` on one line (each run of white space one space). Only
 * a prefix is read when that gives them (collapsing a prefix gives a prefix of the whole
 * collapsed), and a text whose white space is single spaces is not rewritten: a search answer
 * writes ten of these.
 */
export function oneLine(text: string, length: number): string {
  const head = text.length > 4 * length ? text.slice(0, 4 * length) : text;
  const line = LOOSE_SPACE.test(head) ? head.replace(/\s+/g, ' ') : head;
  if (line.length >= length || head.length === text.length) return line.slice(0, length);
  return text.replace(/\s+/g, ' ').slice(0, length);
}

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
