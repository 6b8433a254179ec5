// FIFOs named *.md planted in the vault of a running `mnemo stdio`: a blocking open of each held
// a libuv thread for good, so the index, every later file read and SIGTERM's shutdown waited.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { eventually } from '../support.js';
import { makeTempDir, removeDir, startClient } from './helpers.js';

/** Resolves with `promise`, or rejects once `ms` passed: a hang fails the test, never stalls it. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe('FIFOs in the vault of mnemo stdio', () => {
  it('neither hang the index nor a read of one, and SIGTERM still ends the server', async (t) => {
    const dir = makeTempDir();
    t.after(() => removeDir(dir));
    const vault = path.join(dir, 'vault');
    fs.mkdirSync(vault);
    execFileSync('mkfifo', [path.join(vault, 'at-start.md')]);
    const c = await startClient(path.join(dir, 'data'), { env: { MNEMO_VAULT_DIR: vault } });
    t.after(() => c.kill('SIGKILL'));
    await c.ok('search_unified', { query: 'anything' });
    // More than libuv's four threads.
    for (let i = 0; i < 6; i++) execFileSync('mkfifo', [path.join(vault, `pipe-${i}.md`)]);
    fs.writeFileSync(path.join(vault, 'after.md'), 'Written after the pipes: marmalade\n');
    const found = async () => {
      const answer = await c.ok<{ results: unknown[] }>('search_unified', { query: 'marmalade' });
      return answer.results.length > 0;
    };
    await eventually(found, 'the note written after the pipes to be indexed');
    await assert.rejects(
      within(c.client.readResource({ uri: 'mnemo://vault/pipe-0.md' }), 5000, 'reading a pipe'),
      /no note/,
    );
    await within(c.kill('SIGTERM'), 5000, 'SIGTERM to end the server');
  });
});
