// `mnemo migrate`: the memories of a data dir copied into PostgreSQL (copy-to-database.ts), or
// back into a data dir (copy-to-dir.ts). Every namespace with its memories, relations, forgotten
// copies and vectors. Safe to run twice: a record is written only when the other side does not
// hold it as it is, and a forgotten copy already there is not added again. Here: what both
// directions share.
import path from 'node:path';
import type pg from 'pg';
import type { Logger } from 'pino';
import { UserError } from '../../platform/errors.js';
import { DEFAULT_NAMESPACE } from '../engine.js';
import { readAllLines } from '../jsonl/jsonl-file.js';
import { FILES } from '../jsonl/store.js';
import { VECTORS_FILE } from '../jsonl/vectors.js';
import { databaseError, isConnectionError } from '../postgres/database.js';
import { pgDriver } from '../postgres/driver.js';

/**
 * A line of the vector sidecar as JsonlVectorStore writes it (jsonl/vectors.ts): `v` the int8
 * vector in base64, `s` the scale back to floats. Read and written here as lines, so that a
 * failed write fails the copy rather than being logged as the index's store does.
 */
export interface VectorLine {
  id: string;
  model: string;
  hash: string;
  v: string;
  s: number;
}

/** Rows a transaction writes, and a page of a read. */
export const BATCH = 500;

/** Files only a mnemo data dir holds. */
export const DATA_FILES = [FILES.memories, FILES.relations, FILES.forgotten, VECTORS_FILE];

export interface CopyCounts {
  memories: number;
  relations: number;
  forgotten: number;
  vectors: number;
}

/** What one namespace gave. */
export interface NamespaceCopy {
  /** Its name where it went. */
  namespace: string;
  /** Its name where it came from: another one only with `namespace` in the options. */
  from: string;
  /** Records read from the source. */
  copied: CopyCounts;
  /** Of those, the ones the target did not hold as they are, written now (0 on a second run). */
  written: CopyCounts;
}

export interface CopyResult {
  /** The PostgreSQL schema (search_path) copied to or from. */
  schema: string;
  /** The migrations applied before the copy (into the database only). */
  migrated: number[];
  namespaces: NamespaceCopy[];
  /** Lines of the data dir that could not be read, by file: left out of the copy. */
  unreadable: Record<string, number>;
}

export interface CopyOptions {
  dataDir: string;
  /** The database: a pool on `url`, which the caller ends. */
  pool: pg.Pool;
  url: string;
  /**
   * Into the database: the data dir's default namespace goes into this one (the others keep
   * their names). Out of it: only this namespace is copied, into the data dir's default one.
   */
  namespace?: string | undefined;
  logger: Logger;
  clock: () => number;
  /** Rows a transaction (and a page of a read) holds; 500 unless told. */
  batchSize?: number;
}

/** The copy cannot be done as asked: nothing, or nothing more, was written. */
export class CopyError extends UserError {
  override name = 'CopyError';
}

/** Namespace names once each, the default one first, then by name. */
export function byName(names: Iterable<string>): string[] {
  return [...new Set(names)].sort((a, b) =>
    a === DEFAULT_NAMESPACE ? -1 : b === DEFAULT_NAMESPACE ? 1 : a < b ? -1 : a > b ? 1 : 0,
  );
}

export const zero = (): CopyCounts => ({ memories: 0, relations: 0, forgotten: 0, vectors: 0 });

export function* chunks<T>(items: readonly T[], size: number): Iterable<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

/** A failure of PostgreSQL as the one line to report (never the password); others as they are. */
export function reportable(error: unknown, url: string): unknown {
  if (error instanceof UserError) return error;
  if (error instanceof pgDriver().DatabaseError || isConnectionError(error)) {
    return databaseError(error, url);
  }
  return error;
}

/** A record that would change namespace: refused, naming it and where it is. */
export function moved(
  what: string,
  id: string,
  held: { ns: string; by: 'the database' | 'the data dir' },
  into: string,
  done: string,
): CopyError {
  return new CopyError(
    `${what} ${id} is in namespace "${held.ns}" of ${held.by} and would go into "${into}": ${done}. ` +
      'A record never moves between namespaces: copy into another namespace (--namespace NAME), or delete it on one side first',
  );
}

function isVectorLine(value: unknown): value is VectorLine {
  const line = value as Partial<VectorLine> | null;
  return (
    typeof line === 'object' &&
    line !== null &&
    typeof line.id === 'string' &&
    typeof line.model === 'string' &&
    typeof line.hash === 'string' &&
    typeof line.v === 'string' &&
    typeof line.s === 'number' &&
    Number.isFinite(line.s)
  );
}

/** The last vector line of each memory id in the sidecar. */
export function readVectors(
  dataDir: string,
  unreadable: Record<string, number>,
): Map<string, VectorLine> {
  const { values, bad } = readAllLines(path.join(dataDir, VECTORS_FILE));
  let skipped = bad.length;
  const last = new Map<string, VectorLine>();
  for (const line of values) {
    // The bytes as base64 again: PostgreSQL's decode() is stricter than Buffer (line breaks).
    const bytes = isVectorLine(line) ? Buffer.from(line.v, 'base64') : Buffer.alloc(0);
    if (!isVectorLine(line) || bytes.length === 0) {
      skipped++;
      continue;
    }
    const { id, model, hash, s } = line;
    last.set(id, { id, model, hash, v: bytes.toString('base64'), s });
  }
  if (skipped > 0) unreadable[VECTORS_FILE] = skipped;
  return last;
}

/** forgotten_at as the store writes it (its clock); 0 when a hand-written line has none. */
export function epochSeconds(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.floor(value) : 0;
}
