// npm run bench [-- --sizes 1000,100000,1000000 --json FILE --ops 200 --parts stores,vault,semantic,import
//   --servers mnemo,server-memory]
// mnemo vs @modelcontextprotocol/server-memory over a real MCP stdio round trip (README, Benchmarks).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type ImportBenchResult, importBench, importReport } from './import.js';
import type { ServerSpec } from './lib/client.js';
import { ServerSession } from './lib/client.js';
import { buildVocabulary, ContentGenerator } from './lib/content.js';
import { summarize } from './lib/percentile.js';
import {
  checkTargets,
  machine,
  rebuildTable,
  resultsTable,
  type ServerResult,
  targetsList,
} from './lib/report.js';
import { writeMnemoStore, writeServerMemoryStore } from './lib/stores.js';
import { type SemanticBenchResult, semanticBench, semanticReport } from './semantic.js';
import { type VaultBenchResult, vaultBench, vaultReport } from './vault.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MNEMO_CLI = path.join(ROOT, 'dist/cli.js');
const PEER_CLI = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
/** server-memory rewrites and rereads its whole file on every call: fewer calls from here. */
const PEER_SLOW_SIZE = 100_000;
/** Above this, server-memory is not run: at a million it takes minutes a call and runs out of heap. */
const PEER_MAX_SIZE = 100_000;
const PEER_SLOW_OPS = 20;
/** Observations in the server-memory file the import part reads. */
const IMPORT_OBSERVATIONS = 100_000;

type ToolCall = [tool: string, args: Record<string, unknown>];

/** How to run, fill and call one server. */
interface Contender {
  name: string;
  spec(dir: string): ServerSpec;
  prefill(dir: string, texts: readonly string[]): void;
  save(text: string, i: number): ToolCall;
  search(query: string): ToolCall;
  /** A derived index the server writes beside its data after a first start (mnemo's sidecar). */
  sidecar?: string;
}

const mnemo: Contender = {
  name: 'mnemo',
  spec: (dir) => ({
    command: process.execPath,
    args: [MNEMO_CLI, 'stdio', '--data-dir', dir],
    // Words alone, as the peer: the embeddings part below measures them on their own.
    env: { MNEMO_LOG_LEVEL: 'warn', MNEMO_EMBEDDINGS: 'off' },
  }),
  prefill: (dir, texts) =>
    writeMnemoStore(path.join(dir, 'memories.jsonl'), texts, Math.floor(Date.now() / 1000)),
  save: (text) => ['save_memory', { content: text }],
  search: (query) => ['search_memory', { query, top_k: 10 }],
  sidecar: 'memories.idx',
};

const serverMemory: Contender = {
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

interface Workload {
  size: number;
  texts: readonly string[];
  saves: readonly string[];
  queries: readonly string[];
}

async function timeAll(session: ServerSession, calls: readonly ToolCall[]): Promise<number[]> {
  const out: number[] = [];
  for (const [tool, args] of calls) out.push(await session.time(tool, args));
  return out;
}

/**
 * A first start of a store that has no sidecar yet: its cold start, and the time until the
 * sidecar is on disk (the rebuild from the log), its size, the peak RSS of it all.
 */
async function firstStart(contender: Contender, dir: string, work: Workload, sidecar: string) {
  const session = await ServerSession.start(contender.spec(dir));
  try {
    const [tool, args] = contender.search(work.queries[0] as string);
    await session.time(tool, args);
    const firstStartMs = session.sinceSpawnMs();
    const file = path.join(dir, sidecar);
    while (!fs.existsSync(file)) {
      if (session.sinceSpawnMs() > 30 * 60_000) throw new Error(`${sidecar} was never written`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return {
      firstStartMs,
      rebuildMs: session.sinceSpawnMs(),
      sidecarMb: fs.statSync(file).size / 1024 ** 2,
      rebuildRssMb: session.peakRssMb(),
    };
  } finally {
    await session.close();
  }
}

/**
 * Fills a fresh store, then: cold start, searches, saves, peak RSS. A server with a sidecar is
 * started once before (the rebuild, measured too), so the figures are those of a start from it.
 */
async function measure(contender: Contender, work: Workload, ops: number): Promise<ServerResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${contender.name}-`));
  try {
    contender.prefill(dir, work.texts);
    const rebuild = contender.sidecar
      ? await firstStart(contender, dir, work, contender.sidecar)
      : undefined;
    const session = await ServerSession.start(contender.spec(dir));
    try {
      const [firstTool, firstArgs] = contender.search(work.queries[0] as string);
      await session.time(firstTool, firstArgs);
      const coldStartMs = session.sinceSpawnMs();
      const searches = work.queries.slice(0, ops).map((q) => contender.search(q));
      const saves = work.saves.slice(0, ops).map((t, i) => contender.save(t, i));
      const search = summarize(await timeAll(session, searches));
      const save = summarize(await timeAll(session, saves));
      return {
        size: work.size,
        server: contender.name,
        save,
        search,
        spawnToInitMs: session.spawnToInitMs,
        coldStartMs,
        peakRssMb: session.peakRssMb(),
        ...(rebuild ? { rebuild } : {}),
      };
    } finally {
      await session.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function options() {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1000,10000,100000' },
      json: { type: 'string' },
      ops: { type: 'string', default: '200' },
      parts: { type: 'string', default: 'stores,vault,semantic,import' },
      // server-memory rereads its whole file on each call: at a million memories, minutes.
      servers: { type: 'string', default: 'mnemo,server-memory' },
    },
  });
  const parts = new Set(values.parts.split(',').map((s) => s.trim()));
  if ([...parts].some((p) => !['stores', 'vault', 'semantic', 'import'].includes(p))) {
    throw new Error('--parts takes stores, vault, semantic, import or several, e.g. --parts vault');
  }
  const sizes = values.sizes.split(',').map((s) => Number(s.trim()));
  const ops = Number(values.ops);
  if (sizes.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(ops) || ops < 1) {
    throw new Error('--sizes takes whole numbers, e.g. 1000,10000; --ops a whole number');
  }
  const names = new Set(values.servers.split(',').map((s) => s.trim()));
  const servers = [mnemo, serverMemory].filter((c) => names.has(c.name));
  if (servers.length !== names.size) {
    throw new Error('--servers takes mnemo, server-memory or both, e.g. --servers mnemo');
  }
  return { sizes, ops, parts, servers, json: values.json };
}

function notes(vocabularySize: number, ops: number): string[] {
  const slow = PEER_SLOW_SIZE.toLocaleString('en-US');
  return [
    '',
    `- Same content for both: synthetic sentences of 10-40 words, Zipf vocabulary of ${vocabularySize} words; stores pre-filled on disk (fsynced) before each spawn.`,
    '- cold start: spawn to the answer of the first search; spawn→init: spawn to the end of the MCP initialize handshake. mnemo is started once before, on the log alone (the first start: it writes its sidecar memories.idx, after which it stops), so its figures are those of a start from the sidecar; the first start is in the second table.',
    `- search: ${ops} queries of 1-3 content words; mnemo search_memory top_k 10, server-memory search_nodes (substring match of the whole query, returns every match).`,
    `- save: ${ops} new sentences; mnemo save_memory fdatasyncs each; server-memory create_entities rewrites its whole file (no fsync).`,
    `- At ${slow} memories server-memory gets ${PEER_SLOW_OPS} searches and ${PEER_SLOW_OPS} saves only (so its p99 is its maximum).`,
    "- Percentiles are nearest-rank, in ms per MCP round trip; peak RSS is the child's VmHWM.",
  ];
}

async function main(): Promise<void> {
  const started = performance.now();
  const { sizes, ops, parts, servers, json } = options();
  if (!fs.existsSync(MNEMO_CLI)) throw new Error('dist/cli.js is missing: run npm run build');
  const vocabulary = buildVocabulary();
  const m = machine();
  console.log(
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.ramGb} GB RAM, Node ${m.node}, ${os.platform()} ${os.release()}\n`,
  );

  const results: ServerResult[] = [];
  let targets: ReturnType<typeof checkTargets> = [];
  if (parts.has('stores')) {
    const corpus = new ContentGenerator(vocabulary, 1).sentences(Math.max(...sizes));
    const saves = new ContentGenerator(vocabulary, 2).sentences(ops);
    const queries = new ContentGenerator(vocabulary, 3).queries(ops);
    for (const size of sizes) {
      const work: Workload = { size, texts: corpus.slice(0, size), saves, queries };
      for (const contender of servers) {
        if (contender === serverMemory && size > PEER_MAX_SIZE) continue;
        const n = contender === serverMemory && size >= PEER_SLOW_SIZE ? PEER_SLOW_OPS : ops;
        process.stderr.write(`${contender.name} at ${size}: ${n} searches, ${n} saves...\n`);
        results.push(await measure(contender, work, n));
      }
    }
    targets = checkTargets(results);
    console.log(resultsTable(results));
    console.log(`\n${rebuildTable(results)}`);
    console.log(notes(vocabulary.words.length, ops).join('\n'));
    console.log(`\nTargets for mnemo (README, Benchmarks):\n${targetsList(targets)}\n`);
  }

  let vault: VaultBenchResult | undefined;
  if (parts.has('vault')) {
    vault = await vaultBench(vocabulary, { promote: 1_000, notes: 5_000, memories: 10_000, ops });
    console.log(vaultReport(vault));
  }

  let semantic: SemanticBenchResult | undefined;
  if (parts.has('semantic')) {
    const size = Math.max(...sizes);
    semantic = await semanticBench({
      memories: size,
      texts: new ContentGenerator(vocabulary, 1).sentences(size),
      saves: new ContentGenerator(vocabulary, 2).sentences(ops),
      queries: new ContentGenerator(vocabulary, 3).queries(ops + 1),
    });
    console.log(`\n${semanticReport(semantic)}`);
  }

  let transfer: ImportBenchResult | undefined;
  if (parts.has('import')) {
    transfer = await importBench(vocabulary, IMPORT_OBSERVATIONS);
    console.log(`\n${importReport(transfer)}`);
  }

  const seconds = (performance.now() - started) / 1000;
  console.log(`\nFull bench: ${seconds.toFixed(0)} s.`);
  if (json) {
    const report = { machine: m, sizes, ops, results, targets, vault, semantic, transfer, seconds };
    fs.writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  }
}

main().catch((error: unknown) => {
  console.error((error as Error).stack ?? String(error));
  process.exitCode = 1;
});
