// Part `starts`: each process's start (spawn to its first search's answer, which waits for the
// store's load) and its peak resident set after the parts before it ran; it runs last.
import { peakRssMb } from '../lib/cpu.js';
import { count, table } from '../lib/format.js';
import type { Part, PartContext } from './part.js';
import { STORAGE_LABEL, type Storage } from './serve.js';

export interface StartRow {
  size: number;
  storage: Storage;
  process: string;
  /** Writing memories.jsonl, or the schema's rows, before the processes started. */
  preloadMs: number;
  /** Spawn to the answer of the first search_memory (which waits for the store's load). */
  firstSearchMs: number;
  /** After the whole run. */
  peakRssMb: number;
}

async function run(ctx: PartContext): Promise<StartRow[]> {
  return ctx.replicas.map((r, i) => ({
    size: ctx.size,
    storage: ctx.storage,
    process: ctx.storage === 'jsonl' ? 'one' : `replica ${r.name}`,
    preloadMs: ctx.preloadMs,
    firstSearchMs: ctx.firstSearchMs[i] as number,
    peakRssMb: peakRssMb(r.child.pid) ?? Number.NaN,
  }));
}

function startTable(rows: readonly StartRow[]): string {
  const header = [
    'memories',
    'storage',
    'process',
    'preload s',
    'spawn → first search ms',
    'peak RSS MB',
  ];
  return table(
    header,
    3,
    rows.map((r) => [
      count(r.size),
      STORAGE_LABEL[r.storage],
      r.process,
      (r.preloadMs / 1000).toFixed(1),
      count(Math.round(r.firstSearchMs)),
      r.peakRssMb.toFixed(0),
    ]),
  );
}

export const STARTS: Part<StartRow> = {
  name: 'starts',
  on: ['jsonl', 'postgres'],
  run,
  report: (rows) => [
    startTable(rows),
    '',
    '- preload: writing memories.jsonl (fsynced), or the schema, its migration and multi-row INSERTs of every memory, before the processes start; spawn → first search: the processes start together, the first search waits for the store to load.',
  ],
};
