// Black-box runs of the built CLI: `npm run build` first, these tests spawn dist/cli.js.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallToolResult, ClientOptions } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Engine } from '../support.js';
import { freshSchema } from '../support-pg.js';

export const CLI_PATH = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** A fresh folder under the system temp dir; the caller removes it (`removeDir`). */
export function makeTempDir(prefix = 'mnemo-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

export interface ChildStorage {
  /** What a child's environment needs to keep its memories on the engine. */
  env: Record<string, string>;
  /** Removes what was made for it (the schema); safe to call twice. */
  drop(): Promise<void>;
}

/**
 * Where the children of a test keep their memories: the data dir they are given (JSONL), or a
 * fresh schema of the test database named in MNEMO_DATABASE_URL (PostgreSQL, no vault unless
 * MNEMO_VAULT_DIR is set too). Check `engineAbsent` first: without a server this throws.
 */
export async function childStorage(engine: Engine): Promise<ChildStorage> {
  if (engine === 'jsonl') return { env: {}, drop: async () => {} };
  const database = await freshSchema();
  return { env: { MNEMO_DATABASE_URL: database.url }, drop: () => database.drop() };
}

export interface CliClient {
  client: Client;
  /** The pid of the `mnemo stdio` child. */
  pid: number;
  /** Everything the child wrote to stderr so far (its logs). */
  stderr(): string;
  /** Resolves when the child has exited and the connection is closed. */
  exited: Promise<void>;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** Calls a tool that must succeed and returns its structuredContent. */
  ok<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>;
  /** Sends `signal` to the child (SIGKILL by default) and waits until it is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Ends the session (stdin closed, then SIGTERM/SIGKILL if it lingers). Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts `node dist/cli.js stdio --data-dir DIR` and connects an MCP client to it. The child gets
 * a minimal environment (the SDK's safe defaults), MNEMO_LOG_LEVEL=warn and `env`.
 */
export async function startClient(
  dataDir: string,
  options: {
    env?: Record<string, string>;
    args?: string[];
    /** The client's options (its capabilities, its revision). */
    client?: ClientOptions;
    /** Called before the client connects: to set its handlers. */
    prepare?(client: Client): void;
  } = {},
): Promise<CliClient> {
  if (!fs.existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run npm run build`);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_PATH, 'stdio', '--data-dir', dataDir, ...(options.args ?? [])],
    env: { MNEMO_LOG_LEVEL: 'warn', MNEMO_EMBEDDINGS: 'off', ...options.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'mnemo-e2e', version: '0.0.0' }, options.client);
  options.prepare?.(client);
  let gone = false;
  const exited = new Promise<void>((resolve) => {
    client.onclose = () => {
      gone = true;
      resolve();
    };
  });
  try {
    await client.connect(transport);
  } catch (error) {
    await transport.close();
    throw new Error(`mnemo stdio did not start: ${(error as Error).message}\n${stderr}`);
  }
  const pid = transport.pid;
  if (pid === null) throw new Error('mnemo stdio has no pid');

  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    client,
    pid,
    stderr: () => stderr,
    exited,
    call,
    async ok<T>(name: string, args: Record<string, unknown> = {}) {
      const result = await call(name, args);
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
      return result.structuredContent as T;
    },
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (!gone) process.kill(pid, signal);
      await exited;
    },
    close: () => client.close(),
  };
}
