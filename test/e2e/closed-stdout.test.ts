import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { INITIALIZE_REQUEST } from '../support.js';
import { CLI_PATH, makeTempDir, removeDir } from './helpers.js';

/** Runs mnemo with its stdout's reader gone (`mnemo stats | head -0`, a client that left). */
function runWithStdoutClosed(args: string[], stdinLines: string[] = []) {
  const child = spawn(process.execPath, [CLI_PATH, ...args], {
    env: { PATH: process.env.PATH ?? '', MNEMO_LOG_LEVEL: 'warn', MNEMO_EMBEDDINGS: 'off' },
  });
  // Closed before node has even started: every write mnemo makes to stdout meets EPIPE.
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
  });
  for (const line of stdinLines) child.stdin.write(`${line}\n`);
  return new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stderr })),
  );
}

describe('a reader of stdout that goes away', { timeout: 30_000 }, () => {
  const dir = makeTempDir();
  after(() => removeDir(dir));

  it('a one-shot command stops writing and exits with its own code, no stack trace', async () => {
    const { code, stderr } = await runWithStdoutClosed(['stats', '--json', '--data-dir', dir]);
    assert.doesNotMatch(stderr, /EPIPE|Unhandled|\n {4}at /);
    assert.equal(code, 0);
  });

  it('mnemo stdio takes it as the client leaving: it stops cleanly, exit 0', async () => {
    const { code, stderr } = await runWithStdoutClosed(
      ['stdio', '--data-dir', dir],
      [JSON.stringify(INITIALIZE_REQUEST), '{"jsonrpc":"2.0","id":2,"method":"ping"}'],
    );
    assert.doesNotMatch(stderr, /Unhandled|\n {4}at /);
    assert.equal(code, 0);
  });
});
