// How memories are shown in answers: rounded numbers, previews, ages.
import { DAY } from '../decay/index.js';
import type { MemoryRecord } from '../storage/records.js';

export const round = (x: number, digits = 4) => Math.round(x * 10 ** digits) / 10 ** digits;

/** `content` cut to `length` characters, an ellipsis marking the cut. */
export function preview(content: string, length: number): string {
  return content.length <= length ? content : `${content.slice(0, Math.max(0, length - 1))}…`;
}

/** A memory's content on one short line, for a list of candidates. */
export const oneLine = (content: string) => preview(content.replace(/\s+/g, ' '), 80);

/** Days since the memory was made, at `now`. */
export const ageDays = (record: MemoryRecord, now: number, digits: number) =>
  round((now - record.created_at) / DAY, digits);
