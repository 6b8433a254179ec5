// LoCoMo retrieval recall through the real MCP stdio server.
//
//   npm run build && npm run bench:recall -- [DATASET] [--json FILE] [--now EPOCH] [--grid]
//                                            [--mode today|dated|both] [--only NAME]
//
// Each method is a configuration of the same server: lexical (MNEMO_EMBEDDINGS=off), vector
// (MNEMO_HYBRID_WEIGHT=1: meaning alone) and hybrid (the defaults), with each embedding provider
// that loads here. --grid also sweeps the hybrid weight and similarity threshold of the static
// model: how the defaults were chosen.
//
// DATASET defaults to bench/data/locomo-dev.json (bench/data/README.md gives its source, licence,
// the protocol and the reference figures). For each conversation: a fresh data dir and a fresh `mnemo stdio`,
// every turn saved as one memory ("<speaker>: <text>", plus the image caption), then every
// question of categories 1-4 asked with search_memory (top_k 10, no review candidates). A
// question is a hit at k when one of the top k results is an evidence turn (turn recall_any@k)
// or lies in an evidence session (session recall_any@k).
//
// Two modes (--mode, both by default): today's saves every turn and asks every question at one
// instant (--now), so decay is equal for all; the dated mode saves each session's turns with the
// server's clock at that session's date (a `mnemo stdio` a session, on one data dir) and asks
// the questions a day after the last session, so decay and dates act as they do for a user.
// --only keeps the methods whose name holds NAME (e.g. lexical: the cheapest).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { MINILM_MODEL, STATIC_MODEL } from '../src/search/embeddings.js';
import {
  byCategory,
  CATEGORIES,
  memoryContent,
  overall,
  type Sample,
  type Tally,
  tallyAnswer,
} from './lib/locomo-questions.js';
import { datedPlan, type Plan, todayPlan } from './lib/locomo-sessions.js';
import { type Figures, report } from './lib/recall-report.js';

type Mode = 'today' | 'dated';
const MODES: readonly Mode[] = ['today', 'dated'];

/** From bench/data/README.md, same protocol on the same file. */
const REFERENCE: { method: string; figures: Figures } = {
  method: 'BM25 (k1 1.2, b 0.75, stop words out), dataset README',
  figures: { turn_any_at_5: 0.564, turn_any_at_10: 0.636, session_any_at_5: 0.854 },
};

// Any fixed instant: every memory is created and searched at the same moment, so all decay
// scores are equal and the ranking is lexical relevance alone.
const DEFAULT_NOW = 1_700_000_000;

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

function usage(message: string): never {
  process.stderr.write(
    `bench:recall: ${message}\nUsage: npm run bench:recall -- [DATASET] [--json FILE] [--now EPOCH]\n`,
  );
  process.exit(2);
}

function parseCli() {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (error) {
    usage((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1) usage(`one dataset path at most (got ${positionals.length})`);
  const now = values.now === undefined ? DEFAULT_NOW : Number(values.now);
  if (!Number.isInteger(now) || now <= 0) usage(`--now must be epoch seconds (got ${values.now})`);
  const mode = values.mode;
  if (mode !== 'both' && !MODES.includes(mode as Mode)) {
    usage(`--mode must be today, dated or both (got ${mode})`);
  }
  return {
    dataset: path.resolve(positionals[0] ?? path.join(root, 'bench/data/locomo-dev.json')),
    json: values.json,
    now,
    grid: values.grid,
    modes: mode === 'both' ? MODES : [mode as Mode],
    only: values.only,
  };
}

function parse() {
  return parseArgs({
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: 'string' },
      now: { type: 'string' },
      grid: { type: 'boolean', default: false },
      mode: { type: 'string', default: 'both' },
      only: { type: 'string' },
    },
  });
}

interface ToolAnswer {
  isError?: boolean;
  content?: unknown;
  structuredContent?: Record<string, unknown>;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const answer = (await client.callTool({ name, arguments: args })) as ToolAnswer;
  if (answer.isError || !answer.structuredContent) {
    throw new Error(`${name} failed: ${JSON.stringify(answer.content)}`);
  }
  return answer.structuredContent;
}

interface ConversationResult {
  memories: number;
  turns: number;
  deduplicated: number;
  saveMs: number;
  searchMs: number;
  scores: Set<number>;
}

/** One way of running the server: a name and the settings that make it so. */
interface Method {
  name: string;
  env: Record<string, string>;
  /** The model it must run with (a provider that falls back is not measured as itself). */
  model?: string;
}

/** Waits until the embedding model is loaded (or known not to load); its id, or null. */
async function modelOf(client: Client): Promise<string | null> {
  for (;;) {
    const stats = await call(client, 'memory_stats', {});
    const e = stats.embeddings as { state: string; model: string | null };
    if (e.state !== 'loading') return e.model;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

class WrongModel extends Error {}

/** A `mnemo stdio` on `dataDir` whose clock stands at `now`, connected. */
async function connect(cli: string, dataDir: string, now: number, method: Method): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'stdio', '--data-dir', dataDir],
    env: {
      ...getDefaultEnvironment(),
      MNEMO_NOW: String(now),
      MNEMO_LOG_LEVEL: 'error',
      ...method.env,
    },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'mnemo-bench-recall', version: '0.1.0' });
  await client.connect(transport);
  try {
    const model = await modelOf(client);
    if (method.model && !model?.startsWith(method.model)) {
      throw new WrongModel(`${method.model} did not load (got ${model ?? 'none'})`);
    }
  } catch (error) {
    await client.close();
    throw error;
  }
  return client;
}

async function runConversation(
  cli: string,
  sample: Sample,
  plan: Plan,
  method: Method,
  tallies: Map<number, Tally>,
  repairs: { count: number },
): Promise<ConversationResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-recall-'));
  // One server a clock: a new one for each instant the plan saves or asks at.
  let open: { at: number; client: Client } | null = null;
  const clientAt = async (at: number) => {
    if (open?.at === at) return open.client;
    await open?.client.close();
    open = null;
    open = { at, client: await connect(cli, dataDir, at, method) };
    return open.client;
  };
  try {
    // memory id -> the dia_ids it stands for (several when turns deduplicate).
    const diaIds = new Map<string, string[]>();
    let deduplicated = 0;
    let turns = 0;
    const saveStart = performance.now();
    for (const step of plan.saves) {
      const client = await clientAt(step.at);
      for (const turn of step.turns) {
        const saved = await call(client, 'save_memory', {
          content: memoryContent(turn),
          meta: { dia_id: turn.dia_id, sample_id: sample.sample_id },
        });
        const id = saved.memory_id as string;
        turns++;
        if (saved.deduplicated) deduplicated++;
        const list = diaIds.get(id);
        if (list) list.push(turn.dia_id);
        else diaIds.set(id, [turn.dia_id]);
      }
    }
    const saveMs = performance.now() - saveStart;

    const client = await clientAt(plan.askAt);
    const scores = new Set<number>();
    const searchStart = performance.now();
    for (const qa of sample.qa) {
      if (!(qa.category in CATEGORIES)) continue;
      const found = await call(client, 'search_memory', {
        query: qa.question,
        top_k: 10,
        include_review_candidates: false,
      });
      const results = found.results as { memory_id: string; score: number }[];
      for (const r of results) scores.add(r.score);
      const ranked = results.map((r) => {
        const ids = diaIds.get(r.memory_id);
        if (!ids) throw new Error(`search_memory returned an unknown memory ${r.memory_id}`);
        return ids;
      });
      tallyAnswer(tallies, qa, ranked, repairs);
    }
    const searchMs = performance.now() - searchStart;
    return { memories: diaIds.size, turns, deduplicated, saveMs, searchMs, scores };
  } finally {
    await (open as { client: Client } | null)?.client.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Warns when a source file is newer than the build the benchmark is about to run. */
function warnIfStale(cli: string): void {
  const built = fs.statSync(cli).mtimeMs;
  const newer = fs
    .readdirSync(path.join(root, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .filter((f) => fs.statSync(path.join(root, 'src', f)).mtimeMs > built);
  if (newer.length > 0) {
    process.stderr.write(
      `bench:recall: warning: src/${newer[0]} is newer than dist/cli.js; run npm run build\n`,
    );
  }
}

const STATIC = STATIC_MODEL;
const MINILM = MINILM_MODEL;

function methods(grid: boolean): Method[] {
  const out: Method[] = [
    { name: 'lexical (BM25, stemmed)', env: { MNEMO_EMBEDDINGS: 'off' } },
    {
      name: 'static: vector',
      env: { MNEMO_EMBEDDINGS: 'static', MNEMO_HYBRID_WEIGHT: '1' },
      model: STATIC,
    },
    { name: 'static: hybrid (defaults)', env: { MNEMO_EMBEDDINGS: 'static' }, model: STATIC },
    {
      name: 'minilm: vector',
      env: { MNEMO_EMBEDDINGS: 'minilm', MNEMO_HYBRID_WEIGHT: '1' },
      model: MINILM,
    },
    { name: 'minilm: hybrid (defaults)', env: { MNEMO_EMBEDDINGS: 'minilm' }, model: MINILM },
  ];
  if (grid) {
    for (const w of ['0.05', '0.1', '0.2', '0.3']) {
      for (const t of ['0.4', '0.55', '0.7']) {
        out.push({
          name: `static: hybrid w ${w}, threshold ${t}`,
          env: {
            MNEMO_EMBEDDINGS: 'static',
            MNEMO_HYBRID_WEIGHT: w,
            MNEMO_SIMILARITY_THRESHOLD: t,
          },
          model: STATIC,
        });
      }
    }
  }
  return out;
}

interface MethodResult {
  method: string;
  mode: Mode;
  skipped?: string;
  figures?: Figures;
  by_category?: ({ category: number; name: string; n: number } & Figures)[];
  memories?: number;
  turns?: number;
  deduplicated?: number;
  questions?: number;
  seconds?: number;
}

async function runMethod(
  cli: string,
  samples: Sample[],
  mode: Mode,
  now: number,
  method: Method,
): Promise<MethodResult> {
  const start = performance.now();
  const tallies = new Map<number, Tally>();
  const repairs = { count: 0 };
  let memories = 0;
  let turns = 0;
  let deduplicated = 0;
  for (const sample of samples) {
    try {
      const plan =
        mode === 'dated' ? datedPlan(sample.conversation) : todayPlan(sample.conversation, now);
      const r = await runConversation(cli, sample, plan, method, tallies, repairs);
      memories += r.memories;
      turns += r.turns;
      deduplicated += r.deduplicated;
    } catch (error) {
      if (error instanceof WrongModel) {
        return { method: method.name, mode, skipped: error.message };
      }
      throw error;
    }
  }
  const seconds = Math.round((performance.now() - start) / 100) / 10;
  process.stderr.write(`${mode}, ${method.name}: ${JSON.stringify(overall(tallies))}\n`);
  return {
    method: method.name,
    mode,
    figures: overall(tallies),
    by_category: byCategory(tallies),
    memories,
    turns,
    deduplicated,
    questions: tallies.get(0)?.n ?? 0,
    seconds,
  };
}

async function main(): Promise<void> {
  const options = parseCli();
  const cli = path.join(root, 'dist/cli.js');
  if (!fs.existsSync(cli)) usage('dist/cli.js is missing: run npm run build first');
  warnIfStale(cli);
  const samples = JSON.parse(fs.readFileSync(options.dataset, 'utf8')) as Sample[];

  const results: MethodResult[] = [];
  const chosen = methods(options.grid).filter(
    (m) => !options.only || m.name.includes(options.only),
  );
  for (const mode of options.modes) {
    for (const method of chosen) {
      results.push(await runMethod(cli, samples, mode, options.now, method));
    }
  }
  const first = results.find((r) => r.figures);
  const title = `LoCoMo recall, ${path.basename(options.dataset)}: ${samples.length} conversations, ${first?.turns} turns -> ${first?.memories} memories, ${first?.questions} questions (categories 1-4)`;
  process.stdout.write(`${report(title, results, REFERENCE)}\n`);
  if (options.json) {
    const out = { dataset: options.dataset, now: options.now, results, reference: REFERENCE };
    fs.writeFileSync(options.json, `${JSON.stringify(out, null, 2)}\n`);
  }
}

await main();
