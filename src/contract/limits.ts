// Limits a tool's schema and guide state and the use cases keep: the contract owns the number,
// memory/ imports it (the contract sits below the use cases, never the other way).

/** Neighbours a result may ask for on each side. */
export const MAX_NEIGHBOURS = 10;
/** Characters of neighbours' content one result carries in all. */
export const NEIGHBOUR_BUDGET = 2000;
/** Earlier versions a memory keeps; past these, the oldest goes. */
export const MAX_VERSIONS = 20;
