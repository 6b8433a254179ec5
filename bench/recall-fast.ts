// LoCoMo recall in process: the saves and questions of bench:recall (bench/recall.ts), through
// the use cases of an opened memory whose clock the harness sets, without a server or MCP. For
// tuning ranking in seconds; the figures of record are bench:recall's, over MCP stdio.
//
//   node --import tsx bench/recall-fast.ts [DATASET] [--mode today|dated|both] [--env K=V ...]
//                                          [--misses FILE] [--json FILE]
//
// --env sets a MNEMO_* variable of the memory's config (default MNEMO_EMBEDDINGS=off: words
// alone); --misses writes, a line each, the questions whose top 5 holds no evidence turn.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { openMemory } from '../src/app/memory.js';
import { loadConfig } from '../src/config/index.js';
import { saveMemoryInput } from '../src/contract/save-memory.js';
import { searchMemoryInput } from '../src/contract/search-memory.js';
import {
  byCategory,
  CATEGORIES,
  evidenceOf,
  memoryContent,
  overall,
  type Sample,
  type Tally,
  tallyAnswer,
} from './lib/locomo-questions.js';
import { datedPlan, type Plan, todayPlan } from './lib/locomo-sessions.js';

type Mode = 'today' | 'dated';
const DEFAULT_NOW = 1_700_000_000;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function parseCli() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    strict: true,
    options: {
      mode: { type: 'string', default: 'both' },
      env: { type: 'string', multiple: true, default: [] },
      misses: { type: 'string' },
      json: { type: 'string' },
    },
  });
  const env: Record<string, string> = { MNEMO_EMBEDDINGS: 'off' };
  for (const pair of values.env) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`--env takes NAME=VALUE (got ${pair})`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const modes: Mode[] = values.mode === 'both' ? ['today', 'dated'] : [values.mode as Mode];
  for (const mode of modes) {
    if (mode !== 'today' && mode !== 'dated') throw new Error(`--mode: today, dated or both`);
  }
  return {
    dataset: path.resolve(positionals[0] ?? path.join(root, 'bench/data/locomo-dev.json')),
    modes,
    env,
    misses: values.misses,
    json: values.json,
  };
}

/** CPU time (user + system, this process) spent in the searches, and how many ran. */
interface SearchCpu {
  micros: number;
  queries: number;
}

interface Miss {
  mode: Mode;
  sample: string;
  category: string;
  question: string;
  evidence: string[];
  top: string[];
}

async function runConversation(
  sample: Sample,
  plan: Plan,
  mode: Mode,
  env: Record<string, string>,
  tallies: Map<number, Tally>,
  misses: Miss[],
  cpu: SearchCpu,
): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-recall-fast-'));
  let now = plan.saves[0]?.at ?? plan.askAt;
  const config = loadConfig({ env: { ...env, MNEMO_DATA_DIR: dir }, home: dir });
  const opened = openMemory(config, { logger: pino({ level: 'silent' }), clock: () => now });
  try {
    if (env.MNEMO_EMBEDDINGS !== 'off') await opened.readiness.wait('embeddings');
    const { memory } = opened;
    const diaIds = new Map<string, string[]>();
    const texts = new Map<string, string>();
    for (const step of plan.saves) {
      now = step.at;
      for (const turn of step.turns) {
        const input = saveMemoryInput.parse({
          content: memoryContent(turn),
          meta: { dia_id: turn.dia_id, sample_id: sample.sample_id },
        });
        const saved = await memory.writing.save(input);
        const list = diaIds.get(saved.memory_id);
        if (list) list.push(turn.dia_id);
        else diaIds.set(saved.memory_id, [turn.dia_id]);
        texts.set(turn.dia_id, input.content);
      }
    }
    now = plan.askAt;
    const repairs = { count: 0 };
    for (const qa of sample.qa) {
      if (!(qa.category in CATEGORIES)) continue;
      const input = searchMemoryInput.parse({
        query: qa.question,
        top_k: 10,
        include_review_candidates: false,
      });
      const before = process.cpuUsage();
      const found = await memory.recall.search(input);
      const spent = process.cpuUsage(before);
      cpu.micros += spent.user + spent.system;
      cpu.queries += 1;
      const ranked = found.results.map((r) => diaIds.get(r.memory_id) ?? []);
      const { turn5 } = tallyAnswer(tallies, qa, ranked, repairs);
      if (!turn5) {
        misses.push({
          mode,
          sample: sample.sample_id,
          category: CATEGORIES[qa.category] ?? String(qa.category),
          question: qa.question,
          evidence: evidenceOf(qa.evidence, { count: 0 }).map((d) => `${d} ${texts.get(d)}`),
          top: ranked.slice(0, 5).map((ids) => `${ids[0]} ${texts.get(ids[0] ?? '')}`),
        });
      }
    }
  } finally {
    await opened.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const options = parseCli();
  const samples = JSON.parse(fs.readFileSync(options.dataset, 'utf8')) as Sample[];
  const misses: Miss[] = [];
  const results = [];
  for (const mode of options.modes) {
    const start = performance.now();
    const tallies = new Map<number, Tally>();
    const cpu: SearchCpu = { micros: 0, queries: 0 };
    for (const sample of samples) {
      const plan =
        mode === 'dated'
          ? datedPlan(sample.conversation)
          : todayPlan(sample.conversation, DEFAULT_NOW);
      await runConversation(sample, plan, mode, options.env, tallies, misses, cpu);
    }
    const seconds = Math.round((performance.now() - start) / 100) / 10;
    const categories = byCategory(tallies);
    const line = categories.map((c) => `${c.name} ${c.turn_any_at_5.toFixed(3)}`).join(', ');
    const f = overall(tallies);
    const cpuMs = Math.round(cpu.micros / Math.max(1, cpu.queries)) / 1000;
    process.stdout.write(
      `${mode}: turn@5 ${f.turn_any_at_5.toFixed(3)} turn@10 ${f.turn_any_at_10.toFixed(3)} session@5 ${f.session_any_at_5.toFixed(3)} | ${line} | search CPU ${cpuMs} ms/query (${seconds} s)\n`,
    );
    results.push({ mode, figures: f, by_category: categories, search_cpu_ms: cpuMs, seconds });
  }
  if (options.misses) {
    fs.writeFileSync(options.misses, misses.map((m) => JSON.stringify(m)).join('\n'));
  }
  if (options.json) {
    fs.writeFileSync(options.json, `${JSON.stringify({ env: options.env, results }, null, 2)}\n`);
  }
}

await main();
