// The Markdown report: one table row per size and server, the machine, the targets.
import os from 'node:os';
import type { Summary } from './percentile.js';

export interface ServerResult {
  size: number;
  server: string;
  save: Summary;
  search: Summary;
  spawnToInitMs: number;
  /** Spawn to the answer of the first search. */
  coldStartMs: number;
  peakRssMb: number;
}

export interface Target {
  label: string;
  limit: number;
  unit: string;
  value: number | null;
  met: boolean | null;
}

export function machine(): { cpu: string; cores: number; ramGb: number; node: string } {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    ramGb: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
  };
}

/** The targets for mnemo at 100k memories (the README, Benchmarks). */
export function checkTargets(results: readonly ServerResult[], size = 100_000): Target[] {
  const r = results.find((x) => x.server === 'mnemo' && x.size === size);
  const target = (label: string, limit: number, unit: string, value: number | undefined) => ({
    label,
    limit,
    unit,
    value: value ?? null,
    met: value === undefined ? null : value <= limit,
  });
  return [
    target('save p50', 1.5, 'ms', r?.save.p50),
    target('search p50', 5, 'ms', r?.search.p50),
    target('cold start', 1000, 'ms', r?.coldStartMs),
    target('peak RSS', 250, 'MB', r?.peakRssMb),
  ];
}

const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const count = (n: number) => n.toLocaleString('en-US');

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

export function resultsTable(results: readonly ServerResult[]): string {
  const header = [
    'memories',
    'server',
    'save p50 ms',
    'save p99 ms',
    'search p50 ms',
    'search p99 ms',
    'spawn→init ms',
    'cold start ms',
    'peak RSS MB',
    'calls (save/search)',
  ];
  const lines = [row(header), row(header.map((_, i) => (i < 2 ? '---' : '---:')))];
  for (const r of results) {
    lines.push(
      row([
        count(r.size),
        r.server,
        ms(r.save.p50),
        ms(r.save.p99),
        ms(r.search.p50),
        ms(r.search.p99),
        ms(r.spawnToInitMs),
        ms(r.coldStartMs),
        r.peakRssMb.toFixed(0),
        `${r.save.n}/${r.search.n}`,
      ]),
    );
  }
  return lines.join('\n');
}

export function targetsList(targets: readonly Target[]): string {
  return targets
    .map((t) => {
      const verdict = t.met === null ? 'not checked (100k not run)' : t.met ? 'met' : 'NOT met';
      const value = t.value === null ? '' : `: ${ms(t.value)} ${t.unit}`;
      return `- ${t.label} <= ${t.limit} ${t.unit}${value}, ${verdict}`;
    })
    .join('\n');
}
