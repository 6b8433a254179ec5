// How big V8 lets a server's heap grow, set as the server starts, before its store loads.
//
// A small store on a data dir (the young generation). It stays at its first size (1 MB a
// semi-space) instead of doubling up to 16 MB a semi-space while the store loads, as
// `--max-semi-space-size=1` on node's command line would do (of the semi-space flags, the growth
// factor is the one V8 still reads once the heap is made). At 100,000 memories, started from the
// sidecar, that is 10-20 MB of peak resident memory less (issue 24: about 160 MB, target 150 MB).
// A load that parses the whole log goes the other way: its short-lived objects, promoted early out
// of a small young generation, pile up in the old one (at 100,000 memories without a sidecar the
// peak grew by about 35 MB, at 1,000,000 with one by about 180 MB). So it is set only when a
// sidecar is there and the log is at most SMALL_LOG_BYTES. Whoever gives node a semi-space setting
// themselves (NODE_OPTIONS, node's command line) keeps theirs.
//
// A replica on PostgreSQL (the old generation). It holds the namespaces it serves within
// MNEMO_CACHE_MB, but V8 lets the old generation grow, between two full collections, to up to a
// few times what survived the last one, and many clients' calls fill that room with garbage the
// budget does not count. With the old generation allowed HEAP_GROWING_PERCENT more than what
// survived, a replica's peak RSS in `npm run bench:shared -- --tenants` (64 clients over 200
// namespaces, MNEMO_CACHE_MB=512) was 537-541 MB instead of 700-723 MB, and its calls a second
// did not drop (693 against 583 in the same hour; 25 percent gave 465-478 MB and 575 calls a
// second). Whoever gives node `--heap-growing-percent` themselves keeps theirs.
import fs from 'node:fs';
import v8 from 'node:v8';

/** The V8 flag that keeps the young generation at its first size. */
export const YOUNG_HEAP_FLAG = '--semi-space-growth-factor=1';

/** Up to this size of memories.jsonl (about 200,000 memories of conversation text). */
export const SMALL_LOG_BYTES = 128 * 1024 * 1024;

/** Whether node was told a semi-space setting already (NODE_OPTIONS or its own arguments). */
export function semiSpaceGiven(
  execArgv: readonly string[],
  nodeOptions: string | undefined,
): boolean {
  const given = [...execArgv, ...(nodeOptions ?? '').split(' ')];
  return given.some((arg) => arg.replaceAll('_', '-').includes('semi-space'));
}

/**
 * Keeps the young generation small when the store is (its log at most SMALL_LOG_BYTES) and starts
 * from its sidecar, and node was given no semi-space setting; true when it did.
 */
export function keepYoungHeapSmall(
  store: { log: string; sidecar: string },
  node: { execArgv: readonly string[]; nodeOptions: string | undefined },
): boolean {
  if (semiSpaceGiven(node.execArgv, node.nodeOptions)) return false;
  try {
    const log = fs.statSync(store.log, { throwIfNoEntry: false });
    const sidecar = fs.statSync(store.sidecar, { throwIfNoEntry: false });
    if (!log || !sidecar || log.size > SMALL_LOG_BYTES) return false;
  } catch {
    // A folder that cannot be read: the store says so, with the fix; nothing to size here.
    return false;
  }
  v8.setFlagsFromString(YOUNG_HEAP_FLAG);
  return true;
}

/** How much more than what survived the last full collection V8 lets the old generation grow. */
export const HEAP_GROWING_PERCENT = 50;

/** The V8 flag that keeps the old generation near what is live. */
export const OLD_HEAP_FLAG = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;

/** Whether node was told how its heap grows already (its own arguments; NODE_OPTIONS cannot). */
export function heapGrowingGiven(execArgv: readonly string[]): boolean {
  return execArgv.some((arg) => arg.replaceAll('_', '-').includes('heap-growing-percent'));
}

/**
 * Keeps the old generation of a replica on PostgreSQL near what it holds, unless node was given
 * a setting of its own; true when it did.
 */
export function keepOldHeapNearLive(node: { execArgv: readonly string[] }): boolean {
  if (heapGrowingGiven(node.execArgv)) return false;
  v8.setFlagsFromString(OLD_HEAP_FLAG);
  return true;
}

/**
 * Sizes the heap of a server (`mnemo serve`, `mnemo stdio`) before its store loads: the old
 * generation of a replica on PostgreSQL (`databaseUrl`), else the young generation of a small
 * store. Answers which it set, if any.
 */
export function sizeHeap(
  store: { databaseUrl: string | undefined; log: string; sidecar: string },
  node: { execArgv: readonly string[]; nodeOptions: string | undefined },
): 'old' | 'young' | undefined {
  if (store.databaseUrl) return keepOldHeapNearLive(node) ? 'old' : undefined;
  return keepYoungHeapSmall(store, node) ? 'young' : undefined;
}
