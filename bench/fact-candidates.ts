// Whether a save finds the memory its fact changes, in a store of many memories: the fact judge
// (npm run bench:facts) only sees the candidates a save looks up, so a supersession whose old
// memory is not among them is never made.
//
//   node --import tsx bench/fact-candidates.ts [--memories 100000] [--embeddings off|static]
//
// The store is `--memories` LoCoMo turns recombined (the stores bench's text). For each pair of
// bench/data/facts-eval.jsonl labelled supersedes or conflicts, its old memory is saved, the new
// one's candidates are looked up as a save looks them up (words, meaning with a model, and the
// index of fact keys, every memory's facts read first as a process at rest reads them), and the
// old memory is deleted again: one pair in the store at a time, as one person's memory holds
// one fact of a kind at a time. Pairs whose subject is a name are counted apart from those about
// "I", "the user" or "my ...", whose words often share nothing ("I live in Oslo", "I moved").

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { openMemory } from '../src/app/memory.js';
import { loadConfig } from '../src/config/index.js';
import { factCandidates, factKeysOf } from '../src/memory/facts/links.js';
import { locomoTexts } from './lib/locomo-text.js';
import { summarize } from './lib/percentile.js';
import { machine, machineLine } from './lib/report.js';
import { writeMnemoStore } from './lib/stores.js';

interface Pair {
  old: string;
  new: string;
  label: 'supersedes' | 'conflicts' | 'none';
}

const { values } = parseArgs({
  options: {
    memories: { type: 'string', default: '100000' },
    embeddings: { type: 'string', default: 'off' },
  },
});
const memories = Number(values.memories);
if (!Number.isInteger(memories) || memories < 0) {
  throw new Error('--memories takes a whole number, e.g. 100000');
}
if (values.embeddings !== 'off' && values.embeddings !== 'static') {
  throw new Error('--embeddings takes off or static');
}

const pairs = fs
  .readFileSync(path.join(import.meta.dirname, 'data/facts-eval.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as Pair)
  .filter((p) => p.label !== 'none');
const named = (p: Pair) => !/^(I|The|My|We|Our)\b/.test(p.old);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-fact-candidates-'));
const now = Math.floor(Date.now() / 1000);
try {
  if (memories > 0) writeMnemoStore(path.join(dir, 'memories.jsonl'), locomoTexts(memories), now);
  const config = loadConfig({
    env: { MNEMO_EMBEDDINGS: values.embeddings, MNEMO_DATA_DIR: dir },
    home: dir,
  });
  const opened = openMemory(config, { logger: pino({ level: 'silent' }), clock: () => now });
  try {
    await opened.readiness.wait('store', { patient: true });
    await opened.readiness.wait('embeddings');
    if (values.embeddings !== 'off') {
      // Every memory embedded and, from 50,000 on, the approximate index built.
      while (opened.semantic.backlog > 0) await new Promise((r) => setTimeout(r, 200));
      await opened.semantic.annSettled();
    }
    const { memory } = opened;
    const ctx = (memory.writing as unknown as { ctx: Parameters<typeof factCandidates>[0] }).ctx;
    // The facts of every memory read, as the fill behind the calls leaves them.
    const filling = performance.now();
    factKeysOf(ctx).fillAll();
    const fillMs = performance.now() - filling;
    const found = { named: [0, 0], other: [0, 0] };
    const lookups: number[] = [];
    for (const pair of pairs) {
      const old = await memory.writing.save({ content: pair.old });
      const started = performance.now();
      const vector = await ctx.retriever.embed(pair.new);
      const candidates = await factCandidates(ctx, pair.new, vector);
      lookups.push(performance.now() - started);
      const tally = named(pair) ? found.named : found.other;
      tally[1] = (tally[1] as number) + 1;
      if (candidates.some((c) => c.id === old.memory_id)) tally[0] = (tally[0] as number) + 1;
      else if (process.env.MISSES)
        console.log(`MISS ${named(pair) ? 'N' : 'S'} ${pair.label} | ${pair.old} | ${pair.new}`);
      await memory.forgetting.delete({ memory_id: old.memory_id });
    }
    const all = (found.named[0] as number) + (found.other[0] as number);
    const lookup = summarize(lookups);
    console.log(machineLine(machine()));
    console.log(
      `${memories.toLocaleString('en-US')} memories, embeddings ${values.embeddings}: the old ` +
        `memory among the candidates for ${all} of ${pairs.length} pairs ` +
        `(${(all / pairs.length).toFixed(3)}); subject a name ${found.named.join(' / ')}, ` +
        `"I", "the user", "my ..." ${found.other.join(' / ')}; lookup p50 / p99 ` +
        `${lookup.p50.toFixed(2)} / ${lookup.p99.toFixed(2)} ms; the facts of every memory ` +
        `read in ${Math.round(fillMs)} ms`,
    );
  } finally {
    await opened.close();
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
