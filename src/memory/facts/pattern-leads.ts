// Which fact patterns can match a clause at all, from the words they begin with: most clauses
// hold the first words of a few of the patterns, and a regex that cannot match still costs a
// scan of the clause. Read from each pattern's own source, so a pattern and its leads never
// disagree; a pattern whose source is not of the shape read here is always run.

import { FACT_PATTERNS, type FactPattern } from './patterns.js';

/** A lead: a letter, then at least one more literal character. */
const LITERAL = /^[a-z][a-z' -]+$/;
const QUANTIFIER = new Set(['?', '*', '+', '{']);

/**
 * The ways a match of `source` can begin, each at least two characters, right after its
 * leading `\b`: the alternatives of its first group when that group is literal and required,
 * or its literal opening. Null when the source is not of that shape.
 */
export function leadsOf(source: string): string[] | null {
  if (!source.startsWith('\\b')) return null;
  const rest = source.slice(2);
  const group = /^\(\?(?::|<[A-Za-z]+>)/.exec(rest);
  let leads: string[];
  if (group) {
    const close = rest.indexOf(')');
    // An optional group is no lead; a nested one is not literal and fails the test below.
    if (close < 0 || QUANTIFIER.has(rest[close + 1] ?? '')) return null;
    leads = rest.slice(group[0].length, close).split('|');
  } else {
    const literal = /^[a-z' -]+/.exec(rest)?.[0] ?? '';
    // "ab?" holds "a" for sure, not "ab".
    leads = [QUANTIFIER.has(rest[literal.length] ?? '') ? literal.slice(0, -1) : literal];
  }
  return leads.every((lead) => LITERAL.test(lead)) ? leads : null;
}

/** A character `\b` counts as part of a word (without the `i` flag, with or without `u`). */
function isWordChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 95
  );
}

/** A lead's first two characters as a slot of `BY_LEAD`: a-z, then any of the first 128. */
const slotOf = (first: number, second: number) =>
  first >= 97 && first <= 122 && second < 128 ? (first - 97) * 128 + second : -1;

/** Pattern numbers by the first two characters of each of their leads; `ALWAYS` the rest. */
const BY_LEAD: (number[] | undefined)[] = new Array(26 * 128).fill(undefined);
const ALWAYS: number[] = [];
FACT_PATTERNS.forEach((pattern, n) => {
  const leads = leadsOf(pattern.regex.source);
  if (leads === null) {
    ALWAYS.push(n);
    return;
  }
  for (const lead of leads) {
    const slot = slotOf(lead.charCodeAt(0), lead.charCodeAt(1));
    const list = BY_LEAD[slot] ?? [];
    if (!list.includes(n)) list.push(n);
    BY_LEAD[slot] = list;
  }
});

/** Whether each pattern is wanted, reused from clause to clause (a scan never yields midway). */
const wanted = new Uint8Array(FACT_PATTERNS.length);

/**
 * The patterns that may match `lower` (a clause with A-Z lowered), in FACT_PATTERNS' order:
 * those with a lead whose first two characters open a word of it, and those read without leads.
 * A pattern left out cannot match: its `\b` and lead must open a word.
 */
export function patternsIn(lower: string): FactPattern[] {
  wanted.fill(0);
  for (const n of ALWAYS) wanted[n] = 1;
  let before = false;
  let code = lower.charCodeAt(0);
  for (let i = 0; i + 1 < lower.length; i += 1) {
    const next = lower.charCodeAt(i + 1);
    const word = isWordChar(code);
    if (word && !before) {
      const slot = slotOf(code, next);
      const list = slot < 0 ? undefined : BY_LEAD[slot];
      if (list !== undefined) for (const n of list) wanted[n] = 1;
    }
    before = word;
    code = next;
  }
  const patterns: FactPattern[] = [];
  for (let n = 0; n < wanted.length; n += 1) {
    if (wanted[n] === 1) patterns.push(FACT_PATTERNS[n] as FactPattern);
  }
  return patterns;
}

/** How many patterns are always run (a test keeps it at zero: every pattern has leads). */
export const UNLED_PATTERNS = ALWAYS.length;
