import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { semiSpaceGiven } from '../../src/platform/young-heap.js';

const MODULE = fileURLToPath(new URL('../../src/platform/young-heap.ts', import.meta.url));
const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

/** The young generation's size (MB) after a child allocated a lot, keeping a tenth of it. */
function newSpaceMb(preload: string[]): number {
  const script = `
    const v8 = await import('node:v8');
    const keep = [];
    for (let i = 0; i < 2e6; i++) { const o = { a: i, b: 'x' + i }; if (i % 10 === 0) keep.push(o); }
    const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    console.log(space.space_size / 1048576);`;
  const out = execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      ...preload.flatMap((m) => ['--import', m]),
      '--input-type=module',
      '-e',
      script,
    ],
    { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
  );
  return Number(out.trim());
}

describe('young heap', () => {
  it('keeps the young generation at its first size once imported', () => {
    const kept = newSpaceMb([MODULE]);
    const grown = newSpaceMb([]);
    assert.ok(kept <= 4, `new space ${kept} MB with the flag`);
    assert.ok(grown > kept, `new space ${grown} MB without it, ${kept} MB with it`);
  });

  it('leaves a semi-space setting given to node alone', () => {
    assert.equal(semiSpaceGiven(['--max-semi-space-size=8'], undefined), true);
    assert.equal(semiSpaceGiven([], '--max_semi_space_size=8 --enable-source-maps'), true);
    assert.equal(semiSpaceGiven(['--cpu-prof'], '--enable-source-maps'), false);
    assert.equal(semiSpaceGiven([], undefined), false);
  });

  it('is the first import of the CLI entry, before the program is evaluated', () => {
    const firstImport = /^import .*$/m.exec(fs.readFileSync(CLI, 'utf8'))?.[0];
    assert.equal(firstImport, "import './platform/young-heap.js';");
  });
});
