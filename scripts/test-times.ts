// Where `npm test`'s time goes: runs each test file on its own (as the runner does, one process
// a file) and lists the slowest by wall time, with the CPU time each took (user + system, its
// children included) and the load average before and after.
//
//   node --import tsx scripts/test-times.ts [--jobs N] [--top N] [--json FILE] [file or folder...]
//
// With --jobs 1 (the default) the files run one after another, so a file's wall time is its own;
// with more, they overlap (faster, but each file's wall time then includes waiting for the CPU).
// Each runs as `npm test` runs it: node's runner over the compiled mirror of the checkout
// (scripts/test-build.ts); MNEMO_TEST_TSX=1 runs the TypeScript under tsx instead.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { mirrorForTests } from './test-build.js';

interface FileTime {
  file: string;
  wallMs: number;
  cpuMs: number;
  ok: boolean;
}

function* testFiles(at: string): Generator<string> {
  if (at.endsWith('.test.ts')) {
    yield at;
    return;
  }
  for (const entry of readdirSync(at, { withFileTypes: true })) {
    const full = path.join(at, entry.name);
    if (entry.isDirectory()) yield* testFiles(full);
    else if (entry.name.endsWith('.test.ts')) yield full;
  }
}

/** Runs one file under bash's `time`, which counts the CPU of the whole process tree it waited for. */
function timeFile(file: string, mirror: string | undefined): Promise<FileTime> {
  return new Promise((resolve) => {
    // `time` reports after the command, and its status is the command's: printed after it.
    const node = mirror ? 'node --enable-source-maps' : 'node --import tsx';
    const script = `TIMEFORMAT='%R %U %S'; { time ${node} --test "$1" >/dev/null 2>&1; } 2>&1; echo " $?"`;
    const target = mirror ? file.replace(/\.ts$/, '.js') : file;
    const child = spawn('bash', ['-c', script, 'bash', target], {
      stdio: ['ignore', 'pipe', 'inherit'],
      ...(mirror ? { cwd: mirror } : {}),
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('close', () => {
      const [real = 0, user = 0, sys = 0, status = 1] = out
        .trim()
        .split(/\s+/)
        .slice(-4)
        .map(Number);
      resolve({ file, wallMs: real * 1000, cpuMs: (user + sys) * 1000, ok: status === 0 });
    });
  });
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      jobs: { type: 'string', default: '1' },
      top: { type: 'string', default: '25' },
      json: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(
      'usage: node --import tsx scripts/test-times.ts [--jobs N] [--top N] [--json FILE] [file or folder...]',
    );
    return;
  }
  const files = (positionals.length > 0 ? positionals : ['test']).flatMap((p) => [...testFiles(p)]);
  files.sort();
  const jobs = Math.max(1, Number(values.jobs));
  const mirror =
    process.env.MNEMO_TEST_TSX === '1'
      ? undefined
      : mkdtempSync(path.join(tmpdir(), 'mnemo-times-'));
  if (mirror) await mirrorForTests(process.cwd(), mirror);
  const startLoad = load();
  const started = performance.now();
  const times: FileTime[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(jobs, files.length) }, async () => {
      for (let i = next++; i < files.length; i = next++) {
        const file = files[i] as string;
        const time = await timeFile(file, mirror);
        times.push(time);
        process.stderr.write(
          `${fmt(time.wallMs).padStart(8)} ${fmt(time.cpuMs).padStart(8)}  ${file}\n`,
        );
      }
    }),
  );
  if (mirror) rmSync(mirror, { recursive: true, force: true });
  const wall = performance.now() - started;
  times.sort((a, b) => b.wallMs - a.wallMs);
  const cpu = times.reduce((sum, t) => sum + t.cpuMs, 0);
  const top = Number(values.top);
  console.log(`${files.length} files, ${jobs} at a time: wall ${fmt(wall)}, CPU ${fmt(cpu)}`);
  console.log(`load average before: ${startLoad}; after: ${load()}`);
  console.log('\n    wall      CPU  file');
  for (const t of times.slice(0, top)) {
    console.log(
      `${fmt(t.wallMs).padStart(8)} ${fmt(t.cpuMs).padStart(8)}  ${t.file}${t.ok ? '' : '  (failed)'}`,
    );
  }
  const byFolder = new Map<string, { wall: number; cpu: number; n: number }>();
  for (const t of times) {
    const folder = path.dirname(t.file);
    const f = byFolder.get(folder) ?? { wall: 0, cpu: 0, n: 0 };
    byFolder.set(folder, { wall: f.wall + t.wallMs, cpu: f.cpu + t.cpuMs, n: f.n + 1 });
  }
  console.log('\n    wall      CPU  files  folder');
  for (const [folder, f] of [...byFolder].sort((a, b) => b[1].wall - a[1].wall)) {
    console.log(
      `${fmt(f.wall).padStart(8)} ${fmt(f.cpu).padStart(8)}  ${String(f.n).padStart(5)}  ${folder}`,
    );
  }
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ wall, cpu, times }, null, 1)}\n`);
}

await main();
