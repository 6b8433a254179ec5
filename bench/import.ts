// npm run bench -- --parts import: `mnemo import` of a server-memory file of N observations (five
// an entity, a relation every tenth entity), then `mnemo export` of the memories it made, each as
// the built CLI runs it, timed from spawn to exit, with the child's peak RSS (README, Benchmarks).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ContentGenerator, type Vocabulary } from './lib/content.js';
import { peakRssMb } from './lib/cpu.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MNEMO_CLI = path.join(ROOT, 'dist/cli.js');
const OBSERVATIONS_AN_ENTITY = 5;

export interface RunFigures {
  ms: number;
  perSecond: number;
  peakRssMb: number;
}

export interface ImportBenchResult {
  observations: number;
  fileMb: number;
  importRun: RunFigures;
  /** The same import again: everything is there already. */
  againRun: RunFigures;
  exportMnemo: RunFigures & { fileMb: number };
  exportServerMemory: RunFigures & { fileMb: number };
}

export async function importBench(
  vocabulary: Vocabulary,
  observations: number,
): Promise<ImportBenchResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-import-'));
  try {
    const file = path.join(dir, 'memory.jsonl');
    writeGraph(file, vocabulary, observations);
    const data = path.join(dir, 'data');
    const importArgs = ['import', file, '--from', 'server-memory', '--data-dir', data];
    const importRun = await timed(importArgs, observations);
    const againRun = await timed(importArgs, observations);
    const mnemoOut = path.join(dir, 'export.jsonl');
    const exportMnemo = await timed(
      ['export', '--out', mnemoOut, '--data-dir', data],
      observations,
    );
    const peerOut = path.join(dir, 'export-server-memory.jsonl');
    const exportServerMemory = await timed(
      ['export', '--format', 'server-memory', '--out', peerOut, '--data-dir', data],
      observations,
    );
    const mb = (f: string) => fs.statSync(f).size / 1024 ** 2;
    return {
      observations,
      fileMb: mb(file),
      importRun,
      againRun,
      exportMnemo: { ...exportMnemo, fileMb: mb(mnemoOut) },
      exportServerMemory: { ...exportServerMemory, fileMb: mb(peerOut) },
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function importReport(r: ImportBenchResult): string {
  const n = r.observations.toLocaleString('en-US');
  const row = (what: string, f: RunFigures, extra = '') =>
    `| ${what} | ${f.ms.toLocaleString('en-US', { maximumFractionDigits: 0 })} | ${f.perSecond.toLocaleString('en-US', { maximumFractionDigits: 0 })} | ${f.peakRssMb.toFixed(0)} |${extra}`;
  return [
    `Import and export, ${n} server-memory observations (${r.fileMb.toFixed(1)} MB file, ${(r.observations / OBSERVATIONS_AN_ENTITY).toLocaleString('en-US')} entities):`,
    '',
    '| run (spawn to exit) | ms | memories/s | peak RSS MB |',
    '| --- | ---: | ---: | ---: |',
    row('mnemo import --from server-memory', r.importRun),
    row('the same import again (all there)', r.againRun),
    row(`mnemo export (mnemo JSONL, ${r.exportMnemo.fileMb.toFixed(1)} MB)`, r.exportMnemo),
    row(
      `mnemo export --format server-memory (${r.exportServerMemory.fileMb.toFixed(1)} MB)`,
      r.exportServerMemory,
    ),
  ].join('\n');
}

function writeGraph(file: string, vocabulary: Vocabulary, observations: number): void {
  const content = new ContentGenerator(vocabulary, 23);
  const entities = Math.ceil(observations / OBSERVATIONS_AN_ENTITY);
  const lines: string[] = [];
  for (let e = 0; e < entities; e++) {
    const count = Math.min(OBSERVATIONS_AN_ENTITY, observations - e * OBSERVATIONS_AN_ENTITY);
    lines.push(
      JSON.stringify({
        type: 'entity',
        name: `entity-${e}`,
        entityType: e % 2 === 0 ? 'person' : 'project',
        observations: content.sentences(count),
      }),
    );
  }
  for (let e = 10; e < entities; e += 10) {
    lines.push(
      JSON.stringify({
        type: 'relation',
        from: `entity-${e}`,
        to: `entity-${e - 10}`,
        relationType: 'knows',
      }),
    );
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

/** Runs the CLI with `args` to its exit, sampling its peak RSS. */
async function timed(args: string[], count: number): Promise<RunFigures> {
  const started = performance.now();
  const child = spawn(process.execPath, [MNEMO_CLI, ...args], {
    env: { ...process.env, MNEMO_LOG_LEVEL: 'warn', MNEMO_EMBEDDINGS: 'off' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, peakRssMb(child.pid) ?? 0);
  }, 20);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearInterval(sampler);
  if (code !== 0) throw new Error(`mnemo ${args.join(' ')} exited with ${code}`);
  const ms = performance.now() - started;
  return { ms, perSecond: count / (ms / 1000), peakRssMb: peak };
}
