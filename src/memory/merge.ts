// How a cluster of memories becomes one: the merged content and fields. Pure: consolidation.ts
// writes the merged memory, the consolidated_from relations and the archived members.

import { MIN_STRENGTH, STRENGTH_STEP } from '../decay/index.js';
import { type MemoryRecord, newMemoryRecord } from '../storage/records.js';

export interface MergePlan {
  content: string;
  tags: string[];
  entities: string[];
  use_count: number;
  strength: number;
  created_at: number;
  last_used: number;
  source: string | null;
  context: string | null;
}

export const MERGED_STRENGTH_CAP = 2.0;

/**
 * The memory `plan` makes of the members `memberIds`, made at `now`: what consolidation and a
 * conflict settled by merging write (with consolidated_from relations, the members archived).
 */
export function mergedRecord(
  id: string,
  plan: MergePlan,
  memberIds: readonly string[],
  now: number,
): MemoryRecord {
  return newMemoryRecord(id, plan.content, now, {
    meta: {
      tags: plan.tags,
      source: plan.source,
      context: plan.context,
      extra: { consolidated_from: [...memberIds] },
    },
    entities: plan.entities,
    created_at: plan.created_at,
    last_used: plan.last_used,
    use_count: plan.use_count,
    strength: plan.strength,
  });
}

/**
 * The merged memory of `members`, taken oldest first (created_at, then id):
 * - content: each member's sentences, dropping a sentence already said by an earlier one (or
 *   earlier in the same member), compared case-folded, with white space collapsed and trailing
 *   punctuation ignored; kept sentences keep their own text. Members are joined by a newline; a
 *   member with nothing new adds nothing.
 * - tags, entities: the union in first-seen order; spellings that differ only in case count once,
 *   as first spelled.
 * - use_count: the sum; created_at: the earliest; last_used: the latest; source, context: the
 *   first that is set.
 * - strength: the strongest member's, plus 0.1 for each other member that was ever used
 *   (use_count > 0), since agreeing memories that each earned a use are evidence the fact
 *   matters; at most MERGED_STRENGTH_CAP and at least 1. Summing strengths instead would let a
 *   pile of near-duplicates that nobody used reach the cap.
 */
export function mergeMemories(members: readonly MemoryRecord[]): MergePlan {
  if (members.length < 2) {
    throw new Error(`merging needs at least 2 memories, got ${members.length}`);
  }
  const ordered = [...members].sort(
    (a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const ids = new Set<string>();
  for (const { id } of ordered) {
    if (ids.has(id)) throw new Error(`memory ${id} is listed twice; pass each memory once`);
    ids.add(id);
  }

  const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });
  const seen = new Set<string>();
  const texts: string[] = [];
  for (const member of ordered) {
    let text = '';
    for (const sentence of sentences(segmenter, member.content)) {
      const key = sentenceKey(sentence);
      // White space and bare punctuation are layout, not something said: always kept.
      if (key !== '') {
        if (seen.has(key)) continue;
        seen.add(key);
      }
      text += sentence;
    }
    text = text.trim();
    if (text !== '') texts.push(text);
  }

  const strongest = ordered.reduce((best, m) => (m.strength > best.strength ? m : best));
  const usedOthers = ordered.filter((m) => m !== strongest && m.use_count > 0).length;
  const strength = Math.min(
    MERGED_STRENGTH_CAP,
    Math.max(MIN_STRENGTH, strongest.strength + STRENGTH_STEP * usedOthers),
  );

  return {
    content: texts.join('\n'),
    tags: unionIgnoringCase(ordered.map((m) => m.meta.tags)),
    entities: unionIgnoringCase(ordered.map((m) => m.entities)),
    use_count: ordered.reduce((sum, m) => sum + m.use_count, 0),
    // Rounded so that 1 + 0.1 + 0.1 reads 1.2, as reinforcement's strengths do.
    strength: Math.round(strength * 1e9) / 1e9,
    created_at: (ordered[0] as MemoryRecord).created_at,
    last_used: ordered.reduce((latest, m) => Math.max(latest, m.last_used), -Infinity),
    source: ordered.find((m) => m.meta.source !== null)?.meta.source ?? null,
    context: ordered.find((m) => m.meta.context !== null)?.meta.context ?? null,
  };
}

/**
 * An abbreviation or initial at the end of a segment ("Dr.", "Mrs.", "J."): the segmenter breaks
 * after it, so "Dr. Smith left." would come out as "Dr. " and "Smith left.", and a later "Dr. "
 * would be dropped as a repeat. Such a piece is glued to the next one; at worst this keeps two
 * real sentences together ("I met Bob. He left."), which only makes a repeat less likely to be
 * noticed, never garbles the text.
 */
const ABBREVIATION_END = /(?:^|\s)\p{Lu}\p{Ll}{0,3}\.\s*$/u;

const WHITE_SPACE = /\s/u;
/** What ABBREVIATION_END reaches before the white space at the end: `\s`, 4 letters, `.`. */
const ABBREVIATION_REACH = 12;

/**
 * `ABBREVIATION_END.test(text)`, looking only at the end of `text`: the pieces of a run of
 * initials ("A. A. A. …") are glued one to the next, and testing the whole piece each time made
 * a merge quadratic (2.7 s for two memories of 50,000 characters, every namespace waiting).
 */
export function endsWithAbbreviation(text: string): boolean {
  let end = text.length;
  while (end > 0 && WHITE_SPACE.test(text[end - 1] as string)) end--;
  const from = end - ABBREVIATION_REACH;
  // Cut: a NUL in front, so that `^` can no longer match where the text did not start.
  return ABBREVIATION_END.test(from <= 0 ? text : `\0${text.slice(from)}`);
}

/** The sentences of `text`, each with the white space after it, so that they join back to it. */
function sentences(segmenter: Intl.Segmenter, text: string): string[] {
  const out: string[] = [];
  let pending = '';
  for (const { segment } of segmenter.segment(text)) {
    pending += segment;
    if (endsWithAbbreviation(pending)) continue;
    out.push(pending);
    pending = '';
  }
  if (pending !== '') out.push(pending);
  return out;
}

/** NFC, case-folded, white space collapsed, trailing punctuation dropped. */
function sentenceKey(sentence: string): string {
  return withoutTrailingPunctuation(fold(sentence).replace(/\s+/gu, ' ')).trim();
}

const SPACE_OR_PUNCTUATION = /^[\s\p{P}]$/u;

/** `text.replace(/[\s\p{P}]+$/u, '')`, a code point at a time from the end (the regex is quadratic). */
export function withoutTrailingPunctuation(text: string): string {
  let end = text.length;
  while (end > 0) {
    const low = text.charCodeAt(end - 1);
    const high = end > 1 ? text.charCodeAt(end - 2) : 0;
    const pair = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff;
    const width = pair ? 2 : 1;
    if (!SPACE_OR_PUNCTUATION.test(text.slice(end - width, end))) break;
    end -= width;
  }
  return text.slice(0, end);
}

/**
 * An approximation of Unicode full case folding: upper then lower case maps "ß" to "ss" and a
 * final "ς" to "σ", which lower case alone does not.
 */
function fold(text: string): string {
  return text.normalize('NFC').toUpperCase().toLowerCase().normalize('NFC');
}

function unionIgnoringCase(lists: readonly (readonly string[])[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const list of lists) {
    for (const value of list) {
      const key = fold(value);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(value);
    }
  }
  return out;
}
