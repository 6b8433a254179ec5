// The stores part of `npm run bench`: mnemo and server-memory each on a pre-filled store, started
// on it as a user's client starts them, closed as that client closes them, started again.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CloseReport, ServerSession, type ServerSpec } from './client.js';
import { type Floor, measureFloor, pause } from './floor.js';
import { type Summary, summarize } from './percentile.js';
import { mnemoRecords, writeMnemoStore, writeServerMemoryStore } from './stores.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const MNEMO_CLI = path.join(ROOT, 'dist/cli.js');
const PEER_CLI = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');

type ToolCall = [tool: string, args: Record<string, unknown>];

/** How to run, fill and call one server. */
export interface Contender {
  name: string;
  spec(dir: string): ServerSpec;
  prefill(dir: string, texts: readonly string[]): void;
  save(text: string, i: number): ToolCall;
  search(query: string): ToolCall;
  /** A derived index the server writes beside its data (mnemo's sidecar). */
  sidecar?: string;
}

/**
 * The pause before each spaced save (not timed): an agent's saves come seconds apart, each after
 * the process has sat idle, which this stands for without making the run long.
 */
export const SPACED_GAP_MS = 20;

/**
 * mnemo, words alone as the peer; `profileDir` adds node's --cpu-prof into it; `cli` runs another
 * build (an A/B run against the unchanged one).
 */
export function mnemoContender(profileDir?: string, cli = MNEMO_CLI): Contender {
  const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  return {
    name: 'mnemo',
    spec: (dir) => ({
      command: process.execPath,
      args: [...profile, cli, 'stdio', '--data-dir', dir],
      env: { MNEMO_LOG_LEVEL: 'warn', MNEMO_EMBEDDINGS: 'off' },
    }),
    prefill: (dir, texts) =>
      writeMnemoStore(path.join(dir, 'memories.jsonl'), texts, Math.floor(Date.now() / 1000)),
    save: (text) => ['save_memory', { content: text }],
    search: (query) => ['search_memory', { query, top_k: 10 }],
    sidecar: 'memories.idx',
  };
}

export const serverMemory: Contender = {
  name: 'server-memory',
  spec: (dir) => ({
    command: process.execPath,
    args: [PEER_CLI],
    env: { MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') },
  }),
  prefill: (dir, texts) => writeServerMemoryStore(path.join(dir, 'memory.jsonl'), texts),
  save: (text, i) => [
    'create_entities',
    { entities: [{ name: `saved-${i}`, entityType: 'memory', observations: [text] }] },
  ],
  search: (query) => ['search_nodes', { query }],
};

export interface Workload {
  size: number;
  texts: readonly string[];
  saves: readonly string[];
  /** Other texts, saved one every SPACED_GAP_MS after the saves in a row. */
  spacedSaves: readonly string[];
  queries: readonly string[];
}

/** Saves that come apart, beside the floor measured with the same pauses. */
export interface SpacedSaves {
  gapMs: number;
  save: Summary;
  floor: Floor;
}

export interface ServerResult {
  size: number;
  server: string;
  /** The first start on the store, no sidecar: spawn to the first search's answer. */
  firstStartMs: number;
  firstPeakRssMb: number;
  /** The client's close of that first process, right after its first answer. */
  firstClose: CloseReport;
  /** Whether the sidecar was on disk once that process was gone (null: the server has none). */
  sidecarLeft: boolean | null;
  /** The start after it: spawn to the end of initialize, spawn to the first search's answer. */
  spawnToInitMs: number;
  nextStartMs: number;
  search: Summary;
  save: Summary;
  /** Of the start after the first, through its searches and saves. */
  peakRssMb: number;
  /** The close of that second process, after its calls. */
  nextClose: CloseReport;
  /** Measured just before this server, in the same folder's filesystem. */
  floor: Floor;
  /** Saves one every SPACED_GAP_MS, after the others (runs from before issue 24's saves: none). */
  spaced?: SpacedSaves;
}

async function timeAll(
  session: ServerSession,
  calls: readonly ToolCall[],
  gapMs = 0,
): Promise<number[]> {
  const out: number[] = [];
  for (const [tool, args] of calls) {
    await pause(gapMs);
    out.push(await session.time(tool, args));
  }
  return out;
}

/**
 * Fills a fresh store; measures the floor beside it; starts the server on it (no sidecar) up to
 * its first answer and closes it at once, as a user's client that asked one thing does, without
 * waiting for anything it writes; then starts it again and times its searches and saves.
 * `gentle` (for --profile) closes by ending stdin and waiting, so that profiles get written.
 */
export async function measure(
  contender: Contender,
  work: Workload,
  ops: number,
  gentle = false,
): Promise<ServerResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${contender.name}-`));
  try {
    contender.prefill(dir, work.texts);
    // All the save texts, not the `ops` this server gets: the floor is as steady for both.
    const saveLines = mnemoRecords(work.saves, Math.floor(Date.now() / 1000), 17);
    const lines = saveLines.map((r) => `${JSON.stringify(r)}\n`);
    const floor = await measureFloor(dir, lines);
    const spacedFloor = await measureFloor(dir, lines.slice(0, ops), SPACED_GAP_MS);
    const [firstTool, firstArgs] = contender.search(work.queries[0] as string);

    const first = await ServerSession.start(contender.spec(dir));
    let firstStartMs: number;
    let firstPeakRssMb: number;
    try {
      await first.time(firstTool, firstArgs);
      firstStartMs = first.sinceSpawnMs();
      firstPeakRssMb = first.peakRssMb();
    } catch (error) {
      await first.close();
      throw error;
    }
    const firstClose = await first.close({ gentle });
    const sidecarLeft = contender.sidecar ? fs.existsSync(path.join(dir, contender.sidecar)) : null;

    const next = await ServerSession.start(contender.spec(dir));
    let nextClosed = false;
    try {
      await next.time(firstTool, firstArgs);
      const nextStartMs = next.sinceSpawnMs();
      const searches = work.queries.slice(1, ops + 1).map((q) => contender.search(q));
      const saves = work.saves.slice(0, ops).map((t, i) => contender.save(t, i));
      const search = summarize(await timeAll(next, searches));
      const save = summarize(await timeAll(next, saves));
      const spacedCalls = work.spacedSaves.slice(0, ops).map((t, i) => contender.save(t, ops + i));
      const spacedSave = summarize(await timeAll(next, spacedCalls, SPACED_GAP_MS));
      const peakRssMb = next.peakRssMb();
      const nextClose = await next.close({ gentle });
      nextClosed = true;
      return {
        size: work.size,
        server: contender.name,
        firstStartMs,
        firstPeakRssMb,
        firstClose,
        sidecarLeft,
        spawnToInitMs: next.spawnToInitMs,
        nextStartMs,
        search,
        save,
        peakRssMb,
        nextClose,
        floor,
        spaced: { gapMs: SPACED_GAP_MS, save: spacedSave, floor: spacedFloor },
      };
    } finally {
      if (!nextClosed) await next.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
