// mnemo as an independent client sees it: the Python MCP SDK (`mcp` from the package index, in a
// venv this file makes) over stdio and streamable HTTP, in the SDK's 2026-07-28 mode and its legacy
// (initialize) mode; and hand-written requests from Python's standard library. The built CLI is run
// (`npm run build` first). Without python3, or when the venv or `pip install` fails (no index),
// the tests skip saying why; a call that fails, fails them.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CLI_PATH, makeTempDir, removeDir } from '../e2e/helpers.js';
import { startServe } from '../e2e/serve-process.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/python/', import.meta.url));
const SDK_CLIENT = path.join(FIXTURES, 'mnemo_client.py');
const RAW_CLIENT = path.join(FIXTURES, 'raw_requests.py');
/** The SDK line whose `mode=` chooses the revision (2.x); jsonschema for the explicit check. */
const PACKAGES = ['mcp>=2.3,<3', 'jsonschema>=4'];
const TOKEN = 'python-client-token-0123456789';
const MODERN = '2026-07-28';
/** One client run, mnemo's start included; the scripts give each call 30 s. */
const RUN_MS = 120_000;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end (killed past `timeoutMs`), whatever its exit code. */
function run(
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

const lastLine = (text: string) => text.trim().split('\n').at(-1) ?? '';

/** A clear failure: the script's reason, not only its exit code. */
function summaryOf(ran: Ran, what: string): Record<string, unknown> {
  const reason = ran.stderr.includes('FAILED:')
    ? ran.stderr.slice(ran.stderr.indexOf('FAILED:'))
    : ran.stderr.slice(-4000);
  assert.equal(ran.code, 0, `${what} failed:\n${reason}`);
  return JSON.parse(lastLine(ran.stdout)) as Record<string, unknown>;
}

/** Where mnemo and the scripts run: nothing of this process's MNEMO_* settings leaks in. */
const childEnv = (): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  LANG: 'C.UTF-8',
  PYTHONDONTWRITEBYTECODE: '1',
  MNEMO_LOG_LEVEL: 'warn',
  // cluster_memories compares meanings: the bundled static model, no download.
  MNEMO_EMBEDDINGS: 'static',
  MNEMO_RATE_LIMIT: '0',
});

type Python = { python: string } | { skip: string };

/** python3 on PATH, or why not. */
async function systemPython(): Promise<Python> {
  const ran = await run('python3', ['--version'], childEnv(), 30_000);
  return ran.code === 0
    ? { python: 'python3' }
    : { skip: `no python3 here: ${lastLine(ran.stderr)}` };
}

/** A venv under `root` with the SDK and jsonschema installed, or why there is none. */
async function sdkVenv(root: string): Promise<Python> {
  const system = await systemPython();
  if ('skip' in system) return system;
  const venv = path.join(root, 'venv');
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

function usable(t: TestContext, python: Python | undefined): string | undefined {
  if (python === undefined) throw new Error('before() did not run');
  if ('skip' in python) {
    t.skip(python.skip);
    return undefined;
  }
  return python.python;
}

const stdioCommand = (dataDir: string) => [
  '--stdio',
  '--',
  process.execPath,
  CLI_PATH,
  'stdio',
  '--data-dir',
  dataDir,
];

describe('the Python MCP SDK as a client of mnemo', { timeout: 15 * 60_000 }, () => {
  let root: string;
  let sdk: Python | undefined;
  let plain: Python | undefined;
  before(async () => {
    root = makeTempDir('mnemo-python-');
    [sdk, plain] = await Promise.all([sdkVenv(root), systemPython()]);
  });
  after(() => removeDir(root));

  /** Runs `script` against a fresh `mnemo stdio` (the script starts it) or `mnemo serve`. */
  async function against(
    transport: 'stdio' | 'http',
    python: string,
    script: string,
    args: string[],
  ): Promise<Ran> {
    const dataDir = makeTempDir('mnemo-python-data-');
    try {
      if (transport === 'stdio') {
        return await run(python, [script, ...args, ...stdioCommand(dataDir)], childEnv(), RUN_MS);
      }
      const serve = await startServe(dataDir, { ...childEnv(), MNEMO_AUTH_TOKEN: TOKEN });
      try {
        const env = { ...childEnv(), MNEMO_TEST_TOKEN: TOKEN };
        const ran = await run(python, [script, ...args, '--url', serve.url], env, RUN_MS);
        assert.ok(serve.alive(), `mnemo serve died under the client:\n${serve.stderr()}`);
        return ran;
      } finally {
        await serve.stop();
      }
    } finally {
      removeDir(dataDir);
    }
  }

  for (const transport of ['stdio', 'http'] as const) {
    for (const mode of [MODERN, 'legacy'] as const) {
      it(`${mode} over ${transport}: every tool's structuredContent matches its outputSchema; resources, prompts, completion, logging`, async (t) => {
        const python = usable(t, sdk);
        if (!python) return;
        const ran = await against(transport, python, SDK_CLIENT, ['--mode', mode]);
        const summary = summaryOf(ran, `the Python SDK in ${mode} mode over ${transport}`);
        assert.equal(summary.protocol_version, mode === MODERN ? MODERN : '2025-11-25');
        assert.equal(
          (summary.validated as string[]).length,
          summary.tools,
          JSON.stringify(summary),
        );
        assert.ok((summary.tools as number) > 0);
      });
    }
  }

  for (const transport of ['stdio', 'http'] as const) {
    it(`a hand-written ${MODERN} tools/call needs no handshake over ${transport}; server/discover lists it`, async (t) => {
      const python = usable(t, plain);
      if (!python) return;
      const ran = await against(transport, python, RAW_CLIENT, ['--revision', MODERN]);
      const summary = summaryOf(ran, `a raw ${MODERN} exchange over ${transport}`);
      assert.match(String(summary.memory_id), /\S/);
    });

    it(`a hand-written 2025-06-18 initialize is answered at 2025-06-18 over ${transport}, then calls work`, async (t) => {
      const python = usable(t, plain);
      if (!python) return;
      const ran = await against(transport, python, RAW_CLIENT, ['--revision', '2025-06-18']);
      const summary = summaryOf(ran, `a raw 2025-06-18 exchange over ${transport}`);
      assert.equal(summary.protocol_version, '2025-06-18');
    });
  }
});
