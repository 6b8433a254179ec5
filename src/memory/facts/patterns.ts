// The kinds of fact the judge reads, one pattern each way a fact is commonly said. Every
// pattern is matched against one clause (at most MAX_FACT_TEXT characters), its value is a
// bounded run that starts at a non-space, and no quantifier is nested over the same
// characters, so each match is linear in the clause (test/security/regex-linear.test.ts).

export interface FactPattern {
  /**
   * The kind of fact. `attribute` takes it from the match (`my phone number is` is
   * attr:phone number), `count` from the counted noun, `relationship` reads a status.
   * `any` ends a value of whatever kind ("left Google", "switched from coffee").
   */
  kind: string;
  regex: RegExp;
  /** A history ("lived in"), or a plan ("is moving to"): neither states the present. */
  tense?: 'past' | 'future';
  /** The verb itself says the value is new ("moved to", "joined"). */
  change?: boolean;
  /** The verb says the value no longer holds ("quit", "hates" for a liking). */
  negates?: boolean;
  /** A subject holds many values at once: liking tea does not undo liking coffee. */
  multi?: boolean;
  /** The value must start with a capital: "joined Stripe", not "joined a book club". */
  proper?: boolean;
  /** The value's last word must be an occupation ("is a nurse", not "is a fan"). */
  roles?: boolean;
  /** "was" before the verb makes it a history ("was based in Paris"). */
  stative?: boolean;
  /** The relationship status it states. */
  status?: string;
}

export const FACT_PATTERNS: readonly FactPattern[] = [
  // Where someone lives.
  {
    kind: 'residence',
    regex:
      /\b(?:lives|live|living|resides|reside|residing|based) (?:in|at) (?<v>\S[^,;:()"]{0,60})/i,
    stative: true,
  },
  {
    kind: 'residence',
    regex:
      /\b(?:moved|moves|move|relocated|relocates|relocate|settled) (?:back |over |out |down |up )?(?:to|in) (?<v>\S[^,;:()"]{0,60})/i,
    change: true,
  },
  {
    kind: 'residence',
    regex:
      /\b(?:moved|relocated) (?:away )?from (?<from>\S[^,;:()"]{0,40}?) to (?<v>\S[^,;:()"]{0,60})/i,
    change: true,
  },
  {
    kind: 'residence',
    regex: /\b(?:moving|relocating) (?:back |over |out )?to (?<v>\S[^,;:()"]{0,60})/i,
    tense: 'future',
  },
  {
    kind: 'residence',
    regex: /\b(?:lived|grew up) (?:in|at) (?<v>\S[^,;:()"]{0,60})/i,
    tense: 'past',
  },
  // Where someone works, and as what.
  {
    kind: 'employer',
    regex: /\b(?:works|work|working|employed) (?:at|for|by) (?<v>\S[^,;:()"]{0,60})/i,
    stative: true,
  },
  { kind: 'employer', regex: /\bworked (?:at|for) (?<v>\S[^,;:()"]{0,60})/i, tense: 'past' },
  { kind: 'employer', regex: /\b(?:joined|joins|join) (?<v>\p{Lu}[^,;:()"]{0,60})/u, change: true },
  {
    kind: 'employer',
    regex:
      /\b(?:got|landed|found|started|starts|accepted|took|began|begins|has|have) (?:a |an |the |her |his |my |their )?(?:new |first |dream |full-time |part-time )?(?:job|position|role|internship) (?:at|with) (?<v>\S[^,;:()"]{0,60})/i,
  },
  { kind: 'employer', regex: /\bhired (?:at|by) (?<v>\S[^,;:()"]{0,60})/i, change: true },
  {
    kind: 'employer',
    regex:
      /\b(?:resigned|retired|stepped down|laid off|fired|let go) (?:from|by) (?<v>\S[^,;:()"]{0,60})/i,
    change: true,
    negates: true,
  },
  { kind: 'role', regex: /\b(?:works|work|working) as (?:an? |the )?(?<v>\S[^,;:()"]{0,60})/i },
  { kind: 'role', regex: /\bworked as (?:an? |the )?(?<v>\S[^,;:()"]{0,60})/i, tense: 'past' },
  {
    kind: 'role',
    regex: /\b(?:became|becomes|become) (?:an? |the )(?<v>\S[^,;:()"]{0,60})/i,
    change: true,
    roles: true,
  },
  {
    kind: 'role',
    regex: /\bpromoted to (?:an? |the )?(?<v>\S[^,;:()"]{0,60})/i,
    change: true,
    roles: true,
  },
  {
    kind: 'role',
    regex:
      /\b(?:is|am|are|was) (?:now |still |currently |also |a full-time |a part-time )?(?:an? )(?<v>\S[^,;:()"]{0,60})/i,
    roles: true,
    stative: true,
  },
  // What someone likes, eats, drives.
  {
    kind: 'likes',
    regex:
      /\b(?:likes|like|loves|love|enjoys|enjoy|adores|adore|plays|play|into|fan of) (?<v>\S[^,;:()"]{0,60})/i,
    multi: true,
    stative: true,
  },
  {
    kind: 'likes',
    regex: /\b(?:liked|loved|enjoyed|played) (?<v>\S[^,;:()"]{0,60})/i,
    multi: true,
    tense: 'past',
  },
  // A preference is one of a slot: "prefers the aisle seat" replaces "prefers the window seat".
  { kind: 'prefers', regex: /\b(?:prefers|prefer) (?<v>\S[^,;:()"]{0,60})/i, stative: true },
  { kind: 'prefers', regex: /\bpreferred (?<v>\S[^,;:()"]{0,60})/i, tense: 'past' },
  {
    kind: 'likes',
    regex:
      /\b(?:hates|hate|dislikes|dislike|detests|detest|can't stand|cannot stand|sick of|tired of) (?<v>\S[^,;:()"]{0,60})/i,
    multi: true,
    negates: true,
  },
  {
    kind: 'any',
    regex:
      /\b(?:stopped|stops|quit|quits|left|gave up|gives up|went off|dropped|ditched) (?<v>\S[^,;:()"]{0,60})/i,
    change: true,
    negates: true,
  },
  {
    kind: 'any',
    regex:
      /\b(?:switched|changed|moved|went|converted) from (?<from>\S[^,;:()"]{0,40}?) to (?<v>\S[^,;:()"]{0,60})/i,
    change: true,
  },
  {
    kind: 'diet',
    regex:
      /\b(?:is|am|are|went|became|turned|gone|eats) (?:a |fully |now |strictly |completely )?(?<v>vegetarian|vegan|pescatarian|keto|paleo|gluten-free|carnivore)\b/i,
    stative: true,
  },
  {
    kind: 'car',
    regex:
      /\b(?:drives|drive|driving|owns|own) (?:an? |the |her |his |my |their )(?<v>\S[^,;:()"]{0,60})/i,
    proper: true,
    stative: true,
  },
  // Counts: children, pets, siblings.
  {
    kind: 'count',
    regex:
      /\b(?:has|have|had|got|adopted|owns|own|with) (?<n>\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|no) (?:(?:young|little|small|grown|adult|wonderful|lovely|beautiful|new|rescue|grown-up|older|younger) )?(?<noun>children|child|kids|kid|sons|son|daughters|daughter|dogs|dog|cats|cat|pets|pet|sisters|sister|brothers|brother|siblings|grandchildren|grandchild|grandkids|horses|horse|rabbits|rabbit|birds|bird|hamsters|hamster|roommates|roommate)\b/i,
  },
  {
    kind: 'count',
    regex:
      /\b(?:mother|father|mom|mum|dad|parent) of (?<n>\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)(?<noun>)\b/i,
  },
  // Age.
  {
    kind: 'age',
    regex:
      /\b(?<aux>is|am|are|was|turned|turns|turning) (?<n>\d{1,3})(?: years?(?: old)?\b| yo\b|$)/i,
  },
  // Birth.
  { kind: 'born', regex: /\bborn (?:on|in) (?<v>\S[^,;:()"]{0,60})/i },
  // Relationships.
  {
    kind: 'relationship',
    regex:
      /\b(?<status>married|engaged|divorced|separated|widowed)(?: (?:to |from )?(?<v>\p{Lu}[\p{L}'-]{0,30}))?/u,
    stative: true,
  },
  {
    kind: 'relationship',
    regex: /\b(?:dating|seeing|going out with|in a relationship with) (?<v>\p{Lu}[\p{L}'-]{0,30})/u,
    status: 'dating',
    stative: true,
  },
  {
    kind: 'relationship',
    regex: /\b(?:broke up|split up|splits up|breaks up) with (?<v>\p{Lu}[\p{L}'-]{0,30})/u,
    status: 'single',
    change: true,
  },
  {
    kind: 'relationship',
    regex: /\b(?:is|am|are) (?:now |still |happily )?single\b/,
    status: 'single',
  },
  // Possessed attributes: "my phone number is", "Caroline's favourite colour is", "my dog is
  // called Rex", "our meeting was moved to Friday".
  {
    kind: 'attribute',
    regex:
      /(?<owner>\b[Mm]y|\b[Oo]ur|\b[Hh]is|\b[Hh]er|\b[Tt]heir|\b[Tt]he user's|\b[Uu]ser's|\p{Lu}[\p{L}-]{0,30}'s) (?<qual>(?:new|current|old|former|previous|latest|updated|real|actual|official) )?(?<attr>(?:[\p{L}-]{1,20} ){0,2}[\p{L}-]{1,20}) (?<verb>is|are|was|has changed to|changed to|is now|is still) (?:now |still |also )?(?<called>called |named |on |at )?(?<v>\S[^,;:()"]{0,60})/u,
  },
  {
    kind: 'attribute',
    regex:
      /(?<owner>\b[Mm]y|\b[Oo]ur|\b[Hh]is|\b[Hh]er|\b[Tt]heir|\p{Lu}[\p{L}-]{0,30}'s) (?<qual>(?:new|current|old|former|previous) )?(?<attr>(?:[\p{L}-]{1,20} ){0,2}[\p{L}-]{1,20}) (?<called>called|named) (?<v>\S[^,;:()"]{0,60})/u,
  },
  {
    kind: 'attribute',
    regex:
      /(?<owner>\b[Mm]y|\b[Oo]ur|\b[Hh]is|\b[Hh]er|\b[Tt]heir|\b[Tt]he|\p{Lu}[\p{L}-]{0,30}'s) (?<attr>(?:[\p{L}-]{1,20} )?(?:appointment|meeting|flight|wedding|interview|deadline|party|exam|surgery|dinner|call|trip|reservation|class|session|visit|checkup|check-up|concert|recital|lesson)) (?:is |was |has been |got )?(?:moved|rescheduled|pushed back|pushed|postponed|changed|bumped|delayed|shifted|brought forward) (?:to|until|till) (?<v>\S[^,;:()"]{0,60})/u,
    change: true,
  },
  {
    kind: 'favourite',
    regex:
      /^(?<v>\S[^,;:()"]{0,40}) (?:is|are) (?<owner>[Mm]y|[Oo]ur|[Hh]is|[Hh]er|[Tt]heir|\p{Lu}[\p{L}-]{0,30}'s) (?<qual>(?:new|current|all-time) )?(?<attr>favou?rite [\p{L}-]{1,20})/u,
  },
];
