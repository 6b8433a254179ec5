import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closeKind } from '../../bench/lib/client.js';
import { type Floor, floorAt, timesDurable, timesFloor } from '../../bench/lib/floor.js';
import {
  callsTable,
  checkTargets,
  floorTable,
  spacedTable,
  storesMarkdown,
  targetsList,
} from '../../bench/lib/report.js';
import type { ServerResult } from '../../bench/lib/stores-bench.js';

const floor: Floor = {
  fsync: { n: 200, p50: 0.3, p99: 1.5 },
  noop: { n: 200, p50: 0.2, p99: 0.5 },
  lineBytes: 600,
};

function result(over: Partial<ServerResult>): ServerResult {
  const close = { kind: 'itself' as const, ms: 10, code: 0, signal: null };
  return {
    size: 100_000,
    server: 'mnemo',
    firstStartMs: 1_900,
    firstPeakRssMb: 240,
    firstClose: close,
    sidecarLeft: true,
    spawnToInitMs: 300,
    nextStartMs: 450,
    search: { n: 200, p50: 1.5, p99: 9 },
    save: { n: 200, p50: 0.9, p99: 19 },
    peakRssMb: 149,
    nextClose: close,
    floor,
    ...over,
  };
}

test('the floor is a no-op round trip plus an append + fdatasync, at the same percentile', () => {
  assert.equal(floorAt(floor, 'p50'), 0.5);
  assert.equal(floorAt(floor, 'p99'), 2);
  assert.equal(timesFloor(1, floor, 'p50'), 2);
  assert.equal(timesFloor(19, floor, 'p99'), 9.5);
});

test('closeKind tells the SDK close steps apart by signal and by time', () => {
  assert.equal(closeKind(null, 15), 'itself');
  assert.equal(closeKind('SIGTERM', 2_010), 'SIGTERM');
  // A process that handles SIGTERM exits with a code, after the SDK's 2 s.
  assert.equal(closeKind(null, 2_300), 'SIGTERM');
  assert.equal(closeKind('SIGKILL', 4_001), 'SIGKILL');
});

test('checkTargets checks mnemo against the issue 24 table, in ms, MB and multiples of the floor', () => {
  const met = checkTargets([result({}), result({ server: 'server-memory', nextStartMs: 9_999 })]);
  const at100k = met.filter((t) => t.label.startsWith('100,000'));
  assert.equal(at100k.length, 6);
  assert.ok(
    at100k.every((t) => t.met === true),
    targetsList(at100k),
  );
  assert.ok(met.filter((t) => t.label.startsWith('1,000,000')).every((t) => t.met === null));

  const missed = checkTargets([
    result({ nextStartMs: 501, save: { n: 200, p50: 1.01, p99: 21 }, peakRssMb: 151 }),
  ]);
  const failed = missed.filter((t) => t.met === false).map((t) => t.label);
  assert.deepEqual(failed, [
    '100,000: start after the closed one',
    '100,000: save p50',
    '100,000: save p99',
    '100,000: peak RSS',
  ]);
  assert.match(targetsList(missed), /save p50 <= 2 x floor: 2\.0 x floor, \*\*NOT met\*\*/);
});

test('spaced saves are shown beside the floor measured with the same pauses, and left out of old runs', () => {
  const spacedFloor: Floor = {
    fsync: { n: 200, p50: 0.5, p99: 2 },
    noop: { n: 200, p50: 0.5, p99: 3 },
    lineBytes: 600,
  };
  const spaced = result({
    spaced: { gapMs: 20, save: { n: 200, p50: 1.5, p99: 10 }, floor: spacedFloor },
  });
  const table = spacedTable([spaced, result({ server: 'server-memory' })]);
  assert.match(
    table,
    /\| 100,000 \| mnemo \| 20 ms \| 1\.50 \(1\.5x\) \| 10\.0 \(2\.0x\) \| 1\.00 \/ 5\.00 \|/,
  );
  assert.doesNotMatch(table, /server-memory/, 'a result without spaced saves has no row');
  const machine = { cpu: 'x', cores: 2, ramGb: 1, node: 'v20', os: 'linux' };
  const load = { start: '0', end: '0' };
  const old = storesMarkdown({ machine, text: 'locomo', load, results: [result({})] });
  assert.doesNotMatch(old, /spaced/);
  assert.match(storesMarkdown({ machine, text: 'locomo', load, results: [spaced] }), /spaced out/);
});

test('saves are shown beside the durable no-op when it was measured, a dash in older runs', () => {
  const durable = { ...floor, durable: { n: 200, p50: 0.6, p99: 2.5 } };
  const table = callsTable([result({ floor: durable }), result({ server: 'old run' })]);
  assert.equal(timesDurable(0.9, durable, 'p50'), 1.5);
  assert.equal(timesDurable(0.9, floor, 'p50'), undefined);
  assert.match(table, /\| 100,000 \| mnemo \|.*\| 1\.5x \/ 7\.6x \|/);
  assert.match(table, /\| 100,000 \| old run \|.*\| - \/ - \|/);
  assert.match(floorTable([result({ floor: durable })]), /\| 0\.60 \/ 2\.50 \| 600 \|/);
});
