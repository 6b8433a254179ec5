// Imported first by src/cli.ts, so that it runs before the rest of the program is evaluated: the
// young generation of V8's heap stays at its first size (1 MB a semi-space) instead of doubling up
// to 16 MB a semi-space while a large store loads. At 100,000 memories that is about 25 MB of peak
// resident memory less (issue 24: 175 MB, target 150 MB), as `--max-semi-space-size=1` on node's
// command line would do; the growth factor is the one such flag V8 still reads once the heap is
// made. Whoever sets a semi-space flag for node themselves (NODE_OPTIONS, node's command line)
// keeps theirs.
import process from 'node:process';
import v8 from 'node:v8';

/** The V8 flag that keeps the young generation at its first size. */
export const YOUNG_HEAP_FLAG = '--semi-space-growth-factor=1';

/** Whether node was told a semi-space setting already (NODE_OPTIONS or its own arguments). */
export function semiSpaceGiven(
  execArgv: readonly string[],
  nodeOptions: string | undefined,
): boolean {
  const given = [...execArgv, ...(nodeOptions ?? '').split(' ')];
  return given.some((arg) => arg.replaceAll('_', '-').includes('semi-space'));
}

if (!semiSpaceGiven(process.execArgv, process.env.NODE_OPTIONS))
  v8.setFlagsFromString(YOUNG_HEAP_FLAG);
