// A document's entry in one term's postings: flat [ordinal, tf, ordinal, tf, ...] pairs in
// ordinal order (bm25.ts), found by halving instead of walking them.

/** The tf of `ordinal` among the pairs `postings[from, end)`, 0 when it is not there. */
export function tfAt(postings: Int32Array, from: number, end: number, ordinal: number): number {
  let lo = 0;
  let hi = (end - from) >> 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((postings[from + 2 * mid] as number) < ordinal) lo = mid + 1;
    else hi = mid;
  }
  const at = from + 2 * lo;
  return at < end && postings[at] === ordinal ? (postings[at + 1] as number) : 0;
}
