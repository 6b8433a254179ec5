// A reporter for node's test runner that writes, once the run is over, one block a failed test:
// its file and line, its name with the suites it sits in, and the first lines of its error.
// scripts/test.ts gives it a file of its own and prints that file after the runner's summary,
// so the end of a long CI log, which is often all a reader gets, names what failed.
// Plain JavaScript: the runner loads it as it is, without tsx.

const ERROR_LINES = 12;

/** @param {AsyncIterable<{ type: string, data: any }>} source */
export default async function* failures(source) {
  /** @type {string[]} the names of the tests that have started and not yet ended, by nesting */
  const open = [];
  /** @type {string[]} */
  const blocks = [];
  for await (const event of source) {
    if (event.type === 'test:start') open[event.data.nesting] = event.data.name;
    if (event.type !== 'test:fail') continue;
    const { name, nesting, file, line, details } = event.data;
    const error = details?.error;
    // A suite fails when a test in it does; the test is the one worth naming.
    if (error?.failureType === 'subtestsFailed') continue;
    const path = [...open.slice(0, nesting), name].join(' > ');
    const cause = error?.cause ?? error;
    const message = String(cause?.stack ?? cause?.message ?? cause ?? 'no error given')
      .split('\n')
      .slice(0, ERROR_LINES)
      .map((text) => `#     ${text}`)
      .join('\n');
    blocks.push(`# ${file ?? 'unknown file'}${line ? `:${line}` : ''}\n#   ${path}\n${message}\n`);
  }
  if (blocks.length > 0) {
    yield `# failed tests (${blocks.length}), as reported above:\n${blocks.join('')}`;
  }
}
