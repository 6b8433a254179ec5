// node --import tsx bench/tables.ts FILE.json
// The stores part's Markdown (what docs/benchmarks.md's bench:stores regions hold) made again from the
// --json file of a run, without running anything.
import fs from 'node:fs';
import { type Machine, storesMarkdown } from './lib/report.js';
import type { ServerResult } from './lib/stores-bench.js';

const file = process.argv[2];
if (!file) throw new Error('give the --json file of a run, e.g. bench/tables.ts /tmp/bench.json');
const run = JSON.parse(fs.readFileSync(file, 'utf8')) as {
  machine: Machine;
  text?: string;
  loadAverage?: { start: string; stores?: string; end: string };
  results: ServerResult[];
};
if (!run.results?.[0]?.floor) {
  throw new Error(`${file} is not from the issue 24 bench (no floor in its results): run it again`);
}
const load = run.loadAverage ?? { start: 'unknown', end: 'unknown' };
console.log(
  storesMarkdown({
    machine: run.machine,
    text: run.text ?? 'locomo',
    load: { start: load.start, end: load.stores || load.end },
    results: run.results,
  }),
);
