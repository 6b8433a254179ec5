// node's arguments that run a test's own TypeScript script (a child process, an upstream
// fixture): its compiled JavaScript when the tests run from npm test's mirror, where esbuild put it
// beside the source, else the source through tsx's loader (about 1.5 s of CPU a start more).
import fs from 'node:fs';

/** Whether this module runs compiled (npm test's mirror) rather than through tsx. */
const COMPILED = import.meta.url.endsWith('.js');

/** The arguments before the script's own for `node`: [script] or ['--import', 'tsx', script]. */
export function nodeScript(file: string): string[] {
  const compiled = file.replace(/\.ts$/, '.js');
  if (COMPILED && compiled !== file && fs.existsSync(compiled)) return [compiled];
  return ['--import', 'tsx', file];
}
