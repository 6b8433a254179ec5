// A document's entry in one term's postings, in ordinal order (term-postings.ts), found by
// halving instead of walking them: in the frozen base (ordinals and tfs side by side) or in a
// term's loose list (flat [ordinal, tf, ordinal, tf, ...] pairs).

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

/** The tf of `ordinal` among `ordinals[from, end)` (its tf at the same place of `tfs`), or 0. */
export function tfAmong(
  ordinals: Int32Array,
  tfs: Uint16Array,
  from: number,
  end: number,
  ordinal: number,
): number {
  let lo = from;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((ordinals[mid] as number) < ordinal) lo = mid + 1;
    else hi = mid;
  }
  return lo < end && ordinals[lo] === ordinal ? (tfs[lo] as number) : 0;
}

/**
 * The place of the first of `ordinals[from, end)` at or after `ordinal` (`end` if none), found by
 * galloping from `from`: for ordinals asked in rising order each search starts where the last
 * one ended and reads the few nearby cache lines, not the whole list's halving points.
 */
export function gallopTo(ordinals: Int32Array, from: number, end: number, ordinal: number): number {
  let lo = from;
  let step = 1;
  let hi = from;
  while (hi < end && (ordinals[hi] as number) < ordinal) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  if (hi > end) hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((ordinals[mid] as number) < ordinal) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
