// Child processes of a benchmark: each in a process group of its own, killed as a group, and
// every group left killed when the benchmark exits, however it exits.
import { type ChildProcess, spawn } from 'node:child_process';
import os from 'node:os';

/** The groups still running. */
export const groups = new Set<ChildProcess>();

/** Starts `command` in `cwd` with a minimal environment plus `env`, in a group of its own. */
export function spawnGroup(
  cwd: string,
  command: string,
  args: string[],
  env: Record<string, string>,
): ChildProcess {
  const child = spawn(command, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  groups.add(child);
  return child;
}

export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is gone already
  }
}

/** SIGTERM, up to 5 s to exit, then SIGKILL for whatever of the group is left. */
export async function killGroup(child: ChildProcess): Promise<void> {
  const exited =
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once('exit', () => resolve()));
  signalGroup(child, 'SIGTERM');
  const timer = new Promise<void>((resolve) => setTimeout(resolve, 5_000).unref());
  await Promise.race([exited, timer]);
  signalGroup(child, 'SIGKILL');
  groups.delete(child);
}

process.on('exit', () => {
  for (const child of groups) signalGroup(child, 'SIGKILL');
});
