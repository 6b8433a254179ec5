// LoCoMo retrieval recall through the real MCP stdio server.
//
//   npm run build && npm run bench:recall -- [DATASET] [--json FILE] [--now EPOCH]
//
// DATASET defaults to ../shared/datasets/locomo-dev.json (see its README for the protocol and
// the reference figures). For each conversation: a fresh data dir and a fresh `mnemo stdio`,
// every turn saved as one memory ("<speaker>: <text>", plus the image caption), then every
// question of categories 1-4 asked with search_memory (top_k 10, no review candidates). A
// question is a hit at k when one of the top k results is an evidence turn (turn recall_any@k)
// or lies in an evidence session (session recall_any@k).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';

interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

interface Qa {
  question: string;
  evidence: string[];
  category: number;
}

interface Sample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: Qa[];
}

interface Tally {
  n: number;
  turn5: number;
  turn10: number;
  session5: number;
}

interface Figures {
  turn_any_at_5: number;
  turn_any_at_10: number;
  session_any_at_5: number;
}

const CATEGORIES: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
};

/** From ../shared/datasets/README.md, same protocol on the same file. */
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
  return {
    dataset: path.resolve(positionals[0] ?? path.join(root, '../shared/datasets/locomo-dev.json')),
    json: values.json,
    now,
  };
}

function parse() {
  return parseArgs({
    allowPositionals: true,
    strict: true,
    options: { json: { type: 'string' }, now: { type: 'string' } },
  });
}

/** The turns of a conversation in order: session_1, session_2, ... */
function turnsOf(conversation: Record<string, unknown>): Turn[] {
  return Object.keys(conversation)
    .map((key) => ({ key, m: /^session_(\d+)$/.exec(key) }))
    .filter((x): x is { key: string; m: RegExpExecArray } => x.m !== null)
    .sort((a, b) => Number(a.m[1]) - Number(b.m[1]))
    .flatMap(({ key }) => conversation[key] as Turn[]);
}

export function memoryContent(turn: Turn): string {
  const caption = turn.blip_caption?.trim();
  return `${turn.speaker}: ${turn.text}${caption ? ` [image: ${caption}]` : ''}`;
}

const sessionOf = (diaId: string) => diaId.slice(0, diaId.indexOf(':'));

/**
 * Evidence ids as D<session>:<turn>. A few entries in LoCoMo are malformed ("D8:6; D9:17",
 * "D:11:26", "D"): lists are split, a stray colon after the D dropped, and what is still not an
 * id left out; `repairs` counts the entries that needed any of this.
 */
function evidenceOf(raw: readonly string[], repairs: { count: number }): string[] {
  const out: string[] = [];
  for (const entry of raw) {
    let repaired = false;
    const parts = entry.trim().split(/[;,\s]+/);
    if (parts.length > 1) repaired = true;
    for (const part of parts) {
      const m = /^D(:?)(\d+):(\d+)$/.exec(part);
      if (!m) {
        repaired = true;
        continue;
      }
      if (m[1]) repaired = true;
      out.push(`D${m[2]}:${m[3]}`);
    }
    if (repaired) repairs.count++;
  }
  return out;
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

async function runConversation(
  cli: string,
  sample: Sample,
  now: number,
  tallies: Map<number, Tally>,
  repairs: { count: number },
): Promise<ConversationResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-recall-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'stdio', '--data-dir', dataDir],
    env: { ...getDefaultEnvironment(), MNEMO_NOW: String(now), MNEMO_LOG_LEVEL: 'warn' },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'mnemo-bench-recall', version: '0.1.0' });
  try {
    await client.connect(transport);

    // memory id -> the dia_ids it stands for (several when turns deduplicate).
    const diaIds = new Map<string, string[]>();
    const turns = turnsOf(sample.conversation);
    let deduplicated = 0;
    const saveStart = performance.now();
    for (const turn of turns) {
      const saved = await call(client, 'save_memory', {
        content: memoryContent(turn),
        meta: { dia_id: turn.dia_id, sample_id: sample.sample_id },
      });
      const id = saved.memory_id as string;
      if (saved.deduplicated) deduplicated++;
      const list = diaIds.get(id);
      if (list) list.push(turn.dia_id);
      else diaIds.set(id, [turn.dia_id]);
    }
    const saveMs = performance.now() - saveStart;

    const scores = new Set<number>();
    const searchStart = performance.now();
    for (const qa of sample.qa) {
      if (!(qa.category in CATEGORIES)) continue;
      const evidence = new Set(evidenceOf(qa.evidence, repairs));
      const sessions = new Set([...evidence].map(sessionOf));
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
      const turnHit = (k: number) =>
        ranked.slice(0, k).some((ids) => ids.some((d) => evidence.has(d)));
      const sessionHit = (k: number) =>
        ranked.slice(0, k).some((ids) => ids.some((d) => sessions.has(sessionOf(d))));
      for (const key of [0, qa.category]) {
        const t = tallies.get(key) ?? { n: 0, turn5: 0, turn10: 0, session5: 0 };
        t.n++;
        if (turnHit(5)) t.turn5++;
        if (turnHit(10)) t.turn10++;
        if (sessionHit(5)) t.session5++;
        tallies.set(key, t);
      }
    }
    const searchMs = performance.now() - searchStart;
    return { memories: diaIds.size, turns: turns.length, deduplicated, saveMs, searchMs, scores };
  } finally {
    await client.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function figures(t: Tally): Figures {
  const r = (x: number) => (t.n === 0 ? 0 : Math.round((x / t.n) * 1000) / 1000);
  return {
    turn_any_at_5: r(t.turn5),
    turn_any_at_10: r(t.turn10),
    session_any_at_5: r(t.session5),
  };
}

const f3 = (x: number) => x.toFixed(3);

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

async function main(): Promise<void> {
  const options = parseCli();
  const cli = path.join(root, 'dist/cli.js');
  if (!fs.existsSync(cli)) usage('dist/cli.js is missing: run npm run build first');
  warnIfStale(cli);
  const samples = JSON.parse(fs.readFileSync(options.dataset, 'utf8')) as Sample[];

  const start = performance.now();
  const tallies = new Map<number, Tally>();
  const repairs = { count: 0 };
  let memories = 0;
  let turns = 0;
  let deduplicated = 0;
  let saveMs = 0;
  let searchMs = 0;
  const scores = new Set<number>();
  for (const sample of samples) {
    const r = await runConversation(cli, sample, options.now, tallies, repairs);
    memories += r.memories;
    turns += r.turns;
    deduplicated += r.deduplicated;
    saveMs += r.saveMs;
    searchMs += r.searchMs;
    for (const s of r.scores) scores.add(s);
    process.stderr.write(
      `${sample.sample_id}: ${r.turns} turns, ${r.deduplicated} deduplicated, ${
        figures(tallies.get(0) ?? { n: 0, turn5: 0, turn10: 0, session5: 0 }).turn_any_at_5
      } turn any@5 so far\n`,
    );
  }
  const elapsed = (performance.now() - start) / 1000;

  const all = figures(tallies.get(0) ?? { n: 0, turn5: 0, turn10: 0, session5: 0 });
  const row = (name: string, f: Figures) =>
    `| ${name} | ${f3(f.turn_any_at_5)} | ${f3(f.turn_any_at_10)} | ${f3(f.session_any_at_5)} |`;
  const byCategory = Object.entries(CATEGORIES).map(([c, name]) => {
    const t = tallies.get(Number(c)) ?? { n: 0, turn5: 0, turn10: 0, session5: 0 };
    return { category: Number(c), name, n: t.n, ...figures(t) };
  });
  const questions = tallies.get(0)?.n ?? 0;

  const lines = [
    `LoCoMo recall, ${path.basename(options.dataset)}: ${samples.length} conversations, ${turns} turns -> ${memories} memories (${deduplicated} deduplicated), ${questions} questions (categories 1-4)`,
    '',
    '| method | turn any@5 | turn any@10 | session any@5 |',
    '|---|---|---|---|',
    row('mnemo lexical (search_memory over MCP stdio)', all),
    row(REFERENCE.method, REFERENCE.figures),
    '',
    '| category | questions | turn any@5 | turn any@10 | session any@5 |',
    '|---|---|---|---|---|',
    ...byCategory.map(
      (c) =>
        `| ${c.category} ${c.name} | ${c.n} | ${f3(c.turn_any_at_5)} | ${f3(c.turn_any_at_10)} | ${f3(c.session_any_at_5)} |`,
    ),
    '',
    `Elapsed ${elapsed.toFixed(1)} s (saving ${(saveMs / 1000).toFixed(1)} s, searching ${(searchMs / 1000).toFixed(1)} s, the rest starting servers).`,
    `Evidence entries repaired or dropped: ${repairs.count}. Distinct decay scores in results: ${[...scores].sort().join(', ')}.`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  if (options.json) {
    const out = {
      dataset: options.dataset,
      now: options.now,
      conversations: samples.length,
      turns,
      memories,
      deduplicated,
      questions,
      evidence_repairs: repairs.count,
      elapsed_seconds: Math.round(elapsed * 10) / 10,
      save_seconds: Math.round(saveMs / 100) / 10,
      search_seconds: Math.round(searchMs / 100) / 10,
      mnemo_lexical: all,
      by_category: byCategory,
      reference: REFERENCE,
    };
    fs.writeFileSync(options.json, `${JSON.stringify(out, null, 2)}\n`);
  }
}

await main();
