// The embeddings half of `npm run bench` (issue 5): throughput of `mnemo reindex`, the size of
// the vectors sidecar, and search and save latency with vectors, over MCP; from 50,000 vectors on
// (issue 24) the approximate index too: its build in the background, its file, and its recall@10
// against the exact search, measured in this process over the same vectors.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { ANN_FILE, AnnIndex } from '../src/search/ann-index.js';
import { loadEmbeddings } from '../src/search/embeddings.js';
import { modelDefaults } from '../src/search/model-defaults.js';
import { VectorIndex } from '../src/search/vector-index.js';
import { dequantise } from '../src/search/vector-quantise.js';
import { JsonlVectorStore, VECTORS_FILE } from '../src/storage/jsonl/vectors.js';
import { ServerSession } from './lib/client.js';
import { mb, ms } from './lib/format.js';
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
  /** Saves of texts close in meaning to nothing stored (NOVEL_TEXTS): most of a user's saves. */
  novelSave: Summary;
  peakRssMb: number;
  /** The approximate index, when the store is large enough to have one. */
  ann?: AnnBenchResult;
}

export interface AnnBenchResult {
  /** From the vectors loaded (backlog 0) to the index covering them all, in the server. */
  buildSeconds: number;
  fileBytes: number;
  /**
   * Of the approximate index's top 10 against the exact search's, over the bench's queries: the
   * share of its hits at least as close as the exact 10th (ties count either way).
   */
  recallAt10: number;
  /** The same, above the model's similarity threshold (the hits search_memory gets). */
  recallAt10Threshold: number;
  /** Searches (of both passes) the exact search answered: too few candidates passed. */
  exactAnswers: number;
  queries: number;
}

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 50));
}

/**
 * Texts close in meaning to nothing a bench store holds: the fact eval's sentences ("Mei moved to
 * Austin."), where the store's LoCoMo turns are recombined, so a save of one of those has
 * near-duplicates at hand. Both kinds are timed: a save's lookups by meaning cost most when
 * nothing is close (ann-depth.ts).
 */
export function novelTexts(n: number): string[] {
  const file = path.join(import.meta.dirname, 'data/facts-eval.jsonl');
  const pairs = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { old: string; new: string });
  return [...new Set(pairs.flatMap((p) => [p.old, p.new]))].slice(0, n);
}

export async function semanticBench(options: {
  memories: number;
  texts: readonly string[];
  saves: readonly string[];
  novelSaves: readonly string[];
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
    let closed = false;
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
      // And with the approximate index built, for a store that has one (built in the background).
      const loadedAt = performance.now();
      let hasAnn = false;
      await until(async () => {
        const { structured } = await session.call('memory_stats', {});
        const e = structured.embeddings as { vectors: number; ann?: { indexed: number } };
        hasAnn = e.ann !== undefined;
        return !e.ann || e.ann.indexed >= e.vectors;
      });
      const buildSeconds = (performance.now() - loadedAt) / 1000;
      const searches: number[] = [];
      for (const query of queries) searches.push(await session.time('search_memory', { query }));
      const saves: number[] = [];
      for (const content of options.saves) {
        saves.push(await session.time('save_memory', { content }));
      }
      const novelSaves: number[] = [];
      for (const content of options.novelSaves) {
        novelSaves.push(await session.time('save_memory', { content }));
      }
      const peakRssMb = session.peakRssMb();
      closed = true;
      await session.close();
      const ann = hasAnn ? await annRecall(dir, queries, buildSeconds) : undefined;
      return {
        ...(ann ? { ann } : {}),
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
        novelSave: summarize(novelSaves),
        peakRssMb,
      };
    } finally {
      if (!closed) await session.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * recall@10 of vectors.ann (as the server left it) against the exact search, over the vectors
 * the server stored and the queries embedded by the same model.
 */
export async function annRecall(
  dir: string,
  queries: readonly string[],
  buildSeconds: number,
  /** The graph's beam, when not the server's own (an experiment). */
  expansionSearch?: number,
): Promise<AnnBenchResult> {
  const logger = pino({ level: 'warn' }, pino.destination(2));
  const provider = await loadEmbeddings('static', { cacheDir: path.join(dir, 'models'), logger });
  if (!provider) throw new Error('the static model did not load: no recall to measure');
  const store = new JsonlVectorStore(path.join(dir, VECTORS_FILE), logger);
  const latest = new Map<string, { hash: string; vector: Float32Array }>();
  await store.load((stored) => {
    if (stored.model !== provider.id) return;
    const vector = dequantise(stored, provider.dimensions);
    if (vector) latest.set(stored.id, { hash: stored.hash, vector });
  });
  await store.close();
  const vectors = new VectorIndex(provider.dimensions, latest.size);
  for (const [id, { vector }] of latest) vectors.set(id, vector);
  const ann = new AnnIndex(
    {
      model: provider.id,
      dimensions: provider.dimensions,
      get size() {
        return vectors.size;
      },
      ids: () => vectors.idList(),
      hashOf: (id) => latest.get(id)?.hash,
      has: (id) => vectors.has(id),
      similarity: (id, query) => vectors.similarity(id, query),
      copyVector: (id, out, offset) => vectors.copyInto(id, out, offset),
    },
    { dataDir: dir, logger, ...(expansionSearch ? { expansionSearch } : {}) },
  );
  try {
    await ann.open();
    if (ann.status()?.state !== 'ready') throw new Error(`${ANN_FILE} was not usable`);
    const threshold = modelDefaults(provider.id).similarity;
    const embedded = await provider.embed(queries);
    let exactAnswers = 0;
    const recallAbove = async (minSim: number) => {
      let found = 0;
      let wanted = 0;
      for (const query of embedded) {
        const approx = await ann.search(query, minSim, 10);
        const exact = await vectors.search(query, minSim, 10);
        // Too few of the graph's candidates above the threshold: the exact search answers.
        if (!approx) {
          exactAnswers++;
          found += exact.ids.length;
          wanted += exact.ids.length;
          continue;
        }
        // By score, not id: LoCoMo texts recombined repeat (a quarter of them at 30,000), and of
        // equal vectors either id is a right answer.
        const kth = (exact.sims[exact.sims.length - 1] ?? 0) - 1e-6;
        wanted += exact.ids.length;
        found += Math.min(exact.ids.length, approx.sims.filter((sim) => sim >= kth).length);
      }
      return wanted === 0 ? 1 : found / wanted;
    };
    return {
      buildSeconds,
      fileBytes: sizeOf(path.join(dir, ANN_FILE)),
      recallAt10: await recallAbove(-1),
      recallAt10Threshold: await recallAbove(threshold),
      queries: embedded.length,
      exactAnswers,
    };
  } finally {
    ann.close();
  }
}

const sizeOf = (file: string) => fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;

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
    `| save_memory p50 / p99, a text close to nothing stored (${r.novelSave.n} of the fact eval's sentences) | ${ms(r.novelSave.p50)} / ${ms(r.novelSave.p99)} ms |`,
    `| peak RSS | ${r.peakRssMb.toFixed(0)} MB |`,
    ...(r.ann
      ? [
          `| approximate index: build in the background / vectors.ann | ${r.ann.buildSeconds.toFixed(1)} s / ${mb(r.ann.fileBytes)} MB |`,
          `| recall@10 against the exact search (all / above the threshold, ${r.ann.queries} queries) | ${r.ann.recallAt10.toFixed(3)} / ${r.ann.recallAt10Threshold.toFixed(3)} |`,
        ]
      : []),
  ].join('\n');
}
