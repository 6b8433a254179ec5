// Time in a search: a query that names a time ("last summer", "in May 2023") lifts the memories
// of that time; one that asks "when" lifts the memories that say a date. With time_filter, only
// the memories saved in that time are kept.

import type { Dynamics } from '../search/lexical-index.js';
import type { RowFacts } from '../search/rank-facts.js';
import {
  parseTime,
  statedTimes,
  type TimeQuery,
  type TimeRange,
  within,
} from '../search/time-query.js';
import type { MemoryRecord } from '../storage/records.js';

/** For a memory of the time the query names: saved then, or saying a date then. */
export const RANGE_LIFT = 0.5;
/** For a memory that says a date, when the query asks "when". */
export const WHEN_LIFT = 0.2;
/** The most a time lifts a memory: a memory far down by its words stays down. */
export const MAX_TIME_LIFT = 1 + RANGE_LIFT + WHEN_LIFT;

/** The time a query names, or null when it names none and does not ask "when". */
export function timeOf(query: string, now: number): TimeQuery | null {
  if (!query) return null;
  const time = parseTime(query, now);
  return time.ranges.length > 0 || time.asksWhen ? time : null;
}

const overlaps = (a: TimeRange, b: TimeRange) => a.from < b.to && b.from < a.to;

/** How much a memory is lifted for `time`: 1 when not at all. */
export function timeLift(record: MemoryRecord, time: TimeQuery): number {
  let lift = 1;
  const savedThen = time.ranges.some((range) => within(range, record.created_at));
  // Dates the content says, "yesterday" read at the day it was saved.
  const stated = savedThen && !time.asksWhen ? [] : statedTimes(record.content, record.created_at);
  if (savedThen || stated.some((s) => time.ranges.some((range) => overlaps(s, range)))) {
    lift += RANGE_LIFT;
  }
  if (time.asksWhen && stated.length > 0) lift += WHEN_LIFT;
  return lift;
}

/**
 * `timeLift` from a row's facts, without its record; undefined when the dates its content says
 * are needed: the days they span cross the edge of a range the query names (neither apart from
 * every range nor inside one), and being saved then does not settle it. Read the record.
 */
export function timeLiftOf(facts: RowFacts, time: TimeQuery): number | undefined {
  const savedThen = time.ranges.some((range) => within(range, facts.createdAt));
  if (savedThen && !time.asksWhen) return 1 + RANGE_LIFT;
  const said = facts.said;
  let inRange = savedThen;
  if (!inRange && said) {
    let unsure = false;
    for (const range of time.ranges) {
      // Every time said is inside the span: inside a range, each overlaps it; apart, none does.
      if (range.from <= said.from && said.to <= range.to) inRange = true;
      else if (said.from < range.to && range.from < said.to) unsure = true;
    }
    if (!inRange && unsure) return undefined;
  }
  let lift = 1;
  if (inRange) lift += RANGE_LIFT;
  if (time.asksWhen && said) lift += WHEN_LIFT;
  return lift;
}

/**
 * A decay score that keeps only the memories saved in one of `ranges`: the others score
 * -Infinity, below any minimum score.
 */
export function scoreWithin(
  ranges: readonly TimeRange[],
  score: (memory: Dynamics) => number,
): (memory: Dynamics) => number {
  return (memory) =>
    ranges.some((range) => within(range, memory.created_at))
      ? score(memory)
      : Number.NEGATIVE_INFINITY;
}
