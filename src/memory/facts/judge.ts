// Whether a new memory changes a fact an older one states. Pure and offline: text in, verdicts
// out, no clock, no store, no network. The save path (src/memory/writing.ts) finds the
// candidates (live memories of the same namespace that share the new one's words) and acts on
// the verdicts: a supersession links the two and hides the older one from search; a conflict
// goes to the review queue for a person to settle.

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

export type FactJudge = (
  statement: FactStatement,
  candidates: readonly FactCandidate[],
) => FactVerdict[];

/** The judge until one is built: every candidate unrelated. */
export const judgeFacts: FactJudge = () => [];
