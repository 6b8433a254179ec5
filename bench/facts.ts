// The fact judge against bench/data/facts-eval.jsonl: precision and recall of supersession and
// of conflicts, per split and per kind, and the judge's time per call with 10 candidates.
//
//   npm run bench:facts -- [--json FILE] [--errors dev|test]
//
// Each pair is judged as a save would judge it: the new memory as the statement, its old one
// as a candidate saved `old_days_ago` days earlier, plus 9 distractors (old memories of other
// pairs, each a candidate too). Only the old one's verdict is scored; the distractors make the
// call the size a save makes it, and their verdicts are counted apart.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type FactCandidate, judgeFacts } from '../src/memory/facts/judge.js';
import { summarize } from './lib/percentile.js';
import { loadAverage, machine, machineLine } from './lib/report.js';

type Label = 'supersedes' | 'conflicts' | 'none';

interface Pair {
  old: string;
  new: string;
  old_days_ago: number;
  label: Label;
  kind: string;
  case?: string;
  split: 'dev' | 'test';
}

interface Scores {
  n: number;
  supersedes: { precision: number; recall: number; predicted: number; actual: number };
  conflicts: { precision: number; recall: number; predicted: number; actual: number };
}

const TARGETS = { supersedesPrecision: 0.95, supersedesRecall: 0.7, p50Ms: 0.5 };
const NOW = 1_700_000_000;
const DAY = 86_400;
const DISTRACTORS = 9;
const TIMING_PASSES = 5;

const here = path.dirname(fileURLToPath(import.meta.url));
const DATA = path.resolve(here, 'data/facts-eval.jsonl');

function readPairs(file: string): Pair[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Pair);
}

function candidatesFor(pairs: readonly Pair[], index: number): FactCandidate[] {
  const pair = pairs[index] as Pair;
  const candidates: FactCandidate[] = [
    { id: 'old', content: pair.old, createdAt: NOW - pair.old_days_ago * DAY },
  ];
  for (let k = 1; k <= DISTRACTORS; k += 1) {
    const other = pairs[(index + k * 37) % pairs.length] as Pair;
    candidates.push({ id: `d${k}`, content: other.old, createdAt: NOW - 100 * DAY });
  }
  return candidates;
}

function ratio(a: number, b: number): number {
  return b === 0 ? Number.NaN : a / b;
}

function score(rows: readonly { pair: Pair; verdict: Label }[]): Scores {
  const count = (label: Label) => {
    const predicted = rows.filter((r) => r.verdict === label).length;
    const actual = rows.filter((r) => r.pair.label === label).length;
    const right = rows.filter((r) => r.verdict === label && r.pair.label === label).length;
    return { precision: ratio(right, predicted), recall: ratio(right, actual), predicted, actual };
  };
  return { n: rows.length, supersedes: count('supersedes'), conflicts: count('conflicts') };
}

const f3 = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(3));

function tableRow(name: string, s: Scores): string {
  const { supersedes: sup, conflicts: con } = s;
  return `| ${name} | ${s.n} | ${f3(sup.precision)} | ${f3(sup.recall)} (${sup.actual}) | ${f3(con.precision)} | ${f3(con.recall)} (${con.actual}) |`;
}

function main(): void {
  const { values } = parseArgs({
    options: { json: { type: 'string' }, errors: { type: 'string' } },
  });
  const pairs = readPairs(DATA);
  const rows: { pair: Pair; verdict: Label }[] = [];
  let distractorVerdicts = 0;
  const times: number[] = [];
  for (let pass = 0; pass < TIMING_PASSES; pass += 1) {
    pairs.forEach((pair, index) => {
      const candidates = candidatesFor(pairs, index);
      const start = performance.now();
      const verdicts = judgeFacts({ content: pair.new, createdAt: NOW }, candidates);
      times.push(performance.now() - start);
      if (pass > 0) return;
      const own = verdicts.find((v) => v.id === 'old');
      rows.push({ pair, verdict: own?.kind ?? 'none' });
      distractorVerdicts += verdicts.filter((v) => v.id !== 'old').length;
    });
  }
  const timing = summarize(times.slice(pairs.length));
  const splits = ['dev', 'test'] as const;
  const bySplit = Object.fromEntries(
    splits.map((split) => [split, score(rows.filter((r) => r.pair.split === split))]),
  );
  const kinds = [...new Set(pairs.map((p) => p.kind))];
  const byKind = Object.fromEntries(
    kinds.map((kind) => [kind, score(rows.filter((r) => r.pair.kind === kind))]),
  );
  const out: string[] = [
    `# Fact judge on ${path.relative(process.cwd(), DATA)} (${pairs.length} pairs)`,
    '',
    '| split / kind | pairs | supersedes precision | recall (n) | conflicts precision | recall (n) |',
    '|---|---|---|---|---|---|',
    ...splits.map((split) => tableRow(`**${split}**`, bySplit[split] as Scores)),
    tableRow('test, hand-written only', score(rows.filter((r) => r.pair.case === 'hand'))),
    ...kinds.map((kind) => tableRow(kind, byKind[kind] as Scores)),
    '',
    `Time per call, ${1 + DISTRACTORS} candidates: p50 ${timing.p50.toFixed(3)} ms, p99 ${timing.p99.toFixed(3)} ms (${timing.n} calls).`,
    `Distractor candidates given a verdict: ${distractorVerdicts} of ${pairs.length * DISTRACTORS}.`,
    machineLine(machine()),
    `Load average: ${loadAverage()}`,
    '',
    'Targets:',
  ];
  const checks: [string, boolean][] = splits.flatMap((split) => {
    const s = bySplit[split] as Scores;
    const { supersedesPrecision: p, supersedesRecall: r } = TARGETS;
    return [
      [`${split} supersedes precision >= ${p}`, s.supersedes.precision >= p],
      [`${split} supersedes recall >= ${r}`, s.supersedes.recall >= r],
    ] as [string, boolean][];
  });
  checks.push([`p50 per call < ${TARGETS.p50Ms} ms`, timing.p50 < TARGETS.p50Ms]);
  for (const [label, met] of checks) out.push(`- ${met ? 'met' : 'MISSED'}: ${label}`);
  process.stdout.write(`${out.join('\n')}\n`);
  if (values.errors) {
    for (const r of rows.filter(
      (x) => x.pair.split === values.errors && x.verdict !== x.pair.label,
    )) {
      process.stdout.write(
        `${r.pair.label} got ${r.verdict} [${r.pair.kind}/${r.pair.case}] ${r.pair.old} => ${r.pair.new}\n`,
      );
    }
  }
  if (values.json) {
    const json = {
      pairs: pairs.length,
      bySplit,
      byKind,
      timing,
      distractorVerdicts,
      load: loadAverage(),
      machine: machine(),
    };
    fs.writeFileSync(values.json, `${JSON.stringify(json, null, 2)}\n`);
  }
  if (checks.some(([, met]) => !met)) process.exitCode = 1;
}

main();
