// Whether a new memory changes a fact an older one states. Pure and offline: text in, verdicts
// out, no clock, no store, no network. The save path (src/memory/writing.ts) finds the
// candidates (live memories of the same namespace that share the new one's words) and acts on
// the verdicts: a supersession links the two and hides the older one from search; a conflict
// goes to the review queue for a person to settle.
//
// The judge reads each text as facts (extract.ts: subject, kind, value, negation, change) and
// relates them pairwise (compare.ts). It leans to not hiding: a supersession needs the same
// subject, the same kind, a newer save and a stated change, and must cover every fact the
// older memory states; anything less certain is a conflict or nothing.

import { type Relation, relate } from './compare.js';
import { type Fact, factsOf } from './extract.js';

/** A live memory the new one may change. */
export interface FactCandidate {
  id: string;
  content: string;
  /** When it was saved, unix seconds. */
  createdAt: number;
  /** Cosine of its embedding with the new memory's, when embeddings are on. */
  similarity?: number | undefined;
}

/** The new memory being saved. */
export interface FactStatement {
  content: string;
  /** When it is saved, unix seconds. */
  createdAt: number;
}

/**
 * `supersedes`: the new memory states a newer value of the same fact of the same subject (the
 * candidate should stop ranking). `conflicts`: the two seem to contradict, but not clearly as an
 * update (a person settles it). A candidate with no verdict is unrelated, or a restatement.
 */
export interface FactVerdict {
  id: string;
  kind: 'supersedes' | 'conflicts';
}

export type FactJudge = ((
  statement: FactStatement,
  candidates: readonly FactCandidate[],
) => FactVerdict[]) & {
  /**
   * Whether a statement of `content` can get any verdict at all: false spares the save the
   * lookup of candidates (most saves state no fact the judge reads). A judge without it is
   * always handed them.
   */
  mayJudge?: (content: string) => boolean;
};

/**
 * Below this cosine the two memories are about different things in the static model's eyes:
 * a contradiction read from their words alone is not worth a person's time.
 */
export const CONFLICT_MIN_SIMILARITY = 0.2;

const RANK: Record<Relation, number> = { unrelated: 0, restates: 1, conflicts: 2, supersedes: 3 };

/** The strongest bearing of any new fact on one old fact. */
function strongest(next: readonly Fact[], old: Fact, elapsed: number): Relation {
  let best: Relation = 'unrelated';
  for (const fact of next) {
    const relation = relate(fact, old, elapsed);
    if (RANK[relation] > RANK[best]) best = relation;
  }
  return best;
}

function verdictFor(
  next: readonly Fact[],
  statement: FactStatement,
  candidate: FactCandidate,
): FactVerdict['kind'] | null {
  const elapsed = statement.createdAt - candidate.createdAt;
  const relations = keptFacts(candidate.content)
    .filter((fact) => !fact.past)
    .map((fact) => strongest(next, fact, elapsed));
  if (relations.includes('supersedes')) {
    // Hiding the older memory hides all it says: only when all of it is replaced or repeated,
    // and only by a memory saved after it.
    const covered = relations.every((r) => r === 'supersedes' || r === 'restates');
    if (covered && elapsed >= 0) return 'supersedes';
  } else if (!relations.includes('conflicts')) {
    return null;
  }
  const similar = candidate.similarity;
  if (typeof similar === 'number' && similar < CONFLICT_MIN_SIMILARITY) return null;
  return 'conflicts';
}

/** How many candidates' facts are kept: the same memories are candidates of save after save. */
const CANDIDATE_FACTS_KEPT = 1024;
const candidateFacts = new Map<string, Fact[]>();
/** The statement read last: `mayJudge` reads it, then the judge of the same save. */
let lastStatement: { content: string; facts: Fact[] } | undefined;

/** factsOf `content`, kept (it is pure): the facts are only read. */
export function statementFacts(content: string): Fact[] {
  if (lastStatement?.content !== content) lastStatement = { content, facts: factsOf(content) };
  return lastStatement.facts;
}

function keptFacts(content: string): Fact[] {
  let facts = candidateFacts.get(content);
  if (facts === undefined) {
    facts = factsOf(content);
    // The oldest one out (a Map keeps the order of insertion).
    if (candidateFacts.size >= CANDIDATE_FACTS_KEPT) {
      candidateFacts.delete(candidateFacts.keys().next().value as string);
    }
    candidateFacts.set(content, facts);
  }
  return facts;
}

/** The judge: for each candidate, whether the statement supersedes it, conflicts with it, or neither. */
function judge(statement: FactStatement, candidates: readonly FactCandidate[]): FactVerdict[] {
  const next = statementFacts(statement.content);
  if (next.length === 0) return [];
  const verdicts: FactVerdict[] = [];
  const seen = new Set<string>();
  for (const candidate of candidates) {
    if (seen.has(candidate.id)) continue;
    seen.add(candidate.id);
    const kind = verdictFor(next, statement, candidate);
    if (kind) verdicts.push({ id: candidate.id, kind });
  }
  return verdicts;
}

/** The offline judge: no verdict without a fact read in the new memory, whatever the candidates. */
export const judgeFacts: FactJudge = Object.assign(judge, {
  mayJudge: (content: string) => statementFacts(content).length > 0,
});
