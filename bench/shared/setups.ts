// The two setups each size runs its parts on: one `mnemo serve` on a data dir (JSONL, its log
// written beforehand), and two replicas A and B on one PostgreSQL schema (its rows inserted
// beforehand, as if saved long ago: the replicas load the table when they start).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { DEFAULT_NAMESPACE } from '../../src/storage/engine.js';
import { MEMORY_COLUMNS, memoryValues } from '../../src/storage/postgres/rows.js';
import { migrate } from '../../src/storage/postgres/schema.js';
import { killGroup } from '../lib/processes.js';
import { mnemoRecords, writeMnemoStore } from '../lib/stores.js';
import type { AnyPart, Options, PartContext } from './part.js';
import { firstSearches, type Replica, type Storage, startServe, type Workload } from './serve.js';

const INSERT_BATCH = 1_000;
const FIRST_QUERY = 'project deploy';

/** The bench's own schema in the database of `base`: the URL that selects it. */
export function schemaUrl(base: string, schema: string): string {
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

/** Makes the schema afresh, migrates it as a replica would, and inserts the memories as rows. */
async function preloadPostgres(
  admin: pg.Client,
  url: string,
  schema: string,
  texts: readonly string[],
  now: number,
): Promise<number> {
  const started = performance.now();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    await migrate(pool, url);
    const records = mnemoRecords(texts, now);
    const width = MEMORY_COLUMNS.length;
    for (let start = 0; start < records.length; start += INSERT_BATCH) {
      const part = records.slice(start, start + INSERT_BATCH);
      const rows = part.map(
        (_, r) => `(${MEMORY_COLUMNS.map((_, c) => `$${r * width + c + 1}`).join(', ')})`,
      );
      await pool.query(
        `INSERT INTO mnemo_memories (${MEMORY_COLUMNS.join(', ')}) VALUES ${rows.join(', ')}`,
        part.flatMap((record) => memoryValues(record, DEFAULT_NAMESPACE)),
      );
    }
    await pool.query('ANALYZE mnemo_memories');
  } finally {
    await pool.end();
  }
  return performance.now() - started;
}

export interface SizeRun {
  size: number;
  texts: readonly string[];
  options: Options;
  admin: pg.Client;
  schema: string;
  parts: readonly AnyPart[];
  makeWork: (size: number) => Workload;
}

/** The rows of each part, by its name, at one size. */
export type PartRows = Map<string, unknown[]>;

/** Starts a setup's processes, waits for their first search, runs the parts, stops them. */
async function runSetup(
  run: SizeRun,
  storage: Storage,
  start: () => Promise<Replica[]>,
  preloadMs: number,
  database: PartContext['database'],
  out: PartRows,
): Promise<void> {
  const parts = run.parts.filter((p) => p.on.includes(storage));
  if (parts.length === 0) return;
  const replicas = await start();
  try {
    const firstSearchMs = await firstSearches(replicas, FIRST_QUERY);
    const ctx: PartContext = {
      size: run.size,
      storage,
      replicas,
      firstSearchMs,
      preloadMs,
      database,
      options: run.options,
      work: () => run.makeWork(run.size),
    };
    for (const part of parts) {
      const rows = out.get(part.name) ?? [];
      rows.push(...(await part.run(ctx)));
      out.set(part.name, rows);
    }
  } finally {
    await Promise.all(replicas.map((r) => killGroup(r.child)));
  }
}

/** One size: the JSONL setup, then the PostgreSQL one, each with the parts that run on it. */
export async function runSize(run: SizeRun, out: PartRows): Promise<void> {
  const { size, texts, options, admin, schema } = run;
  const now = Math.floor(Date.now() / 1000);
  const dirs: string[] = [];
  const tempDir = (prefix: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  try {
    if (run.parts.some((p) => p.on.includes('jsonl'))) {
      process.stderr.write(`jsonl at ${size}: writing memories.jsonl...\n`);
      const dir = tempDir('bench-shared-jsonl-');
      const started = performance.now();
      writeMnemoStore(path.join(dir, 'memories.jsonl'), texts, now);
      const preloadMs = performance.now() - started;
      const start = async () => [await startServe('jsonl', dir)];
      await runSetup(run, 'jsonl', start, preloadMs, undefined, out);
    }
    if (run.parts.some((p) => p.on.includes('postgres'))) {
      process.stderr.write(`postgres at ${size}: inserting ${size} rows...\n`);
      const url = schemaUrl(options.databaseUrl, schema);
      const preloadMs = await preloadPostgres(admin, url, schema, texts, now);
      const [dirA, dirB] = [tempDir('bench-shared-pg-A-'), tempDir('bench-shared-pg-B-')];
      const start = async () => {
        const a = await startServe('A', dirA, url);
        return [a, await startServe('B', dirB, url)];
      };
      const database = { admin, port: Number(new URL(url).port || 5432) };
      await runSetup(run, 'postgres', start, preloadMs, database, out);
    }
  } finally {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}
