// One MCP server under test: spawned as a child process, spoken to over stdio by the SDK client.
import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

export interface ServerSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
}

const CALL_TIMEOUT_MS = 600_000;
const STDERR_KEEP = 8_192;

export class ServerSession {
  /** Milliseconds from spawn to the end of the MCP initialize handshake. */
  readonly spawnToInitMs: number;

  private constructor(
    private readonly client: Client,
    private readonly transport: StdioClientTransport,
    private readonly stderr: { tail: string },
    private readonly spawnedAt: number,
    initDoneAt: number,
  ) {
    this.spawnToInitMs = initDoneAt - spawnedAt;
  }

  /** Spawns the server and completes the initialize handshake. */
  static async start(spec: ServerSpec): Promise<ServerSession> {
    const transport = new StdioClientTransport({ ...spec, stderr: 'pipe' });
    const stderr = { tail: '' };
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr.tail = (stderr.tail + chunk.toString('utf8')).slice(-STDERR_KEEP);
    });
    const client = new Client({ name: 'mnemo-bench', version: '0.0.0' });
    const spawnedAt = performance.now();
    try {
      await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
    } catch (error) {
      throw new Error(`server failed to start: ${(error as Error).message}\n${stderr.tail}`);
    }
    return new ServerSession(client, transport, stderr, spawnedAt, performance.now());
  }

  /** Calls a tool and resolves to the round trip in ms; a tool error fails the bench. */
  async time(name: string, args: Record<string, unknown>): Promise<number> {
    return (await this.call(name, args)).ms;
  }

  /** Calls a tool and resolves to its structured answer and the round trip in ms. */
  async call(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ ms: number; structured: Record<string, unknown> }> {
    const started = performance.now();
    const result = await this.client.callTool(
      { name, arguments: args },
      {
        timeout: CALL_TIMEOUT_MS,
      },
    );
    const ms = performance.now() - started;
    if (result.isError) {
      const text = JSON.stringify(result.content).slice(0, 500);
      throw new Error(`${name} failed: ${text}\n${this.stderr.tail}`);
    }
    return { ms, structured: (result.structuredContent ?? {}) as Record<string, unknown> };
  }

  /** Milliseconds from spawn until now. */
  sinceSpawnMs(): number {
    return performance.now() - this.spawnedAt;
  }

  /** The child's peak resident set (VmHWM), in MB. */
  peakRssMb(): number {
    const pid = this.transport.pid;
    if (pid === null) return Number.NaN;
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmHWM:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? Number.NaN : Number(kb) / 1024;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
