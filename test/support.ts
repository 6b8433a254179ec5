import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import pino, { type Logger } from 'pino';
import { type OpenedMemory, type OpenOptions, openMemory } from '../src/app/memory.js';
import { type Config, loadConfig } from '../src/config/index.js';
import type { Memory } from '../src/memory/index.js';
import { createServer } from '../src/server.js';
import type { StorageEngine } from '../src/storage/engine.js';
import { databaseAbsent, freshSchema, type TestDatabase } from './support-pg.js';

export const DAY = 86_400;
export const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z

export function tempDir(prefix = 'mnemo-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A settable clock, so tests move time instead of waiting for it. */
export class TestClock {
  constructor(public now = T0) {}
  readonly read = () => this.now;
  advanceDays(days: number): void {
    this.now += Math.round(days * DAY);
  }
}

/** The storage engines a suite runs against: the data dir's JSONL logs, and PostgreSQL. */
export type Engine = 'jsonl' | 'postgres';
export const ENGINES: readonly Engine[] = ['jsonl', 'postgres'];

/**
 * Why `engine` cannot be used here (no PostgreSQL answers at MNEMO_TEST_DATABASE_URL), else
 * undefined: the `skip` of a suite run against it, so it skips with one line saying why.
 */
export function engineAbsent(engine: Engine): Promise<string | undefined> {
  return engine === 'postgres' ? databaseAbsent() : Promise.resolve(undefined);
}

export interface TestMemory {
  dir: string;
  clock: TestClock;
  memory: Memory;
  store: StorageEngine;
  config: Config;
  opened: OpenedMemory;
  /** What the memory and its server log to (silent unless the test gave one). */
  logger: Logger;
  /** The vault folder (made at the first promotion); '' when there is none (PostgreSQL). */
  vault: string;
  engine: Engine;
  /** The schema the memories are in, on PostgreSQL. */
  database: TestDatabase | undefined;
  close(): Promise<void>;
}

export interface TestMemoryOptions
  extends Partial<
    Pick<
      OpenOptions,
      'watchVault' | 'noteSettleMs' | 'logger' | 'lockWaitMs' | 'sidecarMinLines' | 'judgeFacts'
    >
  > {
  /**
   * The storage engine (JSONL unless told). PostgreSQL: a fresh schema of the test database,
   * dropped by close(); as with MNEMO_DATABASE_URL, no vault unless env has MNEMO_VAULT_DIR.
   */
  engine?: Engine;
}

export async function openTestMemory(
  env: Record<string, string> = {},
  dir = tempDir(),
  options: TestMemoryOptions = {},
): Promise<TestMemory> {
  const engine = options.engine ?? 'jsonl';
  const database = engine === 'postgres' ? await freshSchema() : undefined;
  const clock = new TestClock();
  const logger = options.logger ?? pino({ level: 'silent' });
  const config = loadConfig({
    env: {
      MNEMO_EMBEDDINGS: 'off',
      ...env,
      MNEMO_DATA_DIR: dir,
      ...(database ? { MNEMO_DATABASE_URL: database.url } : {}),
    },
    home: dir,
  });
  const opened = openMemory(config, {
    logger,
    clock: clock.read,
    ...(options.watchVault !== undefined ? { watchVault: options.watchVault } : {}),
    ...(options.noteSettleMs !== undefined ? { noteSettleMs: options.noteSettleMs } : {}),
    ...(options.lockWaitMs !== undefined ? { lockWaitMs: options.lockWaitMs } : {}),
    ...(options.sidecarMinLines !== undefined ? { sidecarMinLines: options.sidecarMinLines } : {}),
    ...(options.judgeFacts !== undefined ? { judgeFacts: options.judgeFacts } : {}),
  });
  return {
    dir,
    clock,
    config,
    opened,
    logger,
    vault: config.vaultDir ?? '',
    engine,
    database,
    memory: opened.memory,
    store: opened.store,
    async close() {
      try {
        await opened.close();
      } finally {
        await database?.drop();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export interface TestClient extends TestMemory {
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** Calls a tool that must succeed and returns its structuredContent. */
  ok<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>;
}

/** A client linked in-process to a fresh mnemo server over an in-memory transport. */
export async function openTestClient(
  env: Record<string, string> = {},
  options: Parameters<typeof openTestMemory>[2] & { dir?: string } = {},
): Promise<TestClient> {
  const t = await openTestMemory(env, options.dir ?? tempDir(), options);
  const server = createServer({
    memory: t.memory,
    logger: t.logger,
    anchorFile: t.config.anchorFile,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'mnemo-test', version: '0.0.0' });
  await client.connect(clientSide);
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    ...t,
    client,
    call,
    async ok<T>(name: string, args: Record<string, unknown> = {}) {
      const result = await call(name, args);
      if (result.isError) {
        throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
      }
      return result.structuredContent as T;
    },
    async close() {
      await client.close();
      await server.close();
      await t.close();
    },
  };
}

export function errorText(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** Whether a process still runs (signal 0 only checks). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A raw JSON-RPC initialize request, for tests that speak the protocol by hand. */
export const INITIALIZE_REQUEST = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
} as const;

/** The fields of a search_memory result, as the README's tool table lists them (sorted). */
export const SEARCH_HIT_KEYS = [
  'age_days',
  'ago',
  'content',
  'date',
  'last_used',
  'memory_id',
  'relevance',
  'review_candidate',
  'review_priority',
  'score',
  'tags',
  'use_count',
];

/**
 * Resolves once `check` holds, looking again every few milliseconds: for what another part
 * (a file watcher, a child process) does in its own time. Fails after `timeoutMs`.
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A pino logger whose lines the test can read. */
export function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { logger, lines };
}

/** A data dir for one test (node:test's context), removed when the test ends. */
export function testDir(t: { after(fn: () => void): void }, prefix = 'mnemo-'): string {
  const dir = tempDir(prefix);
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface LogEntry {
  level: number;
  msg: string;
  file?: string;
  reason?: string;
}

/** A pino logger at debug that keeps what it logs, so a test can check the warnings. */
export function recordingLogger() {
  const entries: LogEntry[] = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => void entries.push(JSON.parse(line) as LogEntry) },
  );
  return { logger, entries: () => entries, warnings: () => entries.filter((e) => e.level === 40) };
}

/** A stream that keeps what is written to it: a command's stdout or stderr in a test. */
export function sink(): Writable & { text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return Object.assign(stream, { text: () => text });
}
