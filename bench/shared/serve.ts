// The processes of the shared-storage bench and how its clients call them: `mnemo serve` on a
// data dir or a database, one SDK Client a connection over streamable HTTP, a timed tool call.
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { spawnGroup } from '../lib/processes.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const MNEMO_CLI = path.join(ROOT, 'dist/cli.js');
const TOKEN = 'bench-shared-token-0123456789abcdef';
const CALL_TIMEOUT_MS = 120_000;

export type ToolCall = [tool: string, args: Record<string, unknown>];
export type Storage = 'jsonl' | 'postgres';

export const STORAGE_LABEL: Record<Storage, string> = {
  jsonl: 'JSONL, one process',
  postgres: 'PostgreSQL, two replicas',
};

/** What a part's clients call: fresh sentences to save and queries, for `calls` calls a row. */
export interface Workload {
  size: number;
  calls: number;
  warmup: number;
  nextSave: () => ToolCall;
  nextSearch: () => ToolCall;
}

export interface Replica {
  name: string;
  url: URL;
  child: ChildProcess;
  spawnedAt: number;
  output: { text: string };
}

/**
 * Spawns `mnemo serve --port 0` and resolves once it printed its URL. `cli` is another build's
 * (a baseline); `env` adds settings, and a variable given as undefined is left unset.
 */
export async function startServe(
  name: string,
  dir: string,
  databaseUrl?: string,
  {
    cli = MNEMO_CLI,
    env: extra = {},
  }: { cli?: string; env?: Record<string, string | undefined> } = {},
): Promise<Replica> {
  const given: Record<string, string | undefined> = {
    MNEMO_LOG_LEVEL: 'warn',
    MNEMO_AUTH_TOKEN: TOKEN,
    MNEMO_RATE_LIMIT: '0',
    // Storage and indexes of words: the embeddings are measured by npm run bench.
    MNEMO_EMBEDDINGS: 'off',
    ...(databaseUrl ? { MNEMO_DATABASE_URL: databaseUrl } : {}),
    ...extra,
  };
  const env = Object.fromEntries(
    Object.entries(given).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const spawnedAt = performance.now();
  const child = spawnGroup(
    ROOT,
    process.execPath,
    [cli, 'serve', '--port', '0', '--data-dir', dir],
    env,
  );
  const output = { text: '' };
  const keep = (chunk: Buffer) => {
    output.text = (output.text + chunk.toString('utf8')).slice(-4_096);
  };
  child.stderr?.on('data', keep);
  const url = await new Promise<URL>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      keep(d);
      out += d.toString();
      const m = /mnemo serve: (http:\/\/\S+\/mcp)/.exec(out);
      if (m) resolve(new URL(m[1] as string));
    });
    child.once('exit', () => reject(new Error(`mnemo serve ${name} exited\n${output.text}`)));
  });
  return { name, url, child, spawnedAt, output };
}

export async function connect(replica: Replica): Promise<Client> {
  const client = new Client({ name: 'mnemo-bench-shared', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(replica.url, {
    requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
  });
  await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  return client;
}

export async function call(
  client: Client,
  [name, args]: ToolCall,
): Promise<{ ms: number; structured: Record<string, unknown> }> {
  const started = performance.now();
  const result = await client.callTool({ name, arguments: args }, { timeout: CALL_TIMEOUT_MS });
  const ms = performance.now() - started;
  if (result.isError) {
    throw new Error(`${name} failed: ${JSON.stringify(result.content).slice(0, 500)}`);
  }
  return { ms, structured: (result.structuredContent ?? {}) as Record<string, unknown> };
}

/** Spawn to the first search answer of each replica, started together. */
export async function firstSearches(
  replicas: readonly Replica[],
  query: string,
): Promise<number[]> {
  return Promise.all(
    replicas.map(async (r) => {
      const client = await connect(r);
      try {
        await call(client, ['search_memory', { query, top_k: 10 }]);
        return performance.now() - r.spawnedAt;
      } catch (error) {
        throw new Error(`${(error as Error).message}\n${r.output.text}`);
      } finally {
        await client.close().catch(() => {});
      }
    }),
  );
}

/** `clients` clients, client c on replica c mod the replicas' count. */
export function connectAll(replicas: readonly Replica[], clients: number): Promise<Client[]> {
  return Promise.all(
    Array.from({ length: clients }, (_, c) => connect(replicas[c % replicas.length] as Replica)),
  );
}

export async function closeAll(clients: readonly Client[]): Promise<void> {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
}
