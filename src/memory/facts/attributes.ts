// Possessed attributes, read word by word rather than by one regex (a pattern with an owner,
// up to three attribute words and a verb is one recheck cannot prove linear): "my phone number
// is", "Caroline's favourite colour is now", "my dog is called Rex", "our meeting was moved to
// Friday", "Blue is my favourite colour". Each scan is linear in the clause's words.

import type { FactPattern } from './patterns.js';

/** What the word scan found, shaped as a pattern's match: the owner, the attribute, the value. */
export interface AttributeMatch {
  pattern: FactPattern;
  index: number;
  end: number;
  groups: Record<string, string | undefined>;
}

/** Never matched: the attribute facts are found by `attributeMatches`, not by a regex. */
const SCANNED = /(?!)/;
export const ATTRIBUTE_PATTERN: FactPattern = { kind: 'attribute', regex: SCANNED };
const MOVED_PATTERN: FactPattern = { kind: 'attribute', regex: SCANNED, change: true };

const OWNERS = new Set(['my', 'our', 'his', 'her', 'their', "user's"]);
const QUALIFIERS = new Set([
  'new',
  'current',
  'old',
  'former',
  'previous',
  'latest',
  'updated',
  'real',
  'actual',
  'official',
]);
const MOVE_VERBS = new Set([
  'moved',
  'rescheduled',
  'pushed',
  'postponed',
  'changed',
  'bumped',
  'delayed',
  'shifted',
]);
const MOVE_AUX = new Set(['is', 'was', 'has', 'been', 'got', 'back']);
const MAX_ATTRIBUTE_WORDS = 3;

const lower = (word: string | undefined) => (word ?? '').toLowerCase();
const isWord = (word: string) => /^[\p{L}-]{1,20}$/u.test(word);

function isOwner(word: string): boolean {
  return OWNERS.has(lower(word)) || (word.endsWith("'s") && /^\p{Lu}/u.test(word));
}

/** The possessed attributes a clause states, each with its owner word and value. */
export function attributeMatches(text: string): AttributeMatch[] {
  const words = text.split(' ');
  const starts: number[] = [];
  let at = 0;
  for (const word of words) {
    starts.push(at);
    at += word.length + 1;
  }
  const found: AttributeMatch[] = [];
  for (let k = 0; k < words.length; k += 1) {
    const word = words[k] as string;
    // Most words are none of these: the cheap test first (favouriteFirst needs is or are).
    const lowered = lower(word);
    if (lowered === 'is' || lowered === 'are') {
      const inverse = favouriteFirst(words, k);
      if (inverse) found.push({ ...inverse, index: 0, end: text.length });
    }
    if (lowered !== 'the' && !isOwner(word)) continue;
    const owner = lower(word) === 'the' && lower(words[k + 1]) === "user's" ? "user's" : word;
    const start = owner === "user's" && lower(word) === 'the' ? k + 2 : k + 1;
    const read = readAttribute(words, start, lower(word) === 'the' && owner === word);
    if (read) {
      found.push({
        pattern: read.moved ? MOVED_PATTERN : ATTRIBUTE_PATTERN,
        index: starts[k] as number,
        end: text.length,
        groups: { owner, ...read.groups },
      });
    }
  }
  return found;
}

/** From the word after the owner: qualifier, attribute words, verb, value. */
function readAttribute(
  words: readonly string[],
  from: number,
  eventsOnly: boolean,
): { moved: boolean; groups: Record<string, string | undefined> } | null {
  let j = from;
  const qual = QUALIFIERS.has(lower(words[j])) ? lower(words[j]) : undefined;
  if (qual) j += 1;
  for (let m = j + 1; m <= j + MAX_ATTRIBUTE_WORDS && m < words.length; m += 1) {
    if (!isWord(words[m - 1] as string)) return null;
    const attr = words.slice(j, m).join(' ');
    const verb = lower(words[m]);
    let after = m;
    while (MOVE_AUX.has(lower(words[after])) && after < m + 3) after += 1;
    if (
      MOVE_VERBS.has(lower(words[after])) &&
      /^(?:to|until|till)$/.test(lower(words[after + 1]))
    ) {
      // "our meeting was moved to Friday".
      return { moved: true, groups: { attr, v: words.slice(after + 2).join(' ') } };
    }
    if (eventsOnly) continue;
    if (verb === 'is' || verb === 'are' || verb === 'was') {
      after = m + 1;
      let said = verb;
      if (/^(?:now|still|also)$/.test(lower(words[after]))) {
        said = `${verb} ${lower(words[after])}`;
        after += 1;
      }
      const called = /^(?:called|named|on|at)$/.test(lower(words[after]))
        ? lower(words[after])
        : undefined;
      if (called) after += 1;
      return {
        moved: false,
        groups: { qual, attr, verb: said, called, v: words.slice(after).join(' ') },
      };
    }
    if (verb === 'called' || verb === 'named') {
      return {
        moved: false,
        groups: { qual, attr, called: verb, v: words.slice(m + 1).join(' ') },
      };
    }
    const changedAt = verb === 'has' ? m + 1 : m;
    if (lower(words[changedAt]) === 'changed' && lower(words[changedAt + 1]) === 'to') {
      const v = words.slice(changedAt + 2).join(' ');
      return { moved: false, groups: { qual, attr, verb: 'changed to', v } };
    }
  }
  return null;
}

/** "Blue is my new favourite colour": the value first, then is, the owner, favourite, what. */
function favouriteFirst(
  words: readonly string[],
  k: number,
): Omit<AttributeMatch, 'index' | 'end'> | null {
  const verb = lower(words[k]);
  if (k === 0 || (verb !== 'is' && verb !== 'are') || !isOwner(words[k + 1] ?? '')) return null;
  let j = k + 2;
  const qual = /^(?:new|current|all-time)$/.test(lower(words[j])) ? lower(words[j]) : undefined;
  if (qual) j += 1;
  if (!/^favou?rite$/.test(lower(words[j])) || !isWord(words[j + 1] ?? '')) return null;
  return {
    pattern: ATTRIBUTE_PATTERN,
    groups: {
      owner: words[k + 1],
      qual,
      attr: `${lower(words[j])} ${lower(words[j + 1])}`.replace(/[^\p{L} -]/gu, ''),
      verb: 'is',
      v: words.slice(0, k).join(' '),
    },
  };
}
