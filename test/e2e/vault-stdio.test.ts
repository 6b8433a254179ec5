import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support.js';
import { type CliClient, makeTempDir, removeDir, startClient } from './helpers.js';

describe('the vault over a real stdio session with the built CLI', () => {
  let dir: string;
  let c: CliClient;
  before(async () => {
    dir = makeTempDir();
    c = await startClient(dir);
  });
  after(async () => {
    await c.close();
    removeDir(dir);
  });

  it('finds a note written the moment the first promotion made the vault', async () => {
    const { memory_id } = await c.ok<{ memory_id: string }>('save_memory', {
      content: 'Deploys happen on Tuesdays',
    });
    await c.ok('promote_memory', { memory_id, force: true });
    fs.writeFileSync(path.join(dir, 'vault/Garden.md'), 'The tomatoes need water daily.');
    await eventually(async () => {
      const found = await c.ok<{ results: { path?: string }[] }>('search_unified', {
        query: 'tomatoes',
      });
      return found.results.some((r) => r.path === 'Garden.md');
    }, 'search_unified to find the note');
    assert.doesNotMatch(c.stderr(), /Garden|tomatoes/);
  });
});
