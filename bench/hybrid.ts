// The hybrid part of `npm run bench` (issue 24, "Meaning at 1M"): words and the static model's
// vectors over MCP stdio at a size where search by meaning asks the approximate index
// (vectors.ann). The first start embeds what is missing and builds the graph in the background
// (timed until the graph covers every vector); the next start finds the graph on disk, and its
// searches, peak RSS and the graph's recall@10 against the exact search (same queries, measured
// in this process over the vectors the server stored) are what the report gives.
//
// `--keep DIR` keeps the data dir between runs: a dir that already holds this size's store, its
// vectors and its graph skips the long first start (a million: about 10 minutes of embedding and
// 8 of graph building on the 2-core VM).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ANN_FILE } from '../src/search/ann-index.js';
import { ServerSession } from './lib/client.js';
import { ms } from './lib/format.js';
import { type Summary, summarize } from './lib/percentile.js';
import { writeMnemoStore } from './lib/stores.js';
import { type AnnBenchResult, annRecall } from './semantic.js';

const CLI = path.join(import.meta.dirname, '../dist/cli.js');
/** What a kept dir was made for: another size or text is made again. */
const MARK = 'hybrid-bench.json';
const ENV = { MNEMO_EMBEDDINGS: 'static', MNEMO_LOG_LEVEL: 'warn' };

export interface HybridBenchResult {
  memories: number;
  /** `mnemo reindex` of a new dir; null when a kept dir had its vectors already. */
  reindexSeconds: number | null;
  /** The first start: from the vectors loaded to the graph covering them; null when kept. */
  firstStartBuildSeconds: number | null;
  annBytes: number;
  /** The next start: spawn to the first search answer, and to the graph in use. */
  nextFirstSearchMs: number;
  nextAnnReadyMs: number;
  /** Of the vectors, the share the graph holds (the rest is compared exactly beside it). */
  annCoverage: number;
  search: Summary;
  /** The same queries before the graph was in use (exact vectors), for comparison. */
  exactSearch: Summary | null;
  peakRssMb: number;
  recall: AnnBenchResult;
}

interface Embeddings {
  state: string;
  backlog: number;
  vectors: number;
  ann?: { state: string; indexed: number };
}

async function embeddings(session: ServerSession): Promise<Embeddings> {
  const { structured } = await session.call('memory_stats', {});
  return structured.embeddings as Embeddings;
}

/**
 * How often the bench asks `memory_stats` whether the graph is in use: each answer at a million
 * memories reads every memory's columns (about 0.2 s of the server's CPU and its garbage), so
 * asking ten times a second measured the bench's own load (a next start 235 s to the graph).
 */
const POLL_MS = 1000;

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
}

/** Writes the store and embeds it, unless `dir` was made for this size and text already. */
function prepare(dir: string, size: number, texts: readonly string[]): number | null {
  const mark = path.join(dir, MARK);
  const wanted = JSON.stringify({ size, text: 'locomo' });
  if (fs.existsSync(mark) && fs.readFileSync(mark, 'utf8') === wanted) return null;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  writeMnemoStore(path.join(dir, 'memories.jsonl'), texts, Math.floor(Date.now() / 1000));
  process.stderr.write(`hybrid: mnemo reindex of ${size} memories...\n`);
  const output = execFileSync(process.execPath, [CLI, 'reindex', '--data-dir', dir, '--json'], {
    env: { ...process.env, ...ENV },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // reindex leaves the graph too: the first start is to build it, timed.
  fs.rmSync(path.join(dir, ANN_FILE), { force: true });
  fs.writeFileSync(mark, wanted);
  return (JSON.parse(output) as { seconds: number }).seconds;
}

const spawn = (dir: string, cli = CLI) =>
  ServerSession.start({
    command: process.execPath,
    args: [cli, 'stdio', '--data-dir', dir],
    env: ENV,
  });

/** The first start of a dir without a graph: the time to build it in the background. */
async function firstStart(dir: string, query: string, cli: string): Promise<number | null> {
  if (fs.existsSync(path.join(dir, ANN_FILE))) return null;
  process.stderr.write('hybrid: first start, building vectors.ann...\n');
  const session = await spawn(dir, cli);
  try {
    await session.time('search_memory', { query, top_k: 10 });
    await until(async () => {
      const e = await embeddings(session);
      return e.state !== 'loading' && e.backlog === 0;
    });
    const loadedAt = performance.now();
    // Ready: a graph in use and no build running (what it lacks, under 5%, is compared exactly).
    await until(async () => (await embeddings(session)).ann?.state === 'ready');
    return (performance.now() - loadedAt) / 1000;
  } finally {
    // Gently: the graph is on disk already (saved before it is used), nothing is waited for.
    await session.close();
  }
}

export async function hybridBench(options: {
  memories: number;
  texts: readonly string[];
  queries: readonly string[];
  keep?: string;
  /** The mnemo to run (default: this checkout's dist/cli.js), for an A/B on a kept dir. */
  cli?: string;
}): Promise<HybridBenchResult> {
  const cli = options.cli ?? CLI;
  const dir = options.keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'bench-hybrid-'));
  try {
    const reindexSeconds = prepare(dir, options.memories, options.texts);
    const [first, ...queries] = options.queries as [string, ...string[]];
    const firstStartBuildSeconds = await firstStart(dir, first, cli);
    process.stderr.write('hybrid: next start, the graph on disk...\n');
    const session = await spawn(dir, cli);
    let result: Omit<HybridBenchResult, 'recall' | 'annBytes'>;
    try {
      await session.time('search_memory', { query: first, top_k: 10 });
      const nextFirstSearchMs = session.sinceSpawnMs();
      await until(async () => (await embeddings(session)).state !== 'loading');
      // The searches the graph answers once it is in use; those before it, exact, for comparison.
      const early: number[] = [];
      let ready = false;
      let annCoverage = 0;
      let askedAt = Number.NEGATIVE_INFINITY;
      while (!ready) {
        if (performance.now() - askedAt >= POLL_MS) {
          askedAt = performance.now();
          const e = await embeddings(session);
          ready = e.ann?.state === 'ready';
          annCoverage = (e.ann?.indexed ?? 0) / Math.max(1, e.vectors);
          if (ready) break;
        }
        if (early.length < queries.length) {
          early.push(await session.time('search_memory', { query: queries[early.length] }));
        } else {
          await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        }
      }
      const nextAnnReadyMs = session.sinceSpawnMs();
      const searches: number[] = [];
      for (const query of queries) searches.push(await session.time('search_memory', { query }));
      result = {
        memories: options.memories,
        reindexSeconds,
        firstStartBuildSeconds,
        nextFirstSearchMs,
        nextAnnReadyMs,
        annCoverage,
        search: summarize(searches),
        exactSearch: early.length >= 10 ? summarize(early) : null,
        peakRssMb: session.peakRssMb(),
      };
    } finally {
      await session.close();
    }
    process.stderr.write(`hybrid over MCP: ${JSON.stringify(result)}\n`);
    const recall = await annRecall(dir, queries, firstStartBuildSeconds ?? 0);
    return { ...result, recall, annBytes: recall.fileBytes };
  } finally {
    if (!options.keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function hybridReport(r: HybridBenchResult): string {
  const n = r.memories.toLocaleString('en-US');
  const kept = 'kept dir: made in an earlier run';
  const rows = [
    `| hybrid (static model), ${n} memories | figure |`,
    '|---|---|',
    `| mnemo reindex (every memory embedded) | ${r.reindexSeconds === null ? kept : `${r.reindexSeconds.toFixed(1)} s`} |`,
    `| first start: vectors loaded → graph covers them (background) | ${r.firstStartBuildSeconds === null ? kept : `${r.firstStartBuildSeconds.toFixed(1)} s`} |`,
    `| vectors.ann / share of the vectors it holds | ${(r.annBytes / 1024 ** 2).toFixed(1)} MB / ${(r.annCoverage * 100).toFixed(1)}% |`,
    `| next start: spawn → first search / → graph in use | ${ms(r.nextFirstSearchMs)} / ${ms(r.nextAnnReadyMs)} ms |`,
    `| search_memory p50 / p99, graph in use (${r.search.n} queries) | ${ms(r.search.p50)} / ${ms(r.search.p99)} ms (target p50 20 ms: ${r.search.p50 <= 20 ? 'met' : '**NOT met**'}) |`,
    ...(r.exactSearch
      ? [
          `| search_memory p50 / p99 before the graph is in use (exact, ${r.exactSearch.n}) | ${ms(r.exactSearch.p50)} / ${ms(r.exactSearch.p99)} ms |`,
        ]
      : []),
    `| peak RSS, next start | ${r.peakRssMb.toFixed(0)} MB (target 1,536 MB: ${r.peakRssMb <= 1536 ? 'met' : '**NOT met**'}) |`,
    `| recall@10 against the exact search (all / above the threshold, ${r.recall.queries} queries) | ${r.recall.recallAt10.toFixed(3)} / ${r.recall.recallAt10Threshold.toFixed(3)} (target 0.95: ${r.recall.recallAt10 >= 0.95 ? 'met' : '**NOT met**'}); answered exactly: ${r.recall.exactAnswers} |`,
  ];
  return rows.join('\n');
}
