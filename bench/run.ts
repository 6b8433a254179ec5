// npm run bench [-- --help] (the options: USAGE below)
// mnemo vs @modelcontextprotocol/server-memory as a user's client runs them: real text, the SDK
// client's own close, the next start after it, and the disk's floor measured in the same run
// (docs/benchmarks.md; issue 24). The stores part prints Markdown tables to paste into that page.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type HybridBenchResult, hybridBench, hybridReport } from './hybrid.js';
import { type ImportBenchResult, importBench, importReport } from './import.js';
import { SDK_SIGTERM_AFTER_MS } from './lib/client.js';
import { buildVocabulary, ContentGenerator, type Vocabulary } from './lib/content.js';
import { locomoQueries, locomoTexts } from './lib/locomo-text.js';
import {
  checkTargets,
  loadAverage,
  machine,
  machineLine,
  storesMarkdown,
  type Target,
} from './lib/report.js';
import {
  type Contender,
  MNEMO_CLI,
  measure,
  mnemoContender,
  type ServerResult,
  SPACED_GAP_MS,
  serverMemory,
} from './lib/stores-bench.js';
import { novelTexts, type SemanticBenchResult, semanticBench, semanticReport } from './semantic.js';
import { type VaultBenchResult, vaultBench, vaultReport } from './vault.js';

/** server-memory rewrites and rereads its whole file on every call: fewer calls from here. */
const PEER_SLOW_SIZE = 100_000;
/** Above this, server-memory is not run: at a million it takes minutes a call and runs out of heap. */
const PEER_MAX_SIZE = 100_000;
const PEER_SLOW_OPS = 20;
/** Observations in the server-memory file the import part reads. */
const IMPORT_OBSERVATIONS = 100_000;

/** The texts every part draws from: the memories, the saves, the queries. */
interface TextSource {
  name: 'locomo' | 'zipf';
  texts(n: number): string[];
  saves(n: number): string[];
  queries(n: number): string[];
}

function textSource(name: string, vocabulary: Vocabulary): TextSource {
  if (name === 'locomo') {
    return {
      name,
      texts: (n) => locomoTexts(n, 1),
      saves: (n) => locomoTexts(n, 7),
      queries: (n) => locomoQueries(n, 2),
    };
  }
  if (name === 'zipf') {
    return {
      name,
      texts: (n) => new ContentGenerator(vocabulary, 1).sentences(n),
      saves: (n) => new ContentGenerator(vocabulary, 2).sentences(n),
      queries: (n) => new ContentGenerator(vocabulary, 3).queries(n),
    };
  }
  throw new Error(`--text takes locomo (real conversation text, the default) or zipf, not ${name}`);
}

const USAGE = `npm run bench [-- --sizes 1000,10000,100000,1000000 --text locomo|zipf --ops 200
  --parts stores,vault,semantic,hybrid,import --keep DIR --servers mnemo,server-memory
  --json FILE --markdown FILE --profile DIR --mnemo-cli dist/cli.js]
  (npm run bench builds first; node --import tsx bench/run.ts runs the build there is.)
  --keep DIR: the hybrid part's data dir, kept between runs (a million's store and vectors are
  made once). docs/benchmarks.md says what each part measures.`;

function options() {
  const { values } = parseArgs({
    options: {
      help: { type: 'boolean', default: false },
      sizes: { type: 'string', default: '1000,10000,100000' },
      text: { type: 'string', default: 'locomo' },
      json: { type: 'string' },
      markdown: { type: 'string' },
      profile: { type: 'string' },
      keep: { type: 'string' },
      ops: { type: 'string', default: '200' },
      parts: { type: 'string', default: 'stores,vault,semantic,import' },
      servers: { type: 'string', default: 'mnemo,server-memory' },
      'mnemo-cli': { type: 'string' },
    },
  });
  if (values.help) return undefined;
  const parts = new Set(values.parts.split(',').map((s) => s.trim()));
  if ([...parts].some((p) => !['stores', 'vault', 'semantic', 'hybrid', 'import'].includes(p))) {
    throw new Error(
      '--parts takes stores, vault, semantic, hybrid, import or several, e.g. --parts vault',
    );
  }
  const sizes = values.sizes.split(',').map((s) => Number(s.trim()));
  const ops = Number(values.ops);
  if (sizes.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(ops) || ops < 1) {
    throw new Error('--sizes takes whole numbers, e.g. 1000,10000; --ops a whole number');
  }
  const profile = values.profile ? path.resolve(values.profile) : undefined;
  if (profile) fs.mkdirSync(profile, { recursive: true });
  const names = new Set(values.servers.split(',').map((s) => s.trim()));
  const cli = values['mnemo-cli'] ? path.resolve(values['mnemo-cli']) : MNEMO_CLI;
  if (!fs.existsSync(cli)) throw new Error(`--mnemo-cli ${cli} is missing: give a built cli.js`);
  const servers = [mnemoContender(profile, cli), serverMemory].filter((c) => names.has(c.name));
  if (servers.length !== names.size) {
    throw new Error('--servers takes mnemo, server-memory or both, e.g. --servers mnemo');
  }
  return { ...values, sizes, ops, parts, servers, profile, cli };
}

function notes(text: TextSource, ops: number, gentle: boolean): string[] {
  const slow = PEER_SLOW_SIZE.toLocaleString('en-US');
  const content =
    text.name === 'locomo'
      ? 'real conversation text: each memory one to three LoCoMo turns (bench/data/locomo-dev.json, 2,760 turns) drawn by a seeded PRNG; queries half LoCoMo questions, half one to three content words of a turn'
      : 'synthetic sentences of 10-40 words over a Zipf vocabulary of 4,000 words; queries of 1-3 content words';
  const close = gentle
    ? "- **--profile run**: each process was closed gently (stdin ended, its exit waited for, no signal) so that node wrote its CPU profile; the close figures are not the SDK client's."
    : `- close: the MCP SDK client's own \`close()\` (v2 StdioClientTransport: stdin ended, SIGTERM after ${SDK_SIGTERM_AFTER_MS / 1000} s, SIGKILL 2 s later), right after the first answer, without waiting for anything the server writes; "ended itself" means it exited before the SIGTERM, and the time is from the close to the exit. "sidecar left": \`memories.idx\` on disk once the first process was gone.`;
  return [
    `- Same content for both servers, ${content}; stores pre-filled on disk (fsynced) before each spawn.`,
    '- first start: spawn to the first search answer on the bare log (no sidecar); next start: the same after the close of the first, which is what a user gets on the next launch of their client.',
    close,
    `- search: ${ops} queries after the first; mnemo search_memory top_k 10 (MNEMO_EMBEDDINGS=off: words alone, as the peer), server-memory search_nodes (substring match of the whole query). save: ${ops} new texts; mnemo save_memory fdatasyncs each before answering, server-memory create_entities rewrites its whole file without fsync.`,
    `- spaced saves: ${ops} more new texts after those, each after a pause of ${SPACED_GAP_MS} ms (not timed), as an agent's saves come apart; their floor is measured with the same pauses.`,
    "- floor: measured just before each server, in its store's filesystem: append + fdatasync of the same lines a save appends, and a `tools/call` round trip to a no-op MCP server (bench/lib/noop-server.ts) over the same SDK client; the floor is their sum at the same percentile, and \"x floor\" a save figure over it (issue 24's targets are of it). Beside it, the durable no-op: a round trip to the same server's tool that appends the line and fdatasyncs it before answering, the two parts in one call, so the sync comes after a round trip's wait as a save's does (an fdatasync back to back costs less).",
    `- At ${slow} memories server-memory gets ${PEER_SLOW_OPS} searches and ${PEER_SLOW_OPS} saves only (its p99 is its maximum); it is not run past ${slow}.`,
    "- Percentiles are nearest-rank, in ms per MCP round trip; peak RSS is the child's VmHWM (first start / next start, the next one through all its calls). Targets check the next start's RSS.",
  ];
}

async function storesPart(
  sizes: readonly number[],
  ops: number,
  servers: readonly Contender[],
  text: TextSource,
  gentle: boolean,
): Promise<ServerResult[]> {
  const corpus = text.texts(Math.max(...sizes));
  const allSaves = text.saves(2 * ops);
  const saves = allSaves.slice(0, ops);
  const spacedSaves = allSaves.slice(ops);
  const queries = text.queries(ops + 1);
  const results: ServerResult[] = [];
  for (const size of sizes) {
    const work = { size, texts: corpus.slice(0, size), saves, spacedSaves, queries };
    for (const contender of servers) {
      if (contender === serverMemory && size > PEER_MAX_SIZE) continue;
      const n = contender === serverMemory && size >= PEER_SLOW_SIZE ? PEER_SLOW_OPS : ops;
      process.stderr.write(`${contender.name} at ${size}: ${n} searches, ${n} saves...\n`);
      results.push(await measure(contender, work, n, gentle));
    }
  }
  return results;
}

async function main(): Promise<void> {
  const started = performance.now();
  const opts = options();
  if (!opts) {
    console.log(USAGE);
    return;
  }
  const { sizes, ops, parts, servers, profile } = opts;
  if (!fs.existsSync(MNEMO_CLI)) throw new Error('dist/cli.js is missing: run npm run build');
  const vocabulary = buildVocabulary();
  const text = textSource(opts.text, vocabulary);
  const m = machine();
  const loadBefore = loadAverage();
  console.log(`${machineLine(m)}; text: ${text.name}; load average at start: ${loadBefore}\n`);

  let results: ServerResult[] = [];
  let targets: Target[] = [];
  let loadStores = '';
  if (parts.has('stores')) {
    results = await storesPart(sizes, ops, servers, text, profile !== undefined);
    targets = checkTargets(results);
    loadStores = loadAverage();
    const markdown = storesMarkdown({
      machine: m,
      text: text.name,
      load: { start: loadBefore, end: loadStores },
      results,
    });
    console.log(`${markdown}\n\n${notes(text, ops, profile !== undefined).join('\n')}\n`);
    if (opts.markdown) fs.writeFileSync(opts.markdown, `${markdown}\n`);
    if (profile) console.log(`CPU profiles (*.cpuprofile, one a process) in ${profile}\n`);
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
      texts: text.texts(size),
      saves: text.saves(ops),
      novelSaves: novelTexts(ops),
      queries: text.queries(ops + 1),
    });
    console.log(`\n${semanticReport(semantic)}`);
  }

  // Not in the default parts: a million takes a quarter of an hour the first time (--keep DIR).
  let hybrid: HybridBenchResult | undefined;
  if (parts.has('hybrid')) {
    const size = Math.max(...sizes);
    hybrid = await hybridBench({
      memories: size,
      texts: text.texts(size),
      queries: text.queries(ops + 1),
      ...(opts.keep ? { keep: path.resolve(opts.keep) } : {}),
      cli: opts.cli,
    });
    console.log(`\n${hybridReport(hybrid)}\nLoad average after it: ${loadAverage()}.`);
  }

  let transfer: ImportBenchResult | undefined;
  if (parts.has('import')) {
    transfer = await importBench(vocabulary, IMPORT_OBSERVATIONS);
    console.log(`\n${importReport(transfer)}`);
  }

  const seconds = (performance.now() - started) / 1000;
  console.log(`\nFull bench: ${seconds.toFixed(0)} s; load average at the end: ${loadAverage()}.`);
  if (opts.json) {
    const report = {
      machine: m,
      text: text.name,
      loadAverage: { start: loadBefore, stores: loadStores, end: loadAverage() },
      sizes,
      ops,
      results,
      targets,
      vault,
      semantic,
      hybrid,
      transfer,
      seconds,
    };
    fs.writeFileSync(opts.json, `${JSON.stringify(report, null, 2)}\n`);
  }
}

main().catch((error: unknown) => {
  console.error((error as Error).stack ?? String(error));
  process.exitCode = 1;
});
