// A memory's text read as facts: who, what kind, which value, and whether it is said to be
// new, to have ended, or to be history. What cannot be read with confidence is left out: a
// fact the judge does not see cannot hide a memory.

import { type Clause, clausesOf, endsAfter, hasChangeCue, isHypothetical } from './clauses.js';
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
import { FACT_PATTERNS, type FactPattern } from './patterns.js';
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

interface Found {
  pattern: FactPattern;
  match: RegExpExecArray;
}

/** The facts a memory states, in the order it states them. */
export function factsOf(content: string): Fact[] {
  const facts: Fact[] = [];
  const context: SubjectContext = { clauseSubject: null, lastNamed: null };
  for (const clause of clausesOf(content)) {
    context.lastNamed = leadingName(clause.text) ?? context.lastNamed;
    if (clause.question) continue;
    context.clauseSubject = null;
    for (const { pattern, match } of matchesIn(clause)) {
      const fact = readFact(pattern, match, clause.text, context);
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
  for (const pattern of FACT_PATTERNS) {
    const match = pattern.regex.exec(clause.text);
    if (match) found.push({ pattern, match });
  }
  return found.sort((a, b) => a.match.index - b.match.index);
}

/** The part of a clause one fact is said in: from the last "and" or comma before it. */
function conjunct(text: string, start: number, end: number): string {
  const from = Math.max(text.lastIndexOf(' and ', start), text.lastIndexOf(', ', start), 0);
  const next = [text.indexOf(' and ', end), text.indexOf(', ', end)].filter((i) => i >= 0);
  return text.slice(from, next.length > 0 ? Math.min(...next) : text.length);
}

function readFact(
  pattern: FactPattern,
  match: RegExpExecArray,
  text: string,
  context: SubjectContext,
): Fact | null {
  const before = text.slice(0, match.index);
  if (pattern.tense === 'future' || isHypothetical(before)) return null;
  const groups = match.groups ?? {};
  const end = match.index + match[0].length;
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
    negated: reading.negated || pattern.negates === true || ended,
    change: pattern.change === true || ended || hasChangeCue(conjunct(text, match.index, end)),
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
      return { ...fact, value: `${status}|${valueKey(raw || partner)}` };
    }
    case 'attribute':
    case 'favourite':
      return attributeFact(fact, groups);
    case 'any':
      return endedFact(fact, raw);
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
  return { ...fact, negated: true };
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
