import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { STATIC_MODEL } from '../../src/search/embeddings.js';
import { VECTORS_FILE } from '../../src/storage/jsonl/vectors.js';
import { newMemoryRecord } from '../../src/storage/records.js';
import { T0 } from '../support.js';
import { CLI_PATH, makeTempDir, removeDir } from './helpers.js';

const temps: string[] = [];
function temp(prefix: string): string {
  const dir = makeTempDir(prefix);
  temps.push(dir);
  return dir;
}
after(() => {
  for (const dir of temps) removeDir(dir);
});

/** `node dist/cli.js ARGS` with a temp HOME; stderr is a pipe, not a terminal. */
function mnemo(args: string[], embeddings: 'static' | 'off') {
  const result = spawnSync(process.execPath, [CLI_PATH, ...args], {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '',
      HOME: temp('mnemo-home-'),
      MNEMO_LOG_LEVEL: 'warn',
      MNEMO_EMBEDDINGS: embeddings,
    },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const KITTEN = 'A kitten was sleeping on the rug.';
const CONTENTS = [
  KITTEN,
  'Quarterly tax filing is due at the end of March.',
  'The deploy pipeline runs on every merge to main.',
];

/** A data dir with memories.jsonl written by hand: three records, no vectors yet. */
function dataDir(): string {
  const dir = temp('mnemo-reindex-');
  const lines = CONTENTS.map((content, i) => JSON.stringify(newMemoryRecord(`m${i}`, content, T0)));
  fs.writeFileSync(path.join(dir, 'memories.jsonl'), `${lines.join('\n')}\n`);
  return dir;
}

function vectorLines(dir: string): { id: string; model: string }[] {
  return fs
    .readFileSync(path.join(dir, VECTORS_FILE), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { id: string; model: string });
}

const PROGRESS_LINE = /^embedding \d+\/3 \(\d+%\)$/;
const MODEL_ID = `${STATIC_MODEL}:q8`;

describe('mnemo reindex', () => {
  let dir: string;

  before(() => {
    assert.ok(fs.existsSync(CLI_PATH), `${CLI_PATH} is missing: run npm run build`);
    dir = dataDir();
  });

  it('computes a vector for each memory with the static model', () => {
    const run = mnemo(['reindex', '--data-dir', dir], 'static');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^Embedded \\d of 3 memories with ${MODEL_ID} in `, 'm'));
    assert.doesNotMatch(run.stdout, /embedding \d/, 'progress stays off stdout');
    const lines = vectorLines(dir);
    assert.equal(lines.length, 3);
    assert.deepEqual(lines.map((l) => l.id).sort(), ['m0', 'm1', 'm2']);
    for (const l of lines) assert.equal(l.model, MODEL_ID);
  });

  it('the first run says it embedded all three, with progress lines on stderr', () => {
    const fresh = dataDir();
    const run = mnemo(['reindex', '--data-dir', fresh], 'static');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Embedded 3 of 3 memories/m);
    const progress = run.stderr.split('\n').filter((l) => l.startsWith('embedding '));
    assert.ok(progress.length > 0, `progress on stderr: ${run.stderr}`);
    for (const l of progress) assert.match(l, PROGRESS_LINE);
    assert.equal(progress.at(-1), 'embedding 3/3 (100%)');
  });

  it('a second run has nothing to embed and appends nothing', () => {
    const run = mnemo(['reindex', '--data-dir', dir], 'static');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Embedded 0 of 3 memories .*\(every vector was up to date\)\.$/m);
    assert.equal(vectorLines(dir).length, 3);
  });

  it('--json answers the counts as JSON', () => {
    const run = mnemo(['reindex', '--data-dir', dir, '--json'], 'static');
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.equal(result.model, MODEL_ID);
    assert.equal(result.embedded, 0);
    assert.equal(result.total, 3);
    assert.equal(typeof result.seconds, 'number');
  });

  it('--all embeds all three again and shows progress lines on stderr', () => {
    const run = mnemo(['reindex', '--all', '--data-dir', dir], 'static');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Embedded 3 of 3 memories with /m);
    const progress = run.stderr.split('\n').filter((l) => l.startsWith('embedding '));
    assert.ok(progress.length > 0, `progress on stderr: ${run.stderr}`);
    for (const l of progress) assert.match(l, PROGRESS_LINE);
    assert.equal(progress.at(-1), 'embedding 3/3 (100%)');
    assert.doesNotMatch(run.stderr, /\r/, 'no terminal bar when stderr is not a TTY');
    // Appended (or compacted): every memory still has its vector for this model.
    const ids = new Set(vectorLines(dir).map((l) => l.id));
    assert.deepEqual([...ids].sort(), ['m0', 'm1', 'm2']);
  });

  it('embeds the memories of every namespace, and says how many namespaces', () => {
    const multi = temp('mnemo-reindex-');
    const lines = CONTENTS.map((content, i) => {
      const record = newMemoryRecord(`m${i}`, content, T0);
      // m0 in the default namespace (no field), m1 in a, m2 in b.
      return JSON.stringify(i === 0 ? record : { ...record, namespace: i === 1 ? 'a' : 'b' });
    });
    fs.writeFileSync(path.join(multi, 'memories.jsonl'), `${lines.join('\n')}\n`);
    const run = mnemo(['reindex', '--data-dir', multi], 'static');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Embedded 3 of 3 memories in 3 namespaces with /m);
    assert.deepEqual(
      vectorLines(multi)
        .map((l) => l.id)
        .sort(),
      ['m0', 'm1', 'm2'],
    );
    const again = mnemo(['reindex', '--all', '--data-dir', multi, '--json'], 'static');
    assert.equal(again.code, 0, again.stderr);
    const result = JSON.parse(again.stdout) as Record<string, unknown>;
    assert.deepEqual([result.embedded, result.total, result.namespaces], [3, 3, 3]);
    const ids = new Set(vectorLines(multi).map((l) => l.id));
    assert.deepEqual([...ids].sort(), ['m0', 'm1', 'm2']);
    // It is not one namespace's command: --namespace is refused, naming it.
    const scoped = mnemo(['reindex', '--namespace', 'a', '--data-dir', multi], 'static');
    assert.equal(scoped.code, 2);
    assert.match(scoped.stderr, /reindex does not take --namespace/);
  });

  it('with MNEMO_EMBEDDINGS=off it fails, naming the setting', () => {
    const run = mnemo(['reindex', '--data-dir', dir], 'off');
    assert.equal(run.code, 1);
    assert.match(run.stderr, /MNEMO_EMBEDDINGS/);
    assert.doesNotMatch(run.stdout, /Embedded/);
  });
});

describe('mnemo search with the static model', () => {
  let dir: string;
  before(() => {
    dir = dataDir();
  });

  it('finds the kitten on the rug first for a cat resting on the carpet', () => {
    const run = mnemo(
      ['search', 'cat resting on the carpet', '--data-dir', dir, '--json'],
      'static',
    );
    assert.equal(run.code, 0, run.stderr);
    const found = JSON.parse(run.stdout) as { results: { memory_id: string; content: string }[] };
    assert.equal(found.results[0]?.content, KITTEN);
    assert.equal(found.results[0]?.memory_id, 'm0');
  });

  it('by words alone the same query shares no word with it', () => {
    const run = mnemo(['search', 'cat resting on the carpet', '--data-dir', dir, '--json'], 'off');
    assert.equal(run.code, 0, run.stderr);
    const found = JSON.parse(run.stdout) as { results: { memory_id: string }[] };
    assert.ok(!found.results.some((r) => r.memory_id === 'm0'), 'the match is by meaning');
  });
});
