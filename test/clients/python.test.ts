// mnemo as an independent client sees it: the Python MCP SDK (`mcp` from the package index, in a
// venv this file makes) over stdio and streamable HTTP, in the SDK's 2026-07-28 mode and its legacy
// (initialize) mode; and hand-written requests from Python's standard library. The built CLI is run
// (`npm run build` first). Without python3, or when the venv or `pip install` fails (no index),
// the tests skip saying why; a call that fails, fails them.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CLI_PATH, makeTempDir, removeDir } from '../e2e/helpers.js';
import { type ServeProcess, startServe } from '../e2e/serve-process.js';
import {
  childEnv,
  lastLine,
  type Python,
  type Ran,
  run,
  sdkVenv,
  summaryOf,
  systemPython,
  usable,
} from './support-python.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/python/', import.meta.url));
const SDK_CLIENT = path.join(FIXTURES, 'mnemo_client.py');
const RAW_CLIENT = path.join(FIXTURES, 'raw_requests.py');
const TOKEN = 'python-client-token-0123456789';
const MODERN = '2026-07-28';
/** One client run, mnemo's start included; the scripts give each call 30 s. */
const RUN_MS = 120_000;

/** The SDK's runs: over each transport, in each mode. */
const SDK_RUNS = (['stdio', 'http'] as const).flatMap((transport) =>
  ([MODERN, 'legacy'] as const).map((mode) => [transport, mode] as const),
);

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

  /**
   * The four SDK runs (each against a fresh mnemo of its own), made by one python in turn: its
   * import of the SDK, about a second of CPU, is paid once. Made when a test first asks; each
   * test reads its own run, as the run of a python of its own would have ended.
   */
  let sdkRuns: Promise<Map<string, Ran>> | undefined;
  async function sdkBatch(python: string): Promise<Map<string, Ran>> {
    const runs = SDK_RUNS.map(([transport, mode]) => ({
      transport,
      mode,
      dataDir: makeTempDir('mnemo-python-data-'),
    }));
    const serves = new Map<string, ServeProcess>();
    try {
      const argvs: string[][] = [];
      for (const { transport, mode, dataDir } of runs) {
        if (transport === 'stdio') {
          argvs.push(['--mode', mode, ...stdioCommand(dataDir)]);
          continue;
        }
        const serve = await startServe(dataDir, { ...childEnv(), MNEMO_AUTH_TOKEN: TOKEN });
        serves.set(`${transport} ${mode}`, serve);
        argvs.push(['--mode', mode, '--url', serve.url]);
      }
      const env = { ...childEnv(), MNEMO_TEST_TOKEN: TOKEN };
      const ran = await run(
        python,
        [SDK_CLIENT, '--batch', JSON.stringify(argvs)],
        env,
        RUN_MS * runs.length,
      );
      let outcomes: ({ summary: unknown } | { failed: string })[] = [];
      try {
        if (ran.code === 0) outcomes = JSON.parse(lastLine(ran.stdout));
      } catch {}
      const byRun = new Map<string, Ran>();
      runs.forEach(({ transport, mode }, i) => {
        const outcome = outcomes[i];
        const serve = serves.get(`${transport} ${mode}`);
        const died =
          serve && !serve.alive() ? `mnemo serve died under the client:\n${serve.stderr()}` : '';
        byRun.set(
          `${transport} ${mode}`,
          outcome === undefined
            ? ran
            : 'failed' in outcome || died
              ? {
                  code: 1,
                  stdout: '',
                  stderr: `FAILED: ${'failed' in outcome ? outcome.failed : died}`,
                }
              : { code: 0, stdout: JSON.stringify(outcome.summary), stderr: ran.stderr },
        );
      });
      return byRun;
    } finally {
      await Promise.all([...serves.values()].map((serve) => serve.stop()));
      for (const { dataDir } of runs) removeDir(dataDir);
    }
  }

  for (const [transport, mode] of SDK_RUNS) {
    it(`${mode} over ${transport}: every tool's structuredContent matches its outputSchema; resources, prompts, completion, logging`, async (t) => {
      const python = usable(t, sdk);
      if (!python) return;
      sdkRuns ??= sdkBatch(python);
      const ran = (await sdkRuns).get(`${transport} ${mode}`) as Ran;
      const summary = summaryOf(ran, `the Python SDK in ${mode} mode over ${transport}`);
      assert.equal(summary.protocol_version, mode === MODERN ? MODERN : '2025-11-25');
      assert.equal((summary.validated as string[]).length, summary.tools, JSON.stringify(summary));
      assert.ok((summary.tools as number) > 0);
    });
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
