// `npm test`'s runner: node's own test runner over every test file, from a JavaScript mirror of
// the checkout (scripts/test-build.ts) rather than through tsx's hooks, several files at once.
//
//   node --import tsx scripts/test.ts [file or folder...]     (default: every test/**/*.test.ts)
//
// The output is the runner's own (TAP when not on a terminal) with its summary (tests, pass,
// fail, ...), and the exit code is the runner's. Off a terminal, the failed tests are named once
// more after that summary (scripts/test-failures-reporter.mjs), so the end of a CI log says what
// failed; on a terminal the runner's spec reporter does that itself.
//
// MNEMO_TEST_CONCURRENCY sets how many test files run at once (default: one more than the cores,
// at least 3): a test file waits part of its time (child processes starting and stopping, disks,
// sockets, a server's stop window), and the one more fills those waits with another file's work
// (on a 2-core VM, 2 at once left a fifth of the CPU idle: npm test's runner 114-116 s; 3 at once
// 103-105 s, near the CPU's floor). On a
// machine much busier than its cores, fewer wait less on each other: MNEMO_TEST_CONCURRENCY=2.
// MNEMO_TEST_TSX=1 runs the sources through tsx instead, one file at a time, as before. Whether
// the test database answers is asked once, before any test starts (test/support-pg.ts).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PROBED_ENV, probeDatabase, probedValue } from '../test/support-pg.js';
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
  return Math.max(3, os.availableParallelism() + 1);
}

/**
 * The reporter options for node's test runner: its default alone on a terminal; off one, TAP on
 * stdout and the failures reporter into `failuresFile`, printed once the runner is done.
 */
function reporters(failuresFile: string): string[] {
  if (process.stdout.isTTY) return [];
  const failures = path.join(ROOT, 'scripts', 'test-failures-reporter.mjs');
  return [
    '--test-reporter=tap',
    '--test-reporter-destination=stdout',
    `--test-reporter=${pathToFileURL(failures).href}`,
    `--test-reporter-destination=${failuresFile}`,
  ];
}

/** Runs node's test runner with `args` in `cwd`; resolves with its exit code. */
async function runner(args: string[], cwd: string): Promise<number> {
  const failuresFile = path.join(
    fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-test-failures-')),
    'failures.txt',
  );
  try {
    const code = await runnerProcess([...reporters(failuresFile), ...args], cwd);
    if (fs.existsSync(failuresFile)) process.stdout.write(fs.readFileSync(failuresFile, 'utf8'));
    return code;
  } finally {
    fs.rmSync(path.dirname(failuresFile), { recursive: true, force: true });
  }
}

function runnerProcess(args: string[], cwd: string): Promise<number> {
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
 * A test process that runs longer than this fails, named, instead of holding the run until CI's
 * own limit ends it with nothing said (the slowest takes about a minute on a 2-core VM).
 */
const FILE_TIMEOUT_MS = 600_000;

/**
 * Folders whose files each get a process of their own: long files that start the CLI, python
 * or a browser many times, which are better spread over the cores one by one.
 */
const ONE_PROCESS_A_FILE = new Set(['test/e2e', 'test/clients']);

/**
 * What the runner is given: the files of a folder in one process (a module that imports them
 * all, written into the mirror), which spares each file node's start and the load of mnemo's
 * modules (about 0.4 s of CPU a file, 160 files); the files of ONE_PROCESS_A_FILE, a file alone,
 * and MNEMO_TEST_ISOLATE=1 each file alone. Tests in one process still run one after another,
 * as in their files. The largest come first, so no long one starts last.
 */
function processesFor(files: string[], mirror: string): string[] {
  const byFolder = new Map<string, string[]>();
  for (const file of files) {
    const folder = path.dirname(file);
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), file]);
  }
  const jobs: { entry: string; weight: number }[] = [];
  const weight = (file: string) => fs.statSync(path.join(mirror, file)).size;
  for (const [folder, inFolder] of byFolder) {
    const alone =
      process.env.MNEMO_TEST_ISOLATE === '1' ||
      ONE_PROCESS_A_FILE.has(folder) ||
      inFolder.length === 1 ||
      folder === 'test';
    if (alone) {
      for (const file of inFolder) jobs.push({ entry: file, weight: weight(file) });
      continue;
    }
    const entry = path.join(folder, 'all-files.group.test.js');
    const imports = inFolder.map((file) => `import './${path.basename(file)}';\n`).join('');
    fs.writeFileSync(path.join(mirror, entry), imports);
    jobs.push({ entry, weight: inFolder.reduce((sum, file) => sum + weight(file), 0) });
  }
  return jobs.sort((a, b) => b.weight - a.weight).map((job) => job.entry);
}

async function main(): Promise<number> {
  const asked = process.argv.slice(2);
  const files = (asked.length > 0 ? asked : ['test'])
    .flatMap((at) => [...testFiles(path.resolve(ROOT, at))])
    .map((file) => path.relative(ROOT, file))
    .sort();
  if (files.length === 0) throw new Error(`no test files in ${asked.join(' ')}`);
  // Asked once, here, while nothing else runs; every test process inherits the answer.
  process.env[PROBED_ENV] ??= probedValue(await probeDatabase());
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
        ...processesFor(compiled, mirror),
      ],
      mirror,
    );
  } finally {
    fs.rmSync(mirror, { recursive: true, force: true });
  }
}

process.exitCode = await main();
