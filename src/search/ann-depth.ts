// How far the approximate index (ann-index.ts) asks its graph for candidates: the graph answers
// the nearest it finds of the candidates asked, and a search that wants every memory over a
// threshold asks again, for more, until the farthest of them are under it.

/** Candidates asked of the graph: this many times the hits wanted, and at least MIN. */
export const OVERSAMPLE = 4;
export const MIN_CANDIDATES = 64;
/** Past this many candidates (a namespace that is a sliver of the store) search is exact. */
export const MAX_CANDIDATES = 8192;
/**
 * How far under the threshold the exact cosines of the graph's farthest candidates must be before
 * asking for more candidates stops: nothing farther passes the threshold then (but a neighbour
 * the graph missed, which an approximate search may miss at any depth).
 */
export const SCORE_MARGIN = 0.02;
/**
 * The farthest candidates whose exact cosines say how far the graph has gone. Not the graph's own
 * distances: with int8 vectors they are 1 - the dot product of the int8 rows (about -15,000 for
 * a cosine of 1), on no scale a cosine can be compared with.
 */
export const TAIL = 8;
/**
 * The candidates the graph must have been asked for before its tail says where to stop: a shorter
 * list's tail is too rough (at 100,000 LoCoMo memories, 64-1,024 candidates missed hits that
 * 4,096 found: recall@10 above the threshold 0.969-0.974 against 0.976).
 */
export const TAIL_TRUSTED = 2048;

/**
 * How hard a search looks for what passes its threshold. `full` (search): the graph is asked
 * further until TAIL_TRUSTED candidates' tail is under the threshold. `first` (a save's lookups:
 * its near-duplicates, the memories its facts may change): the tail of the first candidates asked
 * is trusted. A neighbour the graph's first candidates missed is then a hint a save does not show,
 * not a search result lost; at 100,000 LoCoMo memories, asking the graph up to 2,048 candidates
 * took most of a save with the static model: a text close to none of them, 30 ms in process (p50),
 * 3.4 ms with `first`, which found 99-100% of what `full` found (docs/benchmarks.md).
 */
export type SearchDepth = 'full' | 'first';
