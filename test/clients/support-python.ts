// Python for the client tests: a program run to its end, the environment it runs in (nothing of
// this process's MNEMO_* settings), python3, and a venv with the MCP SDK (`mcp` from the package
// index) kept in the user's cache folder, or the reason there is none (the tests then skip
// saying why).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';

/** The SDK line whose `mode=` chooses the revision (2.x); jsonschema for the explicit check. */
const PACKAGES = ['mcp>=2.3,<3', 'jsonschema>=4'];

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end (killed past `timeoutMs`), whatever its exit code. */
export function run(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { env, timeout: timeoutMs, maxBuffer: 32 << 20, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        const killed = error?.killed ? `\n(killed after ${timeoutMs} ms)` : '';
        const missing = error && typeof error.code === 'string' ? `\n(${error.code})` : '';
        resolve({ code, stdout, stderr: stderr + killed + missing });
      },
    );
  });
}

export const lastLine = (text: string) => text.trim().split('\n').at(-1) ?? '';

/** A clear failure: the script's reason, not only its exit code. */
export function summaryOf(ran: Ran, what: string): Record<string, unknown> {
  const reason = ran.stderr.includes('FAILED:')
    ? ran.stderr.slice(ran.stderr.indexOf('FAILED:'))
    : ran.stderr.slice(-4000);
  assert.equal(ran.code, 0, `${what} failed:\n${reason}`);
  return JSON.parse(lastLine(ran.stdout)) as Record<string, unknown>;
}

/** Where mnemo and the scripts run: nothing of this process's MNEMO_* settings leaks in. */
export const childEnv = (): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  LANG: 'C.UTF-8',
  PYTHONDONTWRITEBYTECODE: '1',
  MNEMO_LOG_LEVEL: 'warn',
  // cluster_memories compares meanings: the bundled static model, no download.
  MNEMO_EMBEDDINGS: 'static',
  MNEMO_RATE_LIMIT: '0',
});

export type Python = { python: string } | { skip: string };

/** python3 on PATH, or why not. */
export async function systemPython(): Promise<Python> {
  const ran = await run('python3', ['--version'], childEnv(), 30_000);
  return ran.code === 0
    ? { python: 'python3' }
    : { skip: `no python3 here: ${lastLine(ran.stderr)}` };
}

/**
 * A venv with the SDK and jsonschema installed, or why there is none; MNEMO_TEST_PYTHON_SDK
 * names a python that has them instead. Made once per python and package list, in the user's
 * cache folder (XDG_CACHE_HOME or ~/.cache, `mnemo-tests/`), as pip and npm keep theirs: each
 * run and both client test files use it, instead of about 15 s of CPU for a venv each. It is
 * made under a temp name and renamed into place whole, so a run never sees half of one, and
 * two runs making it at once both end with a whole one. MNEMO_TEST_PYTHON_FRESH=1 makes it
 * again (a newer SDK of the same line). `root` is where one is made when no cache folder can be.
 */
export async function sdkVenv(root: string): Promise<Python> {
  const given = process.env.MNEMO_TEST_PYTHON_SDK;
  if (given) return { python: given };
  const system = await systemPython();
  if ('skip' in system) return system;
  const version = await run(
    'python3',
    ['-c', 'import sys; print(sys.version)'],
    childEnv(),
    30_000,
  );
  const key = createHash('sha256')
    .update(`${version.stdout.trim()}\n${PACKAGES.join('\n')}`)
    .digest('hex')
    .slice(0, 16);
  const cache = cacheFolder();
  const kept = cache ? path.join(cache, `python-sdk-${key}`) : undefined;
  const python = (venv: string) => path.join(venv, 'bin', 'python');
  if (kept && process.env.MNEMO_TEST_PYTHON_FRESH !== '1' && fs.existsSync(python(kept))) {
    return { python: python(kept) };
  }
  const building = cache ? fs.mkdtempSync(path.join(cache, 'making-')) : root;
  const made = await makeVenv(path.join(building, 'venv'));
  if ('skip' in made || !kept) return made;
  const fresh = path.join(building, 'venv');
  try {
    if (process.env.MNEMO_TEST_PYTHON_FRESH === '1') {
      fs.rmSync(kept, { recursive: true, force: true });
    }
    fs.renameSync(fresh, kept);
  } catch {
    // Another run put a whole one there first: that one is used, this one dropped.
  }
  fs.rmSync(building, { recursive: true, force: true });
  return fs.existsSync(python(kept)) ? { python: python(kept) } : made;
}

/** The cache folder of these tests, made if missing; undefined where none can be. */
function cacheFolder(): string | undefined {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  const folder = path.join(base, 'mnemo-tests');
  try {
    fs.mkdirSync(folder, { recursive: true });
    return folder;
  } catch {
    return undefined;
  }
}

/** `python3 -m venv` at `venv` and a pip install of the packages into it, or why not. */
async function makeVenv(venv: string): Promise<Python> {
  const made = await run('python3', ['-m', 'venv', venv], childEnv(), 120_000);
  if (made.code !== 0) return { skip: `python3 -m venv failed: ${lastLine(made.stderr)}` };
  const python = path.join(venv, 'bin', 'python');
  // pip's own settings (index, wheels) come from the environment and its config files. An index
  // that cannot be reached is not retried: it fails the install, and the tests skip.
  const pipEnv = { ...process.env, PIP_RETRIES: process.env.PIP_RETRIES ?? '0' };
  const installed = await run(
    python,
    ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', ...PACKAGES],
    pipEnv,
    600_000,
  );
  if (installed.code !== 0) {
    return { skip: `pip install ${PACKAGES.join(' ')} failed: ${lastLine(installed.stderr)}` };
  }
  return { python };
}

export function usable(t: TestContext, python: Python | undefined): string | undefined {
  if (python === undefined) throw new Error('before() did not run');
  if ('skip' in python) {
    t.skip(python.skip);
    return undefined;
  }
  return python.python;
}
