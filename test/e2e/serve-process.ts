// `mnemo serve` as a child process on a port the system picks, for black-box tests and scripts.
import { spawn } from 'node:child_process';
import { CLI_PATH } from './helpers.js';

export interface ServeProcess {
  /** The /mcp endpoint the server printed once it listened. */
  url: string;
  pid: number;
  /** What the child wrote to stderr so far (its logs). */
  stderr(): string;
  /** True while the child runs. */
  alive(): boolean;
  /** SIGTERM, then SIGKILL if it lingers past `graceMs`; resolves with its exit code. Safe twice. */
  stop(graceMs?: number): Promise<number | null>;
}

/**
 * Starts `node dist/cli.js serve --port 0 --data-dir DIR` (or `args` in place of `--port 0`)
 * with only PATH and `env` in its environment, and resolves once it has printed its URL
 * (rejected, with what it printed, if it exits first or takes longer than `startMs`).
 */
export function startServe(
  dataDir: string,
  env: Record<string, string>,
  startMs = 30_000,
  args: readonly string[] = ['--port', '0'],
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI_PATH, 'serve', ...args, '--data-dir', dataDir], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const stop = async (graceMs = 5_000) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    }
    return exited;
  };
  return new Promise<ServeProcess>((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop(0);
      reject(new Error(`mnemo serve printed no URL in ${startMs} ms:\n${stdout}\n${stderr}`));
    }, startMs);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
      const m = /mnemo serve: (http:\/\/\S+\/mcp)\b/.exec(stdout);
      if (!m) return;
      clearTimeout(timer);
      resolve({
        url: m[1] as string,
        pid: child.pid as number,
        stderr: () => stderr,
        alive: () => child.exitCode === null && child.signalCode === null,
        stop,
      });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mnemo serve exited (${code}) before it listened:\n${stdout}\n${stderr}`));
    });
  });
}
