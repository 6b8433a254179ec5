import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./lock-race-child.ts', import.meta.url));

function contender(
  dir: string,
  rounds: number,
  dieAt: number,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CHILD, dir, String(rounds), String(dieAt)],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('DirLock across processes', () => {
  it('never has two holders, even while contenders die holding it and others take over', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-lock-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    // Eight die holding the lock, one after another; four must take over each time and finish.
    const dieAt = [10, 15, 20, 25, 30, 35, 40, 45, 0, 0, 0, 0];
    const results = await Promise.all(dieAt.map((at) => contender(dir, 150, at)));
    results.forEach(({ code, stderr }, i) => {
      // EEXIST on the holder file would mean two processes inside at once.
      assert.equal(code, dieAt[i] ? 3 : 0, `contender ${i} (${code}): ${stderr}`);
    });
    const entries = fs.readFileSync(path.join(dir, 'entries'), 'utf8').trim().split('\n');
    assert.equal(
      entries.length,
      dieAt.reduce((sum, at) => sum + (at || 150), 0),
    );
  });
});
