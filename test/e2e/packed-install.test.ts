// The package as a user gets it: `npm pack` of this build, installed globally into a temporary
// prefix with its production dependencies only (from the registry, or npm's cache), then the
// installed `mnemo`: its version, and a stdio session that saves a memory and finds it by meaning
// with the bundled static model. No ONNX runtime is installed; asking for MiniLM says how to get it.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { eventually } from '../support.js';

const run = promisify(execFile);
// The checkout itself: `npm test` runs a mirror whose files are links to it, and npm pack takes
// no linked file, so the root is where package.json really is.
const ROOT = path.dirname(
  fs.realpathSync(fileURLToPath(new URL('../../package.json', import.meta.url))),
);
const VERSION = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    version: string;
  }
).version;
/** What a production install may weigh, all dependencies included. */
const MAX_INSTALL_BYTES = 100 * 1024 * 1024;
/** npm's words for a registry it cannot reach, or not over TLS it can verify. */
const UNREACHABLE =
  /E(NOTFOUND|AI_AGAIN|CONNREFUSED|CONNRESET|TIMEDOUT|NETUNREACH|HOSTUNREACH)|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT/;

/** Bytes of the files under `dir` (their lengths; symlinks not followed). */
function sizeOf(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += fs.lstatSync(path.join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** How long the install may wait on the registry before the test calls it out of reach. */
const INSTALL_BOUND_MS = 150_000;

/**
 * The environment a user's install runs in: the machine's (its proxy, its certificate
 * authorities: NODE_EXTRA_CA_CERTS, SSL_CERT_FILE) without what `npm test` sets for the
 * project's own scripts (npm_config_* from its .npmrc and package.json) or mnemo's settings.
 */
function usersEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(npm_|MNEMO_)/i.test(name) && name !== 'NODE_OPTIONS',
    ),
  );
}

/** Runs npm with no stdin (it never waits on a prompt); rejects with its output on failure. */
function npm(args: string[], cwd: string, timeoutMs = INSTALL_BOUND_MS) {
  return new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn('npm', args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: usersEnvironment(),
      timeout: timeoutMs,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) return resolve({ stdout, stderr });
      const why = signal ? `ETIMEDOUT (stopped by ${signal})` : `exit ${code}`;
      reject(Object.assign(new Error(`npm ${args[0]}: ${why}\n${stderr}`), { stderr }));
    });
  });
}

describe('npm pack, then a global install of the tarball', () => {
  let dir: string;
  let prefix: string;
  let mnemo: string;
  /** Why the install could not be tried, when the registry is out of reach. */
  let unreachable: string | undefined;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-packed-'));
    prefix = path.join(dir, 'prefix');
    assert.ok(fs.existsSync(path.join(ROOT, 'dist/cli.js')), 'dist/ is built (npm run build)');
    // The build is already there: pack it as it is, without prepare's second build.
    const packed = await npm(
      ['pack', '--ignore-scripts', '--json', '--pack-destination', dir],
      ROOT,
    );
    const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
    try {
      await npm(
        [
          'install',
          '--global',
          '--prefix',
          prefix,
          '--omit=dev',
          '--prefer-offline',
          // A registry that drops packets would hold npm for its default 5 minutes a try.
          '--fetch-timeout=60000',
          '--fetch-retries=1',
          '--no-audit',
          '--no-fund',
          path.join(dir, filename),
        ],
        dir,
      );
    } catch (error) {
      const output = `${(error as { stderr?: string }).stderr ?? ''}${String(error)}`;
      const network = UNREACHABLE.exec(output);
      if (!network) throw error;
      unreachable = `the npm registry cannot be reached (${network[0]}): the packed install is not tried`;
    }
    mnemo = path.join(prefix, 'bin', 'mnemo');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('installs under 100 MB, without the ONNX runtime', (t) => {
    if (unreachable) return t.skip(unreachable);
    const modules = path.join(prefix, 'lib', 'node_modules');
    const bytes = sizeOf(modules);
    t.diagnostic(`installed: ${(bytes / 1024 / 1024).toFixed(1)} MiB`);
    assert.ok(bytes < MAX_INSTALL_BYTES, `${bytes} bytes`);
    const installed = path.join(modules, 'mnemo', 'node_modules');
    for (const name of ['@huggingface/transformers', 'onnxruntime-node', 'onnxruntime-web']) {
      assert.ok(!fs.existsSync(path.join(installed, name)), `${name} is not installed`);
    }
    assert.ok(fs.existsSync(path.join(modules, 'mnemo', 'models/static/embeddings.bin')));
  });

  it('runs the installed mnemo: --version', async (t) => {
    if (unreachable) return t.skip(unreachable);
    const { stdout } = await run(mnemo, ['--version']);
    assert.equal(stdout.trim(), VERSION);
  });

  /** A stdio session of the installed mnemo on a fresh data dir. */
  async function session(env: Record<string, string>) {
    const data = fs.mkdtempSync(path.join(dir, 'data-'));
    const transport = new StdioClientTransport({
      command: mnemo,
      args: ['stdio', '--data-dir', data],
      env: { MNEMO_LOG_LEVEL: 'warn', ...env },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const client = new Client({ name: 'mnemo-packed', version: '0.0.0' });
    await client.connect(transport);
    const ok = async <T>(name: string, args: Record<string, unknown> = {}) => {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
      return result.structuredContent as T;
    };
    const model = async () => {
      let stats: { embeddings: { state: string; model?: string } } | undefined;
      await eventually(
        async () => {
          const now = await ok<{ embeddings: { state: string; model?: string } }>('memory_stats');
          stats = now;
          return now.embeddings.state !== 'loading';
        },
        'the model to load',
        30_000,
      );
      return stats?.embeddings;
    };
    return { client, ok, model, stderr: () => stderr };
  }

  it('saves a memory and finds it by meaning with the static model, over stdio', async (t) => {
    if (unreachable) return t.skip(unreachable);
    const { client, ok, model } = await session({ MNEMO_EMBEDDINGS: 'static' });
    try {
      const embeddings = await model();
      assert.equal(embeddings?.state, 'ready');
      assert.match(String(embeddings?.model), /^mnemo\/static-glove-100d/);
      const kitten = await ok<{ memory_id: string }>('save_memory', {
        content: 'A kitten was sleeping on the rug by the window.',
      });
      await ok('save_memory', { content: 'The quarterly tax filing deadline is in April.' });
      const found = await ok<{ results: { memory_id: string }[] }>('search_memory', {
        query: 'cat resting on the carpet',
      });
      // No word of the query is in the memory: the match is by meaning alone.
      assert.equal(found.results[0]?.memory_id, kitten.memory_id);
    } finally {
      await client.close();
    }
  });

  it('asked for MiniLM without @huggingface/transformers, says how to install it and goes on with the static model', async (t) => {
    if (unreachable) return t.skip(unreachable);
    const { client, model, stderr } = await session({ MNEMO_EMBEDDINGS: 'minilm' });
    try {
      const embeddings = await model();
      assert.match(String(embeddings?.model), /^mnemo\/static-glove-100d/);
      assert.match(stderr(), /npm install @huggingface\/transformers/);
      assert.match(stderr(), /MNEMO_EMBEDDINGS=static/);
    } finally {
      await client.close();
    }
  });
});
