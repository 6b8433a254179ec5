// A memory's text read as facts: who, what kind, which value, and whether it is said to be
// new, to have ended, or to be history. What cannot be read with confidence is left out: a
// fact the judge does not see cannot hide a memory.

import { attributeMatches } from './attributes.js';
import {
  asciiLower,
  type Clause,
  clausesOf,
  endsAfter,
  hasChangeCue,
  isHypothetical,
} from './clauses.js';
import {
  ATTRIBUTE_ALIASES,
  ATTRIBUTE_KINDS,
  EMPTY_VALUES,
  GERUND_LEADS,
  JOB_WORDS,
  OCCUPATIONS,
  PARTNER_STATUS,
  SINGLE_ATTRIBUTES,
} from './lexicon.js';
import { patternsIn } from './pattern-leads.js';
import type { FactPattern } from './patterns.js';
import { leadingName, possessorKey, type SubjectContext, subjectBefore } from './subjects.js';
import { countOf, valueKey } from './values.js';

export interface Fact {
  /** `self`, `name:caroline`, `self:sister`, `name:caroline:sister`. */
  subject: string;
  /** `residence`, `employer`, `attr:phone`, `count:dog`, `relationship`, `any`... */
  kind: string;
  /** The comparable value; a relationship's is `status|partner`. */
  value: string;
  /** It says the value no longer holds. */
  negated: boolean;
  /** It says the value is new (a change verb, or "now", "no longer" near it). */
  change: boolean;
  /** A history ("used to", "lived"), not the present. */
  past: boolean;
  /** The subject holds many values of this kind at once. */
  multi: boolean;
}

/** Characters that end a value. */
const VALUE_STOPS = new Set([',', ';', ':', '(', ')', '"']);
/** How much text after a verb is read for its value: five words of a name fit. */
const MAX_VALUE_TEXT = 120;

interface Found {
  pattern: FactPattern;
  index: number;
  end: number;
  groups: Record<string, string | undefined>;
}

/** The facts a memory states, in the order it states them. */
export function factsOf(content: string): Fact[] {
  const facts: Fact[] = [];
  const context: SubjectContext = { clauseSubject: null, lastNamed: null };
  for (const clause of clausesOf(content)) {
    context.lastNamed = leadingName(clause.text) ?? context.lastNamed;
    if (clause.question) continue;
    context.clauseSubject = null;
    for (const found of matchesIn(clause)) {
      const fact = readFact(found, clause.text, context);
      if (!fact) continue;
      context.clauseSubject ??= fact.subject;
      if (fact.subject.startsWith('name:'))
        context.lastNamed = fact.subject.split(':', 2).join(':');
      facts.push(fact);
    }
  }
  return facts;
}

function matchesIn(clause: Clause): Found[] {
  const found: Found[] = [];
  const lower = asciiLower(clause.text);
  for (const pattern of patternsIn(lower)) {
    const match = pattern.regex.exec(lower);
    if (!match) continue;
    const end = match.index + match[0].length;
    const groups: Record<string, string | undefined> = { ...match.groups };
    const rest = valueAfter(clause.text, end);
    if (pattern.from) groups.from = rest;
    else groups.v ??= rest;
    found.push({ pattern, index: match.index, end, groups: fromTo(groups) });
  }
  found.push(...attributeMatches(clause.text));
  return found.sort((a, b) => a.index - b.index);
}

/** The value after a pattern's verb: up to a comma, a colon or a bracket, in its own case. */
function valueAfter(text: string, from: number): string | undefined {
  let end = from;
  const limit = Math.min(text.length, from + MAX_VALUE_TEXT);
  while (end < limit && !VALUE_STOPS.has(text[end] as string)) end += 1;
  const value = text.slice(from, end).trim();
  return value === '' ? undefined : value;
}

/** "moved from Boston to Denver": `from` Boston (what ended), `v` Denver (what began). */
function fromTo(groups: Record<string, string | undefined>): Record<string, string | undefined> {
  if (groups.from === undefined) return groups;
  const at = groups.from.indexOf(' to ');
  if (at < 0) return { ...groups, v: undefined };
  return { ...groups, from: groups.from.slice(0, at), v: groups.from.slice(at + 4) };
}

/** The part of a clause one fact is said in: from the last "and" or comma before it. */
function conjunct(text: string, start: number, end: number): string {
  const from = Math.max(text.lastIndexOf(' and ', start), text.lastIndexOf(', ', start), 0);
  const next = [text.indexOf(' and ', end), text.indexOf(', ', end)].filter((i) => i >= 0);
  return text.slice(from, next.length > 0 ? Math.min(...next) : text.length);
}

function readFact(found: Found, text: string, context: SubjectContext): Fact | null {
  const { pattern, groups, end } = found;
  const before = text.slice(0, found.index);
  if (pattern.tense === 'future' || isHypothetical(before)) return null;
  if (pattern.kind === 'residence' && groups.v === undefined) return null;
  const owner = groups.owner;
  const reading = subjectBefore(before, context);
  const subject = owner === undefined ? reading.subject : possessorKey(owner, context);
  if (!subject) return null;
  const aux = groups.aux?.toLowerCase();
  const ended = endsAfter(text.slice(end, end + 40));
  const fact: Fact = {
    subject,
    kind: pattern.kind,
    value: '',
    negated: reading.negated || pattern.negates === true || ended || groups.neg !== undefined,
    change: pattern.change === true || ended || hasChangeCue(conjunct(text, found.index, end)),
    past:
      reading.past ||
      (pattern.tense === 'past' && !reading.perfect) ||
      (pattern.stative === true && reading.was) ||
      aux === 'was',
    multi: pattern.multi === true,
  };
  if (aux === 'turns' || aux === 'turning') return null;
  if (aux === 'turned') fact.change = true;
  return completeFact(fact, pattern, groups, reading.partner);
}

/** The kind and value of a fact from its pattern's groups, or null when they say too little. */
function completeFact(
  fact: Fact,
  pattern: FactPattern,
  groups: Record<string, string | undefined>,
  partner: string,
): Fact | null {
  const raw = groups.v ?? '';
  if (pattern.proper && !/^\p{Lu}/u.test(raw)) return null;
  switch (pattern.kind) {
    case 'count':
    case 'age': {
      const count = countOf(groups.n ?? '');
      if (count === undefined) return null;
      const noun = valueKey(groups.noun || 'child');
      return { ...fact, kind: pattern.kind === 'age' ? 'age' : `count:${noun}`, value: `${count}` };
    }
    case 'relationship': {
      const status = pattern.status ?? groups.status ?? 'partner';
      // A partner is a name: "married in June" names none.
      const words = raw.split(' ');
      const first = words[0] === 'to' || words[0] === 'from' ? words[1] : words[0];
      const named = first && /^\p{Lu}/u.test(first) ? first : '';
      if (!named && pattern.status !== undefined && status === 'dating') return null;
      return { ...fact, value: `${status}|${valueKey(named || partner)}` };
    }
    case 'attribute':
    case 'favourite':
      return attributeFact(fact, groups);
    case 'any':
      // "switched from tea to coffee": what ended is the first.
      return endedFact(fact, groups.from ?? raw);
    case 'born': {
      const value = valueKey(raw);
      return { ...fact, kind: /\d/.test(value) ? 'born' : 'birthplace', value };
    }
    default: {
      const value = valueKey(raw);
      if (EMPTY_VALUES.has(value)) return null;
      if (pattern.roles && !OCCUPATIONS.has(value.split(' ').pop() ?? '')) return null;
      return { ...fact, value };
    }
  }
}

/** "stopped drinking coffee", "quit my job", "switched from tea to coffee": what ended. */
function endedFact(fact: Fact, raw: string): Fact | null {
  const value = valueKey(raw.replace(GERUND_LEADS, ''));
  if (EMPTY_VALUES.has(value)) return null;
  if (JOB_WORDS.has(value)) return { ...fact, kind: 'employer', value: '', negated: true };
  return { ...fact, value, negated: true };
}

function attributeFact(fact: Fact, groups: Record<string, string | undefined>): Fact | null {
  const words = (groups.attr ?? '')
    .toLowerCase()
    .replace('favorite', 'favourite')
    .replace('color', 'colour')
    .replace('flavor', 'flavour');
  // "my dog is called Rex" is read by the "is called" pattern; its bare "called" twin would
  // take "dog is" for the attribute.
  if (/ (?:is|are|was)$/.test(words)) return null;
  const attr = ATTRIBUTE_ALIASES.get(words) ?? words;
  const called = groups.called?.trim();
  const qual = groups.qual?.trim().toLowerCase();
  const verb = groups.verb ?? '';
  const raw = groups.v ?? '';
  const head = attr.split(' ').pop() ?? '';
  const named = called === 'called' || called === 'named';
  const partner = PARTNER_STATUS.get(attr);
  const past = fact.past || qual === 'old' || qual === 'former' || qual === 'previous';
  const change =
    fact.change ||
    qual === 'new' ||
    qual === 'latest' ||
    qual === 'updated' ||
    verb === 'has changed to' ||
    verb === 'changed to' ||
    verb === 'is now';
  const base = { ...fact, past: past || verb === 'was', change: change && verb !== 'was' };
  if (partner) {
    if (!/^\p{Lu}/u.test(raw)) return null;
    return { ...base, kind: 'relationship', value: `${partner}|${valueKey(raw)}` };
  }
  const value = valueKey(raw);
  if (EMPTY_VALUES.has(value)) return null;
  if (named) return { ...base, kind: `attr:${attr} name`, value };
  const kind = ATTRIBUTE_KINDS.get(attr);
  if (kind === 'age') {
    const count = countOf(value.split(' ')[0] ?? '');
    return count === undefined ? null : { ...base, kind, value: `${count}` };
  }
  if (kind) return { ...base, kind, value };
  if (!attr.startsWith('favourite ') && !SINGLE_ATTRIBUTES.has(head)) return null;
  return { ...base, kind: `attr:${attr}`, value };
}
