// What `npm test` does before the tests: the build, the type check and the lint, at once (they
// read the sources and write nothing the others read; the tests then run on the build). Each
// one's output is printed whole when it ends, in this order; any that fails fails the whole.
import { spawn } from 'node:child_process';

const STEPS = ['build:emit', 'typecheck', 'lint'];

interface Ended {
  step: string;
  code: number;
  output: string;
}

function run(step: string): Promise<Ended> {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', step], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => {
      output += chunk.toString('utf8');
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (error) => resolve({ step, code: 1, output: `${output}${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ step, code: code ?? (signal ? 1 : 0), output }));
  });
}

const ended = await Promise.all(STEPS.map(run));
for (const { step, code, output } of ended) {
  process.stdout.write(
    `> npm run ${step}${code === 0 ? '' : `: failed (exit ${code})`}\n${output}`,
  );
}
process.exitCode = ended.some((e) => e.code !== 0) ? 1 : 0;
