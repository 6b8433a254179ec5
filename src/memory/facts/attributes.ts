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
/**
 * The words an attribute is read up to (`readAttribute`: is, are, was, called, named, changed
 * to, one of MOVE_VERBS; `favouriteFirst`: is, are), each a whole word between spaces: a clause
 * that holds none of them states no attribute, and most clauses are spared the split into words.
 */
const ATTRIBUTE_VERBS =
  /(?:^| )(?:is|are|was|called|named|changed|moved|rescheduled|pushed|postponed|bumped|delayed|shifted)(?= |$)/;
const MAX_ATTRIBUTE_WORDS = 3;

const isWord = (word: string) => /^[\p{L}-]{1,20}$/u.test(word);

/** An owner word: `lowered` is `word` in lower case. */
function isOwner(word: string, lowered: string): boolean {
  return OWNERS.has(lowered) || (word.endsWith("'s") && /^\p{Lu}/u.test(word));
}

/**
 * A clause's words as said and in lower case, split at single spaces: the lowered text split
 * is each word lowered (no space is added or removed by lowering, and a word's case mapping
 * depends only on the word: a space is neither cased nor case-ignorable).
 */
interface Words {
  said: readonly string[];
  low: readonly string[];
}

/** The possessed attributes a clause states, each with its owner word and value. */
export function attributeMatches(text: string): AttributeMatch[] {
  const lower = text.toLowerCase();
  return ATTRIBUTE_VERBS.test(lower) ? scanAttributes(text, lower) : [];
}

/** `attributeMatches` without the test for its verbs, which must change nothing (a test says). */
export function scanAttributes(text: string, lower = text.toLowerCase()): AttributeMatch[] {
  const said = text.split(' ');
  const words: Words = { said, low: lower.split(' ') };
  const { low } = words;
  const found: AttributeMatch[] = [];
  let at = 0;
  for (let k = 0; k < said.length; k += 1) {
    const word = said[k] as string;
    const start = at;
    at += word.length + 1;
    // Most words are none of these: the cheap tests first (favouriteFirst needs is or are).
    const lowered = low[k] as string;
    if (lowered === 'is' || lowered === 'are') {
      const inverse = favouriteFirst(words, k);
      if (inverse) found.push({ ...inverse, index: 0, end: text.length });
    }
    const the = lowered === 'the';
    if (!the && !isOwner(word, lowered)) continue;
    const owner = the && low[k + 1] === "user's" ? "user's" : word;
    const from = owner === "user's" && the ? k + 2 : k + 1;
    const read = readAttribute(words, from, the && owner === word);
    if (read) {
      found.push({
        pattern: read.moved ? MOVED_PATTERN : ATTRIBUTE_PATTERN,
        index: start,
        end: text.length,
        groups: { owner, ...read.groups },
      });
    }
  }
  return found;
}

const lowAt = (words: Words, k: number) => words.low[k] ?? '';

/** From the word after the owner: qualifier, attribute words, verb, value. */
function readAttribute(
  words: Words,
  from: number,
  eventsOnly: boolean,
): { moved: boolean; groups: Record<string, string | undefined> } | null {
  const { said } = words;
  let j = from;
  const qual = QUALIFIERS.has(lowAt(words, j)) ? lowAt(words, j) : undefined;
  if (qual) j += 1;
  for (let m = j + 1; m <= j + MAX_ATTRIBUTE_WORDS && m < said.length; m += 1) {
    if (!isWord(said[m - 1] as string)) return null;
    const verb = lowAt(words, m);
    let after = m;
    while (MOVE_AUX.has(lowAt(words, after)) && after < m + 3) after += 1;
    if (
      MOVE_VERBS.has(lowAt(words, after)) &&
      /^(?:to|until|till)$/.test(lowAt(words, after + 1))
    ) {
      // "our meeting was moved to Friday".
      const attr = said.slice(j, m).join(' ');
      return { moved: true, groups: { attr, v: said.slice(after + 2).join(' ') } };
    }
    if (eventsOnly) continue;
    const attr = said.slice(j, m).join(' ');
    if (verb === 'is' || verb === 'are' || verb === 'was') {
      after = m + 1;
      let saidVerb = verb;
      if (/^(?:now|still|also)$/.test(lowAt(words, after))) {
        saidVerb = `${verb} ${lowAt(words, after)}`;
        after += 1;
      }
      const called = /^(?:called|named|on|at)$/.test(lowAt(words, after))
        ? lowAt(words, after)
        : undefined;
      if (called) after += 1;
      return {
        moved: false,
        groups: { qual, attr, verb: saidVerb, called, v: said.slice(after).join(' ') },
      };
    }
    if (verb === 'called' || verb === 'named') {
      return {
        moved: false,
        groups: { qual, attr, called: verb, v: said.slice(m + 1).join(' ') },
      };
    }
    const changedAt = verb === 'has' ? m + 1 : m;
    if (lowAt(words, changedAt) === 'changed' && lowAt(words, changedAt + 1) === 'to') {
      const v = said.slice(changedAt + 2).join(' ');
      return { moved: false, groups: { qual, attr, verb: 'changed to', v } };
    }
  }
  return null;
}

/** "Blue is my new favourite colour": the value first, then is, the owner, favourite, what. */
function favouriteFirst(words: Words, k: number): Omit<AttributeMatch, 'index' | 'end'> | null {
  const { said } = words;
  const verb = lowAt(words, k);
  const owner = said[k + 1] ?? '';
  if (k === 0 || (verb !== 'is' && verb !== 'are') || !isOwner(owner, lowAt(words, k + 1))) {
    return null;
  }
  let j = k + 2;
  const qual = /^(?:new|current|all-time)$/.test(lowAt(words, j)) ? lowAt(words, j) : undefined;
  if (qual) j += 1;
  if (!/^favou?rite$/.test(lowAt(words, j)) || !isWord(said[j + 1] ?? '')) return null;
  return {
    pattern: ATTRIBUTE_PATTERN,
    groups: {
      owner,
      qual,
      attr: `${lowAt(words, j)} ${lowAt(words, j + 1)}`.replace(/[^\p{L} -]/gu, ''),
      verb: 'is',
      v: said.slice(0, k).join(' '),
    },
  };
}
