// What the DirLock tests share: a temp folder a test removes, a holder child process that
// takes the lock and stalls (and what it says), the lock's owner file, and an idle timer and a
// watch for requests that the test fires by hand.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { DirLockOptions } from '../../src/platform/dir-lock.js';
import { nodeScript } from '../node-script.js';

const HOLDER = fileURLToPath(new URL('./dir-lock-holder-child.ts', import.meta.url));

export function tempDir(t: TestContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-lock-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** What each holder child has written on stdout so far. */
const said = new WeakMap<ChildProcess, () => string>();

/** Resolves with the first line of `child`'s stdout that `pattern` matches. */
export function saying(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve) => {
    const check = () => {
      const line = (said.get(child)?.() ?? '').split('\n').find((l) => pattern.test(l));
      if (line === undefined) return false;
      child.stdout?.off('data', check);
      resolve(line);
      return true;
    };
    if (!check()) child.stdout?.on('data', check);
  });
}

/**
 * A child process that takes the lock on `dir` and stops itself (SIGSTOP) while holding it:
 * inside its run, or (`kept`) after it, keeping the lock; `idle` keeps it and runs on.
 */
export async function stoppedHolder(
  t: TestContext,
  dir: string,
  mode: 'inside' | 'kept' | 'idle' = 'inside',
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...nodeScript(HOLDER), dir, mode], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  let stdout = '';
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  said.set(child, () => stdout);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no lock held after 30 s: ${stderr}`)), 30_000);
    child.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('held')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the holder exited (${code}): ${stderr}`));
    });
  });
  return child;
}

export function owner(lockPath: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(lockPath, 'owner'), 'utf8'));
}

/** An idle timer the test fires by hand. */
export function manualTimer(): {
  fire: () => void;
  armed: () => boolean;
  /** The keep the timer was last made for (ms). */
  ms: () => number | undefined;
  make: DirLockOptions['idleTimer'];
} {
  let onIdle: (() => void) | undefined;
  let keepMs: number | undefined;
  return {
    fire: () => onIdle?.(),
    armed: () => onIdle !== undefined,
    ms: () => keepMs,
    make: (fn, ms) => {
      onIdle = fn;
      keepMs = ms;
      return {
        refresh: () => {},
        cancel: () => {
          onIdle = undefined;
        },
      };
    },
  };
}

/** A watch for requests that the test fires, as the folder's watch would. */
export function manualWatch(): {
  fire: (broken?: boolean) => void;
  watching: () => boolean;
  make: DirLockOptions['askWatch'];
} {
  let onAsk: ((broken: boolean) => void) | undefined;
  return {
    fire: (broken = false) => onAsk?.(broken),
    watching: () => onAsk !== undefined,
    make: (fn) => {
      onAsk = fn;
      return () => {
        onAsk = undefined;
      };
    },
  };
}
