// The floor under a save, measured in the same run as the saves: what a durable answered save
// cannot go below on this machine. A save is one MCP round trip and one append that reaches the
// disk before the answer, so the floor is a no-op round trip plus an append + fdatasync of a line
// of the same size, on the same filesystem (the tmpdir the stores live in). Beside it, the two in
// one: a round trip to a no-op tool that appends and fdatasyncs the line before it answers, as a
// save's sync comes, between round trips (an fdatasync back to back costs less than one after a
// round trip's wait).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ServerSession } from './client.js';
import { type Summary, summarize } from './percentile.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NOOP_SERVER = path.join(ROOT, 'bench/lib/noop-server.ts');

export interface Floor {
  /** Append of one line + fdatasync, per line, in ms. */
  fsync: Summary;
  /** One MCP tools/call round trip to a server that does nothing, in ms. */
  noop: Summary;
  /**
   * One round trip to the same server's tool that appends the line and fdatasyncs it before it
   * answers, in ms. Absent from the runs before it was measured.
   */
  durable?: Summary;
  /** The mean length in bytes of the lines appended. */
  lineBytes: number;
}

/** A pause between two calls of a spaced run, not timed. */
export const pause = (ms: number) =>
  ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve();

/**
 * Appends each line to a new file in `dir` and fdatasyncs it, timing each (after a pause of
 * `gapMs` when given, as spaced saves come); the file is removed.
 */
export async function fsyncFloor(
  dir: string,
  lines: readonly string[],
  gapMs = 0,
): Promise<Summary> {
  const file = path.join(dir, 'floor.jsonl');
  const fd = fs.openSync(file, 'wx');
  try {
    const times: number[] = [];
    for (const line of lines) {
      await pause(gapMs);
      const started = performance.now();
      fs.writeSync(fd, line);
      fs.fdatasyncSync(fd);
      times.push(performance.now() - started);
    }
    return summarize(times);
  } finally {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
  }
}

/**
 * Round trips to the no-op fixture server, after a few to warm it up (`gapMs` apart): one a line
 * to its no-op tool, then one a line to its tool that appends the line to a new file in `dir` and
 * fdatasyncs it (the file is removed).
 */
export async function noopFloor(
  dir: string,
  lines: readonly string[],
  gapMs = 0,
): Promise<{ noop: Summary; durable: Summary }> {
  const file = path.join(dir, 'floor-durable.jsonl');
  const session = await ServerSession.start({
    command: process.execPath,
    args: ['--import', 'tsx', NOOP_SERVER],
    env: { MNEMO_BENCH_FLOOR_FILE: file },
  });
  try {
    const timed = async (tool: string, args: (line: string) => Record<string, unknown>) => {
      for (const line of lines.slice(0, 5)) await session.time(tool, args(line));
      const times: number[] = [];
      for (const line of lines) {
        await pause(gapMs);
        times.push(await session.time(tool, args(line)));
      }
      return summarize(times);
    };
    const noop = await timed('noop', () => ({}));
    return { noop, durable: await timed('append', (line) => ({ line })) };
  } finally {
    await session.close();
    fs.rmSync(file, { force: true });
  }
}

/** The floor of saves that come `gapMs` apart (0: back to back), each part timed the same way. */
export async function measureFloor(
  dir: string,
  lines: readonly string[],
  gapMs = 0,
): Promise<Floor> {
  const lineBytes = lines.reduce((sum, line) => sum + Buffer.byteLength(line), 0) / lines.length;
  const fsync = await fsyncFloor(dir, lines, gapMs);
  return { fsync, ...(await noopFloor(dir, lines, gapMs)), lineBytes };
}

/** The floor at a percentile: a no-op round trip plus an append + fdatasync. */
export function floorAt(floor: Floor, p: 'p50' | 'p99'): number {
  return floor.fsync[p] + floor.noop[p];
}

/** `value` as a multiple of the floor at the same percentile. */
export function timesFloor(value: number, floor: Floor, p: 'p50' | 'p99'): number {
  return value / floorAt(floor, p);
}

/** `value` as a multiple of the durable no-op's round trip at the same percentile, if measured. */
export function timesDurable(value: number, floor: Floor, p: 'p50' | 'p99'): number | undefined {
  return floor.durable ? value / floor.durable[p] : undefined;
}
