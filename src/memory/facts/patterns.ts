// The kinds of fact the judge reads, one pattern each way a fact is commonly said. Every
// pattern is in lower case and matched against a clause with its ASCII letters lowered (a
// case-blind flag multiplies what recheck must prove, and costs the same at run time); every
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
  /**
   * The text after the match is what ended ("moved from Boston to Denver"), not the value.
   * Otherwise the text after the match, up to a comma, a colon or a bracket, is the value:
   * it is cut in code, which keeps each pattern a short run of words recheck proves linear.
   */
  from?: boolean;
}

export const FACT_PATTERNS: readonly FactPattern[] = [
  // Where someone lives.
  {
    kind: 'residence',
    regex: /\b(?:lives|live|living|resides|reside|residing|based) (?:in|at) /,
    stative: true,
  },
  {
    kind: 'residence',
    regex:
      /\b(?:moved|moves|move|relocated|relocates|relocate|settled) (?:back |over |out |down |up )?(?:to|in) /,
    change: true,
  },
  {
    kind: 'residence',
    regex: /\b(?:moved|relocated) (?:away )?from /,
    change: true,
    from: true,
  },
  {
    kind: 'residence',
    regex: /\b(?:moving|relocating) (?:back |over |out )?to /,
    tense: 'future',
  },
  {
    kind: 'residence',
    regex: /\b(?:lived|grew up) (?:in|at) /,
    tense: 'past',
  },
  // Where someone works, and as what.
  {
    kind: 'employer',
    regex: /\b(?:works|work|working|employed) (?:at|for|by) /,
    stative: true,
  },
  { kind: 'employer', regex: /\bworked (?:at|for) /, tense: 'past' },
  { kind: 'employer', regex: /\b(?:joined|joins|join) /, change: true, proper: true },
  {
    kind: 'employer',
    regex:
      /\b(?:got|landed|found|started|starts|accepted|took|began|begins|has|have) (?:a |an |the |her |his |my |their )?(?:new |first |dream |full-time |part-time )?(?:job|position|role|internship) (?:at|with) /,
  },
  { kind: 'employer', regex: /\bhired (?:at|by) /, change: true },
  {
    kind: 'employer',
    regex: /\b(?:resigned|retired|stepped down|laid off|fired|let go) (?:from|by) /,
    change: true,
    negates: true,
  },
  { kind: 'role', regex: /\b(?:works|work|working) as (?:an? |the )?/ },
  { kind: 'role', regex: /\bworked as (?:an? |the )?/, tense: 'past' },
  {
    kind: 'role',
    regex: /\b(?:became|becomes|become) (?:an? |the )/,
    change: true,
    roles: true,
  },
  {
    kind: 'role',
    regex: /\bpromoted to (?:an? |the )?/,
    change: true,
    roles: true,
  },
  {
    kind: 'role',
    regex:
      /\b(?:is|am|are|was) (?:now |still |currently |also |a full-time |a part-time )?(?:an? )/,
    roles: true,
    stative: true,
  },
  // What someone likes, eats, drives.
  {
    kind: 'likes',
    regex: /\b(?:likes|like|loves|love|enjoys|enjoy|adores|adore|plays|play|into|fan of) /,
    multi: true,
    stative: true,
  },
  {
    kind: 'likes',
    regex: /\b(?:liked|loved|enjoyed|played) /,
    multi: true,
    tense: 'past',
  },
  // A preference is one of a slot: "prefers the aisle seat" replaces "prefers the window seat".
  { kind: 'prefers', regex: /\b(?:prefers|prefer) /, stative: true },
  { kind: 'prefers', regex: /\bpreferred /, tense: 'past' },
  {
    kind: 'likes',
    regex:
      /\b(?:hates|hate|dislikes|dislike|detests|detest|can't stand|cannot stand|sick of|tired of) /,
    multi: true,
    negates: true,
  },
  {
    kind: 'any',
    regex: /\b(?:stopped|stops|quit|quits|left|gave up|gives up|went off|dropped|ditched) /,
    change: true,
    negates: true,
  },
  {
    kind: 'any',
    regex: /\b(?:switched|changed|moved|went|converted) from /,
    change: true,
    from: true,
  },
  {
    kind: 'diet',
    regex:
      /\b(?:is|am|are|eats) (?<neg>no longer |not |never )?(?:a |fully |now |strictly |completely )?(?<v>vegetarian|vegan|pescatarian|keto|paleo|gluten-free|carnivore)\b/,
    stative: true,
  },
  {
    kind: 'diet',
    regex:
      /\b(?:went|became|become|turned|gone|switched to) (?:a |fully |strictly |completely )?(?<v>vegetarian|vegan|pescatarian|keto|paleo|gluten-free|carnivore)\b/,
    change: true,
  },
  {
    kind: 'car',
    regex: /\b(?:drives|drive|driving|owns|own) (?:an? |the |her |his |my |their )/,
    proper: true,
    stative: true,
  },
  // Counts: children, pets, siblings.
  {
    kind: 'count',
    regex:
      /\b(?:has|have|had|got|adopted|owns|own|with) (?<n>\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|no) (?:(?:young|little|small|grown|adult|wonderful|lovely|beautiful|new|rescue|grown-up|older|younger) )?(?<noun>children|child|kids|kid|sons|son|daughters|daughter|dogs|dog|cats|cat|pets|pet|sisters|sister|brothers|brother|siblings|grandchildren|grandchild|grandkids|horses|horse|rabbits|rabbit|birds|bird|hamsters|hamster|roommates|roommate)\b/,
  },
  {
    kind: 'count',
    regex:
      /\b(?:mother|father|mom|mum|dad|parent) of (?<n>\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)(?<noun>)\b/,
  },
  // Age.
  {
    kind: 'age',
    regex:
      /\b(?<aux>is|am|are|was|turned|turns|turning) (?<n>\d{1,3})(?: years?(?: old)?\b| yo\b|$)/,
  },
  // Birth.
  { kind: 'born', regex: /\bborn (?:on|in) / },
  // Relationships.
  {
    kind: 'relationship',
    regex: /\b(?<status>married|engaged|divorced|separated|widowed)/u,
    stative: true,
  },
  {
    kind: 'relationship',
    regex: /\b(?:dating|seeing|going out with|in a relationship with) /u,
    status: 'dating',
    stative: true,
  },
  {
    kind: 'relationship',
    regex: /\b(?:broke up|split up|splits up|breaks up) with /u,
    status: 'single',
    change: true,
  },
  {
    kind: 'relationship',
    regex: /\b(?:is|am|are) (?:now |still |happily )?single\b/,
    status: 'single',
  },
  // Possessed attributes ("my phone number is") are read word by word: see attributes.ts.
];
