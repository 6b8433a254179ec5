// What `mnemo stdio` loads before its first answer: only what that answer and the store's load
// need. Each package below took a start tens of milliseconds to compile, or megabytes to hold,
// for a server that may never use it (express and pg belong to serve and PostgreSQL, usearch to
// a store with vectors, yaml to a vault's notes, the tokenizer and transformers.js to the
// model, which loads after the first answer). The SDK and zod are in the bin's bundle
// (scripts/build-cli.ts), not loaded from node_modules.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CLI_PATH, makeTempDir, removeDir } from './helpers.js';

const RECORDER = fileURLToPath(new URL('../fixtures/record-modules.mjs', import.meta.url));

const NOT_BEFORE_THE_FIRST_ANSWER = [
  'express',
  'pg',
  'oidc-provider',
  '@huggingface/transformers',
  '@huggingface/tokenizers',
  'onnxruntime-node',
  'onnxruntime-common',
  'sharp',
  'usearch',
  'yaml',
  'simple-statistics',
];

/** Packages the bin carries in its bundle: none of their files in node_modules is loaded. */
const BUNDLED = ['@modelcontextprotocol/server', '@modelcontextprotocol/core', 'zod', 'express'];

/** The package a module's path or URL is in, or undefined for mnemo's own and node's. */
function packageOf(name: string): string | undefined {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(name);
  return match?.[1];
}

/** Spawns `mnemo stdio` on `dir`, asks `initialize`, and lists the packages loaded by its answer. */
async function packagesAtFirstAnswer(
  dir: string,
  env: Record<string, string>,
): Promise<{ packages: string[]; bundled: string[] }> {
  const record = path.join(dir, 'modules.txt');
  const child = spawn(process.execPath, ['--import', RECORDER, CLI_PATH, 'stdio'], {
    env: {
      PATH: process.env.PATH ?? '',
      MNEMO_DATA_DIR: path.join(dir, 'data'),
      MNEMO_LOG_LEVEL: 'warn',
      MNEMO_TEST_MODULES_FILE: record,
      ...env,
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const answer = new Promise<string>((resolve, reject) => {
      child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8')));
      child.once('exit', (code) => reject(new Error(`mnemo stdio exited (${code}) unanswered`)));
    });
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'imports-test', version: '1' },
        },
      })}\n`,
    );
    assert.match(await answer, /"protocolVersion"/);
  } finally {
    child.stdin.end();
    await exited;
  }
  const lines = fs.readFileSync(record, 'utf8').split('\n');
  const answered = lines.indexOf('ANSWERED');
  assert.ok(answered > 0, 'the recorder saw modules load, then the first answer');
  const packages = new Set<string>();
  const loadedBefore = [...lines.slice(0, answered), ...lines.filter((l) => l.startsWith('cjs '))];
  for (const line of loadedBefore) {
    const name = packageOf(line);
    if (name) packages.add(name);
  }
  return { packages: [...packages].sort(), bundled: bundledIn(lines.slice(0, answered)) };
}

/**
 * The packages inside the bin's own files that were loaded (the bundle's chunks), by the paths
 * esbuild notes for each module it bundled: express and the others loaded from the bundle.
 */
function bundledIn(loaded: readonly string[]): string[] {
  const packages = new Set<string>();
  for (const line of loaded) {
    const url = line.replace(/^esm /, '');
    if (!url.startsWith('file:') || packageOf(url)) continue;
    const text = fs.readFileSync(fileURLToPath(url), 'utf8');
    for (const match of text.matchAll(
      /^(?:\/\/ | {2}")\S*node_modules\/((?:@[^/]+\/)?[^/]+)\//gm,
    )) {
      packages.add(match[1] as string);
    }
  }
  return [...packages].sort();
}

describe('mnemo stdio: what is loaded before the first answer', () => {
  for (const embeddings of ['static', 'off']) {
    it(`MNEMO_EMBEDDINGS=${embeddings}: pino, none of the heavy packages`, async (t) => {
      const dir = makeTempDir('mnemo-imports-');
      t.after(() => removeDir(dir));
      const { packages, bundled } = await packagesAtFirstAnswer(dir, {
        MNEMO_EMBEDDINGS: embeddings,
      });
      // The recorder sees ES modules and CommonJS ones alike.
      assert.ok(packages.includes('pino'), `pino in ${packages.join(', ')}`);
      const unbundled = packages.filter((name) => BUNDLED.includes(name));
      assert.deepEqual(unbundled, [], `loaded from node_modules, not the bundle: ${unbundled}`);
      const early = [...packages, ...bundled].filter((name) =>
        NOT_BEFORE_THE_FIRST_ANSWER.includes(name),
      );
      assert.deepEqual(early, [], `loaded before the first answer: ${early.join(', ')}`);
    });
  }
});
