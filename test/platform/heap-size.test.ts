import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  heapGrowingGiven,
  keepYoungHeapSmall,
  SMALL_LOG_BYTES,
  semiSpaceGiven,
  sizeHeap,
} from '../../src/platform/heap-size.js';

const MODULE = fileURLToPath(new URL('../../src/platform/heap-size.ts', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A store's files: a log of `logBytes` (sparse: its size is what counts), a sidecar or not. */
function store(logBytes: number, sidecar = true): { log: string; sidecar: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heap-size-'));
  dirs.push(dir);
  const files = { log: path.join(dir, 'memories.jsonl'), sidecar: path.join(dir, 'memories.idx') };
  fs.writeFileSync(files.log, '');
  fs.truncateSync(files.log, logBytes);
  if (sidecar) fs.writeFileSync(files.sidecar, 'x');
  return files;
}

/** The number a child node prints running `script` (an ES module, through tsx, no NODE_OPTIONS). */
function numberPrintedBy(script: string, nodeFlags: string[] = []): number {
  const out = execFileSync(
    process.execPath,
    [...nodeFlags, '--import', 'tsx', '--input-type=module', '-e', script],
    { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
  );
  return Number(out.trim());
}

/** The young generation's size (MB) after a child allocated a lot, keeping a tenth of it. */
function newSpaceMb(files: { log: string; sidecar: string } | undefined): number {
  const keep = files
    ? `const { keepYoungHeapSmall } = await import(${JSON.stringify(MODULE)});
       keepYoungHeapSmall(${JSON.stringify(files)}, { execArgv: [], nodeOptions: '' });`
    : '';
  const script = `${keep}
    const v8 = await import('node:v8');
    const kept = [];
    for (let i = 0; i < 2e6; i++) { const o = { a: i, b: 'x' + i }; if (i % 10 === 0) kept.push(o); }
    const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    console.log(space.space_size / 1048576);`;
  return numberPrintedBy(script);
}

describe('young heap', () => {
  it('keeps the young generation at its first size for a small store with a sidecar', () => {
    const kept = newSpaceMb(store(1000));
    const grown = newSpaceMb(undefined);
    assert.ok(kept <= 4, `new space ${kept} MB with the flag`);
    assert.ok(grown > kept, `new space ${grown} MB without it, ${kept} MB with it`);
  });

  it('leaves it alone for a large store, one without a sidecar, or a semi-space setting given to node', () => {
    const node = { execArgv: [], nodeOptions: undefined };
    assert.equal(keepYoungHeapSmall(store(SMALL_LOG_BYTES + 1), node), false, 'a large log');
    assert.equal(keepYoungHeapSmall(store(1000, false), node), false, 'no sidecar');
    const given = { execArgv: ['--max-semi-space-size=8'], nodeOptions: '' };
    assert.equal(keepYoungHeapSmall(store(1000), given), false, 'a setting given');
    const file = store(0).log;
    const under = { log: path.join(file, 'memories.jsonl'), sidecar: path.join(file, 'x.idx') };
    assert.equal(keepYoungHeapSmall(under, node), false, 'a data dir under a file');
    assert.equal(semiSpaceGiven([], '--max_semi_space_size=8 --enable-source-maps'), true);
    assert.equal(semiSpaceGiven(['--cpu-prof'], '--enable-source-maps'), false);
    assert.equal(semiSpaceGiven([], undefined), false);
  });
});

/**
 * The old generation's largest size over what is live in it, in a child that keeps 1,000,000
 * objects and replaces them one by one 8,000,000 times: each lives long enough to leave the young
 * generation and then dies, as the objects of many clients' calls do.
 */
function oldSpacePeakOverLive(): number {
  const script = `const { keepOldHeapNearLive } = await import(${JSON.stringify(MODULE)});
    if (!keepOldHeapNearLive({ execArgv: [] })) throw new Error('not set');
    const v8 = await import('node:v8');
    const old = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space');
    const ring = new Array(1000000);
    for (let i = 0; i < ring.length; i++) ring[i] = { i, s: 'x' + i };
    globalThis.gc();
    const live = old().space_used_size;
    let peak = 0;
    for (let i = 0; i < 8e6; i++) {
      ring[i % ring.length] = { i, s: 'y' + i };
      if (i % 20000 === 0) peak = Math.max(peak, old().space_size);
    }
    console.log(peak / live);`;
  return numberPrintedBy(script, ['--expose-gc']);
}

describe('old heap of a replica on PostgreSQL', () => {
  it('keeps the old generation near what is live while garbage comes and goes', () => {
    // 1.87 x here, idle or beside three busy processes; V8's own choice was 4.7-4.8 x in both.
    const ratio = oldSpacePeakOverLive();
    assert.ok(ratio > 0 && ratio < 2.5, `old space peaked at ${ratio.toFixed(2)} x what is live`);
  });

  it('is set for a database, the young one for a data dir, and neither over a setting given', () => {
    const files = store(1000);
    const node = { execArgv: ['--heap-growing-percent=80'], nodeOptions: '' };
    const database = { databaseUrl: 'postgres://db/mnemo', ...files };
    assert.equal(sizeHeap(database, node), undefined, 'a heap setting given to node');
    // (Sets the flag in this process too: it only makes full collections come sooner.)
    assert.equal(sizeHeap(database, { execArgv: [], nodeOptions: '' }), 'old');
    assert.equal(heapGrowingGiven(['--heap_growing_percent=80']), true);
    assert.equal(heapGrowingGiven(['--max-old-space-size=512']), false);
    // A database's replica never sizes the young generation, whatever its data dir holds.
    const young = { execArgv: [], nodeOptions: '--max-semi-space-size=8' };
    assert.equal(sizeHeap({ databaseUrl: undefined, ...files }, young), undefined);
  });
});
