import { type ChildProcess, spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import {
  type JSONRPCMessage,
  parseJSONRPCMessage,
  serializeMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { LineSplitter } from '../platform/line-splitter.js';
import { GatewayFault } from './errors.js';

export interface ProcessGroupStdioParams {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** How long close() waits after closing stdin, then after SIGTERM. */
  graceMs?: number;
  /** The clock (ms) that ends a turn of handling lines; performance.now by default. */
  now?: () => number;
}

/** The largest message read from the child (as the server's own stdio): a longer one closes it. */
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** The longest the child's lines are handled for at a time, before other work gets a turn. */
const TURN_MS = 10;

const GROUPS = process.platform !== 'win32';

/**
 * The SDK's StdioClientTransport, but the child leads its own process group, so whatever it
 * starts (npx, shells, workers) ends with it: close() ends stdin, then sends SIGTERM and at
 * last SIGKILL to the whole group, and a group whose leader died is sent SIGTERM too.
 */
export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /**
   * Sees each parsed line before it is checked as a message: true takes it (the gateway's own
   * answers and progress, which skip the SDK's schema check), false hands it on to `onmessage`.
   */
  claim?: (value: unknown) => boolean;
  /** The child's stderr, available before start() so no early line is lost. */
  readonly stderr = new PassThrough();
  private child: ChildProcess | undefined;
  // The SDK's ReadBuffer throws past its cap from inside the 'data' event, which ended the whole
  // server, and copies the buffer at each chunk: a hostile upstream's endless line did both.
  private readonly max = MAX_MESSAGE_BYTES;
  private readonly lines = new LineSplitter(this.max, (line, bytes) => this.onLine(line, bytes));
  /** Lines read and not yet handled, from `next` on. */
  private queue: Buffer[] = [];
  private next = 0;
  private draining = false;

  constructor(private readonly params: ProcessGroupStdioParams) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    if (this.child) throw new Error('ProcessGroupStdioTransport already started');
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, this.params.args ?? [], {
        env: { ...getDefaultEnvironment(), ...this.params.env },
        cwd: this.params.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: GROUPS,
        shell: false,
        windowsHide: true,
      });
      this.child = child;
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => resolve());
      child.on('close', () => {
        if (this.child === child) this.child = undefined;
        // Helpers the leader left behind go with it.
        signalGroup(child, 'SIGTERM');
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => {
        if (this.child !== child) return;
        this.lines.push(chunk);
        // A message past the cap is lost, and with it the answer some call waits for: closing
        // ends those calls now (the upstream restarts) rather than at their timeout.
        if (this.lines.pending > this.max) this.refuseOversized(this.lines.pending);
        else if (!this.draining) this.drain(child);
      });
      child.stderr?.pipe(this.stderr);
    });
  }

  private onLine(line: Buffer, bytes: number): void {
    if (this.child === undefined) return;
    if (bytes > this.max) this.refuseOversized(bytes);
    else this.queue.push(line);
  }

  /**
   * Handles the lines read, TURN_MS of them a turn of the event loop, the child's stdout paused
   * between turns: each line costs a parse and a schema check (~12 µs for `{}`), and a 64 KB
   * chunk of short ones held every namespace ~400 ms.
   */
  private drain(child: ChildProcess): void {
    const now = this.params.now ?? (() => performance.now());
    const until = now() + TURN_MS;
    while (this.next < this.queue.length) {
      if (this.child !== child) return;
      if (now() > until) {
        this.draining = true;
        child.stdout?.pause();
        setImmediate(() => {
          this.draining = false;
          this.drain(child);
        });
        return;
      }
      this.deliver(this.queue[this.next++] as Buffer);
    }
    this.queue = [];
    this.next = 0;
    if (this.child === child) child.stdout?.resume();
  }

  private deliver(line: Buffer): void {
    const text = line.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      const value: unknown = JSON.parse(text);
      if (this.claim?.(value) === true) return;
      message = parseJSONRPCMessage(value);
    } catch (error) {
      this.onerror?.(error as Error);
      return;
    }
    this.onmessage?.(message);
  }

  private refuseOversized(bytes: number): void {
    this.lines.clear();
    this.onerror?.(
      new GatewayFault(
        `the upstream sent a message of ${bytes} bytes or more, over the ${this.max}-byte limit: closing it`,
      ),
    );
    void this.close();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin) {
        reject(new GatewayFault('Not connected'));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    this.lines.clear();
    this.queue = [];
    this.next = 0;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const grace = this.params.graceMs ?? 2_000;
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const waited = () =>
      Promise.race([exited, new Promise<void>((r) => setTimeout(r, grace).unref())]);
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    await waited();
    if (child.exitCode === null && child.signalCode === null) {
      signalGroup(child, 'SIGTERM');
      await waited();
    }
    if (child.exitCode === null && child.signalCode === null) signalGroup(child, 'SIGKILL');
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (GROUPS) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // The group is gone already.
  }
}
