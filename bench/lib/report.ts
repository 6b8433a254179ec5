// The Markdown report of the stores part: tables of starts, closes, calls and the floor, one row
// per size and server, and issue 24's targets checked against them.
import os from 'node:os';
import type { CloseReport } from './client.js';
import { type Floor, floorAt, timesDurable, timesFloor } from './floor.js';
import { count, ms } from './format.js';
import type { ServerResult } from './stores-bench.js';

export interface Target {
  label: string;
  limit: number;
  unit: string;
  value: number | null;
  met: boolean | null;
}

export interface Machine {
  cpu: string;
  cores: number;
  ramGb: number;
  node: string;
  /** os.platform() and os.release(); absent from the JSON of runs before issue 24. */
  os?: string;
}

export function machine(): Machine {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    ramGb: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    os: `${os.platform()} ${os.release()}`,
  };
}

export function machineLine(m: Machine): string {
  return `Machine: ${m.cpu}, ${m.cores} cores, ${m.ramGb} GB RAM, Node ${m.node}${m.os ? `, ${m.os}` : ''}`;
}

/** The 1, 5 and 15 minute load averages, as `uptime` prints them. */
export function loadAverage(): string {
  return os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(', ');
}

/** Issue 24's targets for mnemo, words alone, over MCP stdio, real text (ms, MB, x floor). */
export const TARGETS: Record<
  number,
  {
    firstStart: number;
    nextStart: number;
    search: number;
    saveP50: number;
    saveP99: number;
    rss: number;
  }
> = {
  100000: { firstStart: 2000, nextStart: 500, search: 2, saveP50: 2, saveP99: 10, rss: 150 },
  1000000: { firstStart: 10000, nextStart: 2000, search: 10, saveP50: 2, saveP99: 10, rss: 1024 },
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
      target('first start, no sidecar', limits.firstStart, 'ms', r?.firstStartMs),
      target('start after the closed one', limits.nextStart, 'ms', r?.nextStartMs),
      target('search p50', limits.search, 'ms', r?.search.p50),
      target('save p50', limits.saveP50, 'x floor', r && timesFloor(r.save.p50, r.floor, 'p50')),
      target('save p99', limits.saveP99, 'x floor', r && timesFloor(r.save.p99, r.floor, 'p99')),
      target('peak RSS', limits.rss, 'MB', r?.peakRssMb),
    );
  }
  return out;
}

const times = (x: number) => `${x.toFixed(1)}x`;
const timesOrDash = (x: number | undefined) => (x === undefined ? '-' : times(x));
const summaryOrDash = (s: { p50: number; p99: number } | undefined) =>
  s ? `${ms(s.p50)} / ${ms(s.p99)}` : '-';

export function markdownTable(header: readonly string[], rows: readonly string[][]): string {
  const row = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  const rule = header.map((_, i) => (i < 2 ? '---' : '---:'));
  return [row(header), row(rule), ...rows.map(row)].join('\n');
}

export function closeText(close: CloseReport): string {
  const by = close.kind === 'itself' ? 'ended itself' : close.kind;
  return `${by}, ${ms(close.ms)} ms`;
}

/** First start, the client's close of it, the start after it, peak RSS. */
export function startsTable(results: readonly ServerResult[]): string {
  return markdownTable(
    [
      'memories',
      'server',
      'first start ms (no sidecar)',
      'close of the first',
      'sidecar left',
      'next start ms',
      'next: spawn → init ms',
      'peak RSS MB (first / next)',
    ],
    results.map((r) => [
      count(r.size),
      r.server,
      ms(r.firstStartMs),
      closeText(r.firstClose),
      r.sidecarLeft === null ? '-' : r.sidecarLeft ? 'yes' : '**no**',
      ms(r.nextStartMs),
      ms(r.spawnToInitMs),
      `${count(Math.round(r.firstPeakRssMb))} / ${count(Math.round(r.peakRssMb))}`,
    ]),
  );
}

/** Searches and saves of the next start, each save figure beside the floor. */
export function callsTable(results: readonly ServerResult[]): string {
  return markdownTable(
    [
      'memories',
      'server',
      'search p50 ms',
      'search p99 ms',
      'save p50 ms (x floor)',
      'save p99 ms (x floor)',
      'floor p50 / p99 ms',
      'save p50 / p99 x durable no-op',
      'calls (search/save)',
      'close after them',
    ],
    results.map((r) => [
      count(r.size),
      r.server,
      ms(r.search.p50),
      ms(r.search.p99),
      `${ms(r.save.p50)} (${times(timesFloor(r.save.p50, r.floor, 'p50'))})`,
      `${ms(r.save.p99)} (${times(timesFloor(r.save.p99, r.floor, 'p99'))})`,
      `${ms(floorAt(r.floor, 'p50'))} / ${ms(floorAt(r.floor, 'p99'))}`,
      `${timesOrDash(timesDurable(r.save.p50, r.floor, 'p50'))} / ${timesOrDash(timesDurable(r.save.p99, r.floor, 'p99'))}`,
      `${r.search.n}/${r.save.n}`,
      closeText(r.nextClose),
    ]),
  );
}

/** The two parts of each floor, measured just before each server. */
export function floorTable(results: readonly ServerResult[]): string {
  const part = (f: Floor, k: 'fsync' | 'noop') => `${ms(f[k].p50)} / ${ms(f[k].p99)}`;
  return markdownTable(
    [
      'memories',
      'before',
      'append + fdatasync p50 / p99 ms',
      'MCP no-op round trip p50 / p99 ms',
      'durable no-op p50 / p99 ms',
      'line bytes',
    ],
    results.map((r) => [
      count(r.size),
      r.server,
      part(r.floor, 'fsync'),
      part(r.floor, 'noop'),
      summaryOrDash(r.floor.durable),
      r.floor.lineBytes.toFixed(0),
    ]),
  );
}

/**
 * Saves that come apart (a pause before each, as an agent's do), beside the floor measured with
 * the same pauses: after a pause a round trip and an fdatasync cost more than back to back.
 */
export function spacedTable(results: readonly ServerResult[]): string {
  const rows = results.flatMap((r) => {
    const s = r.spaced;
    if (!s) return [];
    const part = (k: 'fsync' | 'noop') => `${ms(s.floor[k].p50)} / ${ms(s.floor[k].p99)}`;
    return [
      [
        count(r.size),
        r.server,
        `${count(s.gapMs)} ms`,
        `${ms(s.save.p50)} (${times(timesFloor(s.save.p50, s.floor, 'p50'))})`,
        `${ms(s.save.p99)} (${times(timesFloor(s.save.p99, s.floor, 'p99'))})`,
        `${ms(floorAt(s.floor, 'p50'))} / ${ms(floorAt(s.floor, 'p99'))}`,
        part('fsync'),
        part('noop'),
        `${summaryOrDash(s.floor.durable)} (${timesOrDash(timesDurable(s.save.p50, s.floor, 'p50'))})`,
        String(s.save.n),
      ],
    ];
  });
  return markdownTable(
    [
      'memories',
      'server',
      'pause before each',
      'save p50 ms (x floor)',
      'save p99 ms (x floor)',
      'floor p50 / p99 ms',
      'append + fdatasync p50 / p99 ms',
      'MCP no-op p50 / p99 ms',
      'durable no-op p50 / p99 ms (save p50 x it)',
      'saves',
    ],
    rows,
  );
}

export function targetsList(targets: readonly Target[]): string {
  return targets
    .map((t) => {
      const verdict = t.met === null ? 'not checked (size not run)' : t.met ? 'met' : '**NOT met**';
      const value =
        t.value === null
          ? ''
          : `: ${t.unit === 'x floor' ? t.value.toFixed(1) : ms(t.value)} ${t.unit}`;
      return `- ${t.label} <= ${t.limit} ${t.unit}${value}, ${verdict}`;
    })
    .join('\n');
}

/**
 * What docs/benchmarks.md's bench:stores regions hold, from a run's figures (so `bench/tables.ts` makes
 * it again from a --json file): the tables and the targets of the sizes run. The notes on what
 * each column means are that page's prose.
 */
export function storesMarkdown(run: {
  machine: Machine;
  text: string;
  load: { start: string; end: string };
  results: readonly ServerResult[];
}): string {
  const checked = checkTargets(run.results).filter((t) => t.met !== null);
  return [
    `${machineLine(run.machine)}; text: ${run.text}; load average at the start: ${run.load.start}, at the end: ${run.load.end}.`,
    '',
    'Starts, and the client closing the first one:',
    '',
    startsTable(run.results),
    '',
    'Calls on the next start, saves beside the floor:',
    '',
    callsTable(run.results),
    '',
    'The floor, same run:',
    '',
    floorTable(run.results),
    ...(run.results.some((r) => r.spaced)
      ? [
          '',
          'Saves spaced out, beside the floor with the same pauses:',
          '',
          spacedTable(run.results),
        ]
      : []),
    ...(checked.length > 0 ? ['', "Issue 24's targets for mnemo:", '', targetsList(checked)] : []),
  ].join('\n');
}
