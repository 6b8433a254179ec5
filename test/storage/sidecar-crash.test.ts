// A kill -9 at chosen instants of a load and of a sidecar write (the child, sidecar-crash-child.ts,
// kills itself there, as the journal's crash tests do): the next start is the start of a clean
// load (the same records, the same search answers), and after a load killed mid-way with a
// checkpoint on disk it reads only the rest of the log.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Retriever } from '../../src/search/retriever.js';
import { JsonlFile } from '../../src/storage/jsonl/jsonl-file.js';
import { JsonlStore } from '../../src/storage/jsonl/store.js';
import { newMemoryRecord } from '../../src/storage/records.js';
import { SIDECAR_FILE } from '../../src/storage/sidecar.js';
import { nodeScript } from '../node-script.js';
import { recordingLogger, tempDir, testDir } from '../support.js';

const CHILD = fileURLToPath(new URL('./sidecar-crash-child.ts', import.meta.url));
const COUNT = 20_000;
const NOW = 1_767_225_600;
const WORDS = ['kitten', 'billing', 'coffee', 'gateway', 'basil', 'tuesday', 'station', 'rug'];
const QUERIES = ['kitten rug', 'billing coffee', 'gateway tuesday station', 'basil', 'word39999'];

/** A log of COUNT memories (some updated again, some deleted), about 3 MB: a load of four slices. */
function fill(dir: string): void {
  const log = new JsonlFile(path.join(dir, 'memories.jsonl'));
  const idOf = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  try {
    log.rewrite(
      (function* () {
        for (let i = 0; i < COUNT; i++) {
          const words = `${WORDS[i % 8]} ${WORDS[(i >> 3) % 8]} ${WORDS[(i >> 6) % 8]}`;
          yield newMemoryRecord(idOf(i), `note ${i}: ${words} word${i}`, NOW - i);
          if (i % 97 === 5) yield { id: idOf(i - 3), _deleted: true };
          if (i % 89 === 7) yield newMemoryRecord(idOf(i - 5), `changed ${i}: coffee`, NOW);
        }
      })(),
    );
  } finally {
    log.close();
  }
}

/** What a start over `dir` gives: every record, the answers to QUERIES, its log lines. */
async function startOf(dir: string) {
  const log = recordingLogger();
  const store = JsonlStore.start({
    dataDir: dir,
    logger: log.logger,
    clock: () => NOW,
    sidecarMinLines: 1e9,
  });
  const retriever = new Retriever({ engine: store, settings: {}, logger: log.logger });
  store.subscribe(retriever);
  await store.ready;
  const records = [...store.memories.values()]
    .map((r) => JSON.stringify(r))
    .sort()
    .join('\n');
  const answers = [];
  for (const query of QUERIES) {
    const rows = await retriever.rank(query, 10, {
      statuses: ['active'],
      score: () => 1,
      minScore: null,
    });
    answers.push(JSON.stringify(rows));
  }
  await store.close();
  return { records, answers, entries: log.entries() };
}

function crash(dir: string, point: string): Promise<NodeJS.Signals | null> {
  const child = spawn(process.execPath, [...nodeScript(CHILD), dir, point], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') console.error(stderr);
      resolve(signal ?? (code === 0 ? null : 'SIGABRT'));
    }),
  );
}

describe('a kill -9 during a load or a sidecar write', () => {
  // One log and one clean load of it for every point: each test crashes on its own copy of the
  // log as filled (`clean` keeps it untouched; the clean load runs on another copy).
  let clean: string;
  let expected: Awaited<ReturnType<typeof startOf>>;
  before(async () => {
    clean = tempDir('mnemo-sidecar-crash-');
    fill(clean);
    const loaded = path.join(clean, 'loaded');
    fs.mkdirSync(loaded);
    fs.copyFileSync(path.join(clean, 'memories.jsonl'), path.join(loaded, 'memories.jsonl'));
    expected = await startOf(loaded);
  });
  after(() => fs.rmSync(clean, { recursive: true, force: true }));

  const points = ['load', 'mid-write', 'before-rename', 'before-dir-sync'] as const;
  for (const point of points) {
    it(`at ${point}: the next start is a clean load's`, async (t) => {
      const dir = testDir(t);
      fs.copyFileSync(path.join(clean, 'memories.jsonl'), path.join(dir, 'memories.jsonl'));
      assert.equal(await crash(dir, point), 'SIGKILL', `the child reached ${point}`);
      assert.ok(fs.existsSync(path.join(dir, SIDECAR_FILE)), 'a checkpoint was on disk');

      const after = await startOf(dir);
      assert.equal(after.records, expected.records);
      assert.deepEqual(after.answers, expected.answers);
      const started = after.entries.find((e) => /started from memories.idx/.test(e.msg));
      assert.ok(started, 'the sidecar left behind was used');
      const lines = (started as { lines?: number }).lines ?? 0;
      const log = new JsonlFile(path.join(dir, 'memories.jsonl'));
      log.readNew();
      const all = log.lineCount;
      log.close();
      assert.ok(lines > 0 && lines <= all, `${lines} of ${all} lines from the sidecar`);
      if (point !== 'before-dir-sync') {
        assert.ok(lines < all, 'the killed write was not the one used');
      }
      assert.deepEqual(
        fs.readdirSync(dir).filter((name) => name.endsWith('.tmp')),
        [],
        'the temp file of the dead process is removed',
      );
    });
  }
});
