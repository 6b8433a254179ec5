// The embeddings half of `npm run bench` (issue 5): throughput of `mnemo reindex`, the size of
// the vectors sidecar, and search and save latency at 100,000 memories with vectors, over MCP.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ServerSession } from './lib/client.js';
import { type Summary, summarize } from './lib/percentile.js';
import { writeMnemoStore } from './lib/stores.js';

const CLI = path.join(import.meta.dirname, '../dist/cli.js');

export interface SemanticBenchResult {
  model: string;
  memories: number;
  reindexSeconds: number;
  textsPerSecond: number;
  vectorsBytes: number;
  memoriesBytes: number;
  /** The snapshots reindex leaves at close: vectors.idx and memories.idx. */
  vectorsSidecarBytes: number;
  memoriesSidecarBytes: number;
  /** Spawn to the first search answer, vectors loaded from the sidecar. */
  coldStartMs: number;
  search: Summary;
  save: Summary;
  peakRssMb: number;
}

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 50));
}

export async function semanticBench(options: {
  memories: number;
  texts: readonly string[];
  saves: readonly string[];
  queries: readonly string[];
}): Promise<SemanticBenchResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-semantic-'));
  const env = { ...process.env, MNEMO_EMBEDDINGS: 'static', MNEMO_LOG_LEVEL: 'warn' };
  try {
    const now = Math.floor(Date.now() / 1000);
    writeMnemoStore(
      path.join(dir, 'memories.jsonl'),
      options.texts.slice(0, options.memories),
      now,
    );
    process.stderr.write(`semantic: mnemo reindex of ${options.memories} memories...\n`);
    const output = execFileSync(process.execPath, [CLI, 'reindex', '--data-dir', dir, '--json'], {
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const reindex = JSON.parse(output) as { model: string; embedded: number; seconds: number };

    const session = await ServerSession.start({
      command: process.execPath,
      args: [CLI, 'stdio', '--data-dir', dir],
      env: { MNEMO_EMBEDDINGS: 'static', MNEMO_LOG_LEVEL: 'warn' },
    });
    try {
      const [first, ...queries] = options.queries as [string, ...string[]];
      await session.time('search_memory', { query: first, top_k: 10 });
      const coldStartMs = session.sinceSpawnMs();
      // Measure with the model in use: the first searches may run before it is loaded.
      await until(async () => {
        const { structured } = await session.call('memory_stats', {});
        const e = structured.embeddings as { state: string; backlog: number };
        return e.state !== 'loading' && e.backlog === 0;
      });
      const searches: number[] = [];
      for (const query of queries) searches.push(await session.time('search_memory', { query }));
      const saves: number[] = [];
      for (const content of options.saves) {
        saves.push(await session.time('save_memory', { content }));
      }
      return {
        model: reindex.model,
        memories: options.memories,
        reindexSeconds: reindex.seconds,
        textsPerSecond: reindex.embedded / reindex.seconds,
        vectorsBytes: fs.statSync(path.join(dir, 'vectors.jsonl')).size,
        memoriesBytes: fs.statSync(path.join(dir, 'memories.jsonl')).size,
        vectorsSidecarBytes: sizeOf(path.join(dir, 'vectors.idx')),
        memoriesSidecarBytes: sizeOf(path.join(dir, 'memories.idx')),
        coldStartMs,
        search: summarize(searches),
        save: summarize(saves),
        peakRssMb: session.peakRssMb(),
      };
    } finally {
      await session.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const sizeOf = (file: string) => fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;

const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const mb = (bytes: number) => (bytes / 1024 ** 2).toFixed(1);

export function semanticReport(r: SemanticBenchResult): string {
  const n = r.memories.toLocaleString('en-US');
  return [
    `| embeddings (${r.model}), ${n} memories | figure |`,
    '|---|---|',
    `| mnemo reindex (every memory embedded) | ${r.reindexSeconds.toFixed(1)} s, ${Math.round(r.textsPerSecond).toLocaleString('en-US')} memories/s |`,
    `| vectors.jsonl (int8, base64) / memories.jsonl | ${mb(r.vectorsBytes)} MB / ${mb(r.memoriesBytes)} MB |`,
    `| vectors.idx / memories.idx (the snapshots a start reads) | ${mb(r.vectorsSidecarBytes)} MB / ${mb(r.memoriesSidecarBytes)} MB |`,
    `| spawn → first search answer | ${ms(r.coldStartMs)} ms |`,
    `| search_memory p50 / p99 (hybrid, ${r.search.n} queries) | ${ms(r.search.p50)} / ${ms(r.search.p99)} ms |`,
    `| save_memory p50 / p99 (embeds, lists similar_to) | ${ms(r.save.p50)} / ${ms(r.save.p99)} ms |`,
    `| peak RSS | ${r.peakRssMb.toFixed(0)} MB |`,
  ].join('\n');
}
