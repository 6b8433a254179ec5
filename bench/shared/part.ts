// What a part of the shared-storage bench is: a measurement run at each size on one setup (the
// JSONL process, or the two PostgreSQL replicas), its rows, and its section of the report. The
// parts are listed, in the order they run and report, in PARTS of bench/shared.ts.
import type { CpuScope } from './cpu-scope.js';
import type { Replica, Storage, Workload } from './serve.js';

export interface Options {
  sizes: number[];
  calls: number;
  warmup: number;
  probes: number;
  pollMs: number;
  readSeconds: number;
  databaseUrl: string;
  /** The parts to run, by name (all when not given). */
  parts: string[] | undefined;
  json: string | undefined;
}

/** What a part runs against: one setup at one size, its processes started and loaded. */
export interface PartContext {
  size: number;
  storage: Storage;
  /** The JSONL process, or replicas A and B. */
  replicas: readonly Replica[];
  /** Spawn to the answer of each replica's first search_memory (which waits for the load). */
  firstSearchMs: readonly number[];
  /** Writing the data dir's log, or the schema's rows, before the processes started. */
  preloadMs: number;
  /** The database's admin connection and port (PostgreSQL only): for the CPU of its backends. */
  database: CpuScope['database'];
  options: Options;
  /** A fresh workload for a row (the save and query streams go on across rows). */
  work(): Workload;
}

export interface Part<Row> {
  /** Its name in --parts and its key in the --json report. */
  name: string;
  /** The setups it runs on. */
  on: readonly Storage[];
  /** Measures one setup at one size. */
  run(ctx: PartContext): Promise<Row[]>;
  /** Its section of the report: tables and what they measured, from every size's rows. */
  report(rows: readonly Row[], options: Options): string[];
  /** The targets it checks, a line each ("... met" / "NOT met"). */
  targets?(rows: readonly Row[]): string[];
}

/** A part whose rows the entry file keeps without knowing their type. */
// biome-ignore lint/suspicious/noExplicitAny: the parts table holds parts of different row types
export type AnyPart = Part<any>;
