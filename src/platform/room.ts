// How much room a table taken whole from a sidecar is given for what comes after it.

/**
 * Room for `count` rows and an eighth more (at least 1,024), for columns filled whole at a start
 * (the word index's, the memory table's): the saves after it then add to them instead of
 * copying every column at twice its size, which held the old and the new at once (at 100,000
 * memories 13 MB more, the peak of a next start's RSS). Room not yet written to is not resident.
 */
export const withRoom = (count: number): number => count + Math.max(1024, count >> 3);
