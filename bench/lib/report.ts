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
  /** A server with a sidecar: its first start, from the log alone, which writes it. */
  rebuild?: {
    firstStartMs: number;
    /** Spawn until the sidecar is on disk. */
    rebuildMs: number;
    sidecarMb: number;
    rebuildRssMb: number;
  };
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

/** The targets for mnemo (the README, Benchmarks; issue #9): by size, words alone. */
const TARGETS: Record<number, { start: number; search: number; save: number; rss: number }> = {
  100000: { start: 500, search: 2, save: 1, rss: 150 },
  1000000: { start: 2000, search: 10, save: 1.5, rss: 1024 },
};

export function checkTargets(results: readonly ServerResult[]): Target[] {
  const out: Target[] = [];
  for (const [size, limits] of Object.entries(TARGETS)) {
    const r = results.find((x) => x.server === 'mnemo' && x.size === Number(size));
    const at = Number(size).toLocaleString('en-US');
    const target = (label: string, limit: number, unit: string, value: number | undefined) => ({
      label: `${at}: ${label}`,
      limit,
      unit,
      value: value ?? null,
      met: value === undefined ? null : value <= limit,
    });
    out.push(
      target('spawn to first search', limits.start, 'ms', r?.coldStartMs),
      target('search p50', limits.search, 'ms', r?.search.p50),
      target('save p50', limits.save, 'ms', r?.save.p50),
      target('peak RSS', limits.rss, 'MB', r?.peakRssMb),
    );
  }
  return out;
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

/** The first start of each store with a sidecar: from the log alone, writing the sidecar. */
export function rebuildTable(results: readonly ServerResult[]): string {
  const header = [
    'memories',
    'server',
    'first start ms (no sidecar)',
    'sidecar written ms',
    'sidecar MB',
    'peak RSS MB',
  ];
  const lines = [row(header), row(header.map((_, i) => (i < 2 ? '---' : '---:')))];
  for (const r of results) {
    if (!r.rebuild) continue;
    lines.push(
      row([
        count(r.size),
        r.server,
        ms(r.rebuild.firstStartMs),
        ms(r.rebuild.rebuildMs),
        r.rebuild.sidecarMb.toFixed(1),
        r.rebuild.rebuildRssMb.toFixed(0),
      ]),
    );
  }
  return lines.join('\n');
}

export function targetsList(targets: readonly Target[]): string {
  return targets
    .map((t) => {
      const verdict = t.met === null ? 'not checked (size not run)' : t.met ? 'met' : 'NOT met';
      const value = t.value === null ? '' : `: ${ms(t.value)} ${t.unit}`;
      return `- ${t.label} <= ${t.limit} ${t.unit}${value}, ${verdict}`;
    })
    .join('\n');
}
