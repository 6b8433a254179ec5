// `npm test`'s runner: node's own test runner over every test file, from a JavaScript mirror of
// the checkout (scripts/test-build.ts) rather than through tsx's hooks, several files at once.
//
//   node --import tsx scripts/test.ts [file or folder...]     (default: every test/**/*.test.ts)
//
// The output is the runner's own (TAP when not on a terminal), its summary last (tests, pass,
// fail, ...), and the exit code is the runner's. MNEMO_TEST_CONCURRENCY sets how many test files
// run at once (default: the cores, at least 2). More overlaps more waiting (child processes,
// disks, sockets), but two tests that bound a wait (test/e2e/sidecar-stop.test.ts's kill at the
// sidecar's write, test/gateway/hostile-upstream.test.ts's 10 s upstream start) failed with 3 and
// 4 at once on a 2-core machine whose load was past 14. MNEMO_TEST_TSX=1 runs the sources through
// tsx instead, one file at a time, as before.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mirrorForTests } from './test-build.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function* testFiles(at: string): Generator<string> {
  const stat = fs.statSync(at);
  if (!stat.isDirectory()) {
    yield at;
    return;
  }
  for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
    const full = path.join(at, entry.name);
    if (entry.isDirectory()) yield* testFiles(full);
    else if (entry.name.endsWith('.test.ts')) yield full;
  }
}

function concurrency(): number {
  const asked = process.env.MNEMO_TEST_CONCURRENCY;
  if (asked !== undefined && asked !== '') {
    const n = Number(asked);
    if (!Number.isInteger(n) || n < 1) {
      throw new Error(`MNEMO_TEST_CONCURRENCY must be a whole number >= 1, not "${asked}"`);
    }
    return n;
  }
  return Math.max(2, os.availableParallelism());
}

/** Runs node's test runner with `args` in `cwd`; resolves with its exit code. */
function runner(args: string[], cwd: string): Promise<number> {
  const child = spawn(process.execPath, args, { cwd, stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1));
    });
  });
}

/**
 * A test file that runs longer than this fails, named, instead of holding the run until CI's own
 * limit ends it with nothing said (the slowest file takes under a minute on a 2-core VM).
 */
const FILE_TIMEOUT_MS = 300_000;

async function main(): Promise<number> {
  const asked = process.argv.slice(2);
  const files = (asked.length > 0 ? asked : ['test'])
    .flatMap((at) => [...testFiles(path.resolve(ROOT, at))])
    .map((file) => path.relative(ROOT, file))
    .sort();
  if (files.length === 0) throw new Error(`no test files in ${asked.join(' ')}`);
  if (process.env.MNEMO_TEST_TSX === '1') {
    return runner(
      ['--import', 'tsx', '--test', `--test-timeout=${FILE_TIMEOUT_MS}`, ...files],
      ROOT,
    );
  }
  const mirror = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-tests-'));
  try {
    await mirrorForTests(ROOT, mirror);
    const compiled = files.map((file) => file.replace(/\.ts$/, '.js'));
    return await runner(
      [
        '--enable-source-maps',
        '--test',
        `--test-concurrency=${concurrency()}`,
        `--test-timeout=${FILE_TIMEOUT_MS}`,
        ...compiled,
      ],
      mirror,
    );
  } finally {
    fs.rmSync(mirror, { recursive: true, force: true });
  }
}

process.exitCode = await main();
