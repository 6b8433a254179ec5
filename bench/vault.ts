// The vault half of `npm run bench` (issue 4): promoting 1,000 memories, and indexing and
// searching a vault of 5,000 notes, over a real MCP stdio round trip to the built CLI.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ServerSession } from './lib/client.js';
import { ContentGenerator, type Vocabulary } from './lib/content.js';
import { count, ms } from './lib/format.js';
import { type Summary, summarize } from './lib/percentile.js';
import { writeMnemoStore, writePromotableStore } from './lib/stores.js';

export interface VaultBenchResult {
  promote: { memories: number; promoted: number; ms: number };
  index: {
    notes: number;
    memories: number;
    spawnToInitMs: number;
    /** Spawn to the answer of the first search_memory, while the vault is being indexed. */
    firstAnswerMs: number;
    /** Spawn to the answer of the first search_unified, which waits for the index. */
    indexedMs: number;
    searchUnified: Summary;
    peakRssMb: number;
  };
}

const FOLDERS = ['', 'Projects', 'Journal', 'Reading', 'People', 'Projects/Archive'];

/** A person's vault: notes in a few folders, with properties, tags, links and prose. */
function writeVault(vault: string, notes: number, generator: ContentGenerator): void {
  for (const folder of FOLDERS) fs.mkdirSync(path.join(vault, folder), { recursive: true });
  for (let i = 0; i < notes; i++) {
    const folder = FOLDERS[i % FOLDERS.length] as string;
    const title = generator.sentence().split(' ').slice(0, 5).join(' ').replace(/[.,]/g, '');
    const body = generator.sentences(2 + Math.floor(generator.next() * 7)).join(' ');
    const link = i > 0 ? `\n\nSee [[note ${i - 1}]].` : '';
    const text = `---\ntags:\n  - bench\n  - t${i % 40}\ncreated: 2026-01-01T10:00:00\n---\n# ${title}\n\n${body}${link}\n`;
    fs.writeFileSync(path.join(vault, folder, `note ${i}.md`), text);
  }
}

function mnemoSpec(dataDir: string, vault: string) {
  return {
    command: process.execPath,
    args: [path.join(import.meta.dirname, '../dist/cli.js'), 'stdio', '--data-dir', dataDir],
    env: { MNEMO_LOG_LEVEL: 'warn', MNEMO_VAULT_DIR: vault, MNEMO_EMBEDDINGS: 'off' },
  };
}

async function withDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-vault-'));
  try {
    return await run(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** promote_memory auto_detect over a store where every one of `count` memories qualifies. */
async function measurePromote(texts: readonly string[]): Promise<VaultBenchResult['promote']> {
  return withDir(async (dir) => {
    const now = Math.floor(Date.now() / 1000);
    writePromotableStore(path.join(dir, 'memories.jsonl'), texts, now);
    const session = await ServerSession.start(mnemoSpec(dir, path.join(dir, 'vault')));
    try {
      const { ms, structured } = await session.call('promote_memory', { auto_detect: true });
      const promoted = Number(structured.promoted_count);
      if (promoted !== texts.length) {
        throw new Error(`promote_memory promoted ${promoted} of ${texts.length} memories`);
      }
      return { memories: texts.length, promoted, ms };
    } finally {
      await session.close();
    }
  });
}

/** A store of `memories` beside a vault of `notes`: start, first answers, search_unified. */
async function measureIndex(
  vocabulary: Vocabulary,
  memories: readonly string[],
  notes: number,
  queries: readonly string[],
): Promise<VaultBenchResult['index']> {
  return withDir(async (dir) => {
    const vault = path.join(dir, 'vault');
    writeVault(vault, notes, new ContentGenerator(vocabulary, 4));
    writeMnemoStore(path.join(dir, 'memories.jsonl'), memories, Math.floor(Date.now() / 1000));
    const session = await ServerSession.start(mnemoSpec(dir, vault));
    try {
      const [first, ...rest] = queries as [string, ...string[]];
      await session.time('search_memory', { query: first, top_k: 10 });
      const firstAnswerMs = session.sinceSpawnMs();
      await session.time('search_unified', { query: first, top_k: 10 });
      const indexedMs = session.sinceSpawnMs();
      const times: number[] = [];
      for (const query of rest) times.push(await session.time('search_unified', { query }));
      return {
        notes,
        memories: memories.length,
        spawnToInitMs: session.spawnToInitMs,
        firstAnswerMs,
        indexedMs,
        searchUnified: summarize(times),
        peakRssMb: session.peakRssMb(),
      };
    } finally {
      await session.close();
    }
  });
}

export async function vaultBench(
  vocabulary: Vocabulary,
  options: { promote: number; notes: number; memories: number; ops: number },
): Promise<VaultBenchResult> {
  const corpus = new ContentGenerator(vocabulary, 5).sentences(
    Math.max(options.promote, options.memories),
  );
  const queries = new ContentGenerator(vocabulary, 6).queries(options.ops + 1);
  process.stderr.write(`vault: promote ${options.promote} memories...\n`);
  const promote = await measurePromote(corpus.slice(0, options.promote));
  process.stderr.write(`vault: ${options.notes} notes beside ${options.memories} memories...\n`);
  const index = await measureIndex(
    vocabulary,
    corpus.slice(0, options.memories),
    options.notes,
    queries,
  );
  return { promote, index };
}

export function vaultReport(r: VaultBenchResult): string {
  const { promote, index } = r;
  return [
    '| vault | figure |',
    '|---|---|',
    `| promote_memory auto_detect, ${count(promote.memories)} memories → notes | ${ms(promote.ms)} ms (${ms(promote.ms / promote.promoted)} ms a note) |`,
    `| spawn → init, ${count(index.notes)} notes + ${count(index.memories)} memories | ${ms(index.spawnToInitMs)} ms |`,
    `| spawn → first search_memory answer (vault still indexing) | ${ms(index.firstAnswerMs)} ms |`,
    `| spawn → first search_unified answer (vault indexed) | ${ms(index.indexedMs)} ms |`,
    `| search_unified p50 / p99 (${index.searchUnified.n} queries) | ${ms(index.searchUnified.p50)} / ${ms(index.searchUnified.p99)} ms |`,
    `| peak RSS | ${index.peakRssMb.toFixed(0)} MB |`,
    '',
    '- promote: one MCP call; each note is written with fdatasync and its folder synced, then the records are appended and synced.',
    "- The vault is a person's: notes of 2-8 sentences with properties, tags and a wikilink, in six folders; search_unified weights 1.0 / 0.7, top_k 10.",
    '- No peer is named for the vault: no other memory server here writes or indexes an Obsidian vault.',
  ].join('\n');
}
