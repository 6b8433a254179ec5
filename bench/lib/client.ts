// One MCP server under test: spawned as a child process, spoken to over stdio by the SDK client,
// and closed by it as a user's client closes it.
import type { ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { peakRssMb } from './cpu.js';

export interface ServerSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
}

const CALL_TIMEOUT_MS = 600_000;
const STDERR_KEEP = 8_192;
/**
 * The v2 SDK's StdioClientTransport.close (@modelcontextprotocol/client 2.4, dist/stdio.mjs):
 * stdin ended, SIGTERM if the process is still there 2 s later, SIGKILL 2 s after that.
 */
export const SDK_SIGTERM_AFTER_MS = 2_000;

/** How a server process ended when its client closed: by itself, or by which signal. */
export type CloseKind = 'itself' | 'SIGTERM' | 'SIGKILL';

export interface CloseReport {
  kind: CloseKind;
  /** From the start of the close to the process's exit. */
  ms: number;
  code: number | null;
  signal: string | null;
}

/**
 * Which of the SDK's three steps ended a process that exited `ms` after the close began: a
 * process that handles SIGTERM exits with a code, so the time tells it from one that was done.
 */
export function closeKind(signal: string | null, ms: number): CloseKind {
  if (signal === 'SIGKILL') return 'SIGKILL';
  if (signal === 'SIGTERM' || ms >= SDK_SIGTERM_AFTER_MS) return 'SIGTERM';
  return 'itself';
}

export class ServerSession {
  /** Milliseconds from spawn to the end of the MCP initialize handshake. */
  readonly spawnToInitMs: number;

  private constructor(
    private readonly client: Client,
    private readonly transport: StdioClientTransport,
    private readonly stderr: { tail: string },
    private readonly spawnedAt: number,
    initDoneAt: number,
    private readonly child: ChildProcess,
    private readonly exited: Promise<{ at: number; code: number | null; signal: string | null }>,
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
    // The transport keeps its child private; its exit is what says how a close ended it.
    const child = (transport as unknown as { _process?: ChildProcess })._process;
    if (!child)
      throw new Error('the SDK stdio transport no longer keeps _process: update client.ts');
    const exited = new Promise<{ at: number; code: number | null; signal: string | null }>(
      (resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve({ at: performance.now(), code: child.exitCode, signal: child.signalCode });
        } else {
          child.once('exit', (code, signal) => resolve({ at: performance.now(), code, signal }));
        }
      },
    );
    return new ServerSession(
      client,
      transport,
      stderr,
      spawnedAt,
      performance.now(),
      child,
      exited,
    );
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
    return peakRssMb(this.transport.pid) ?? Number.NaN;
  }

  /**
   * Closes as a user's client does (the SDK's own close, see SDK_SIGTERM_AFTER_MS) and resolves
   * once the process is gone. `gentle`: stdin ended and the exit waited for, however long, with
   * no signal (so that node writes a --cpu-prof profile, which a signal would prevent).
   */
  async close(options: { gentle?: boolean } = {}): Promise<CloseReport> {
    const started = performance.now();
    if (options.gentle) this.child.stdin?.end();
    else await this.client.close();
    const exit = await this.exited;
    if (options.gentle) await this.client.close();
    const ms = exit.at - started;
    return { kind: closeKind(exit.signal, ms), ms, code: exit.code, signal: exit.signal };
  }
}
