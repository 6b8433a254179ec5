// The size of V8's young generation for a server on a small store. Called as the server starts,
// before the store loads: the young generation then stays at its first size (1 MB a semi-space)
// instead of doubling up to 16 MB a semi-space while the store loads, as `--max-semi-space-size=1`
// on node's command line would do (the growth factor is the one such flag V8 still reads once
// the heap is made). At 100,000 memories, started from the sidecar, that is 10-20 MB of peak
// resident memory less (issue 24: about 160 MB, target 150 MB). A load that parses the whole log
// goes the other way: its short-lived objects, promoted early out of a small young generation,
// pile up in the old one (at 100,000 memories without a sidecar the peak grew by about 35 MB, at
// 1,000,000 with one by about 180 MB). So it is set only when a sidecar is there and the log is at
// most SMALL_LOG_BYTES. Whoever gives node a semi-space setting themselves (NODE_OPTIONS, node's
// command line) keeps theirs.
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
