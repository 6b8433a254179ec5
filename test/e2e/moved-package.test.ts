// The built bin run from a copy of the package in a temporary folder (dist/, vault-template/,
// models/ and a package.json of another version; node_modules linked): what it reads beside its
// code (the version, the vault template, the web page) comes from the copy's package root,
// wherever the bundle put the code that asks (src/platform/package-root.ts).
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { CLI_PATH, makeTempDir, removeDir } from './helpers.js';

const run = promisify(execFile);
const ROOT = path.dirname(path.dirname(fs.realpathSync(CLI_PATH)));
const MOVED_VERSION = '9.8.7-moved';

describe('the bin from a copy of the package', () => {
  let tmp: string;
  let cli: string;
  let env: NodeJS.ProcessEnv;

  before(() => {
    tmp = makeTempDir('mnemo-moved-');
    const pkg = path.join(tmp, 'pkg');
    for (const dir of ['dist', 'vault-template', 'models']) {
      fs.cpSync(path.join(ROOT, dir), path.join(pkg, dir), { recursive: true, dereference: true });
    }
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    fs.writeFileSync(
      path.join(pkg, 'package.json'),
      JSON.stringify({ ...manifest, version: MOVED_VERSION }),
    );
    fs.symlinkSync(
      fs.realpathSync(path.join(ROOT, 'node_modules')),
      path.join(pkg, 'node_modules'),
    );
    cli = path.join(pkg, 'dist', 'cli.js');
    env = {
      PATH: process.env.PATH ?? '',
      MNEMO_DATA_DIR: path.join(tmp, 'data'),
      MNEMO_EMBEDDINGS: 'off',
    };
  });
  after(() => removeDir(tmp));

  it('prints the version of the package.json beside it', async () => {
    const { stdout } = await run(process.execPath, [cli, '--version'], { env });
    assert.match(stdout, new RegExp(MOVED_VERSION.replaceAll('.', '\\.')));
  });

  it('makes a vault from its vault-template', async () => {
    const vault = path.join(tmp, 'vault');
    await run(process.execPath, [cli, 'vault', 'init', vault], { env });
    assert.ok(fs.existsSync(path.join(vault, '.obsidian', 'app.json')));
  });

  it('serves the web page from its dist/web', async () => {
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const base = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString('utf8');
          const m = /mnemo serve: (http:\/\/\S+)\/mcp\b/.exec(out);
          if (m) resolve(m[1] as string);
        });
        child.on('exit', (code) => reject(new Error(`mnemo serve exited (${code}): ${out}`)));
      });
      const page = await fetch(`${base}/ui`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<html/i);
      const script = await fetch(`${base}/ui/assets/app.js`);
      assert.equal(script.status, 200);
      assert.ok((await script.text()).length > 1000);
    } finally {
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });

  // A worker whose entry is missing costs only time (the main thread does its work), so nothing
  // else would tell: each entry of the copy's dist/search starts and answers its first message.
  it('starts its worker threads from its dist/search', async () => {
    const search = path.join(tmp, 'pkg', 'dist', 'search');
    const answer = (worker: Worker) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
    const log = path.join(tmp, 'empty.jsonl');
    fs.writeFileSync(log, '');
    const words = new Worker(path.join(search, 'load-words-worker.js'), {
      workerData: {
        path: log,
        ino: fs.statSync(log).ino,
        from: 0,
        to: 0,
        index: 0,
        of: 1,
        window: 8,
        stripeBytes: 2 << 20,
      },
    });
    try {
      assert.deepEqual(await answer(words), { done: true });
    } finally {
      await words.terminate();
    }
    const ann = new Worker(path.join(search, 'ann-worker.js'));
    try {
      const verified = answer(ann);
      ann.postMessage({
        type: 'verify',
        file: path.join(tmp, 'no-such.ann'),
        shape: {
          model: 'm',
          dimensions: 4,
          connectivity: 16,
          expansionAdd: 64,
          expansionSearch: 32,
        },
      });
      const reply = await verified;
      assert.equal(reply.type, 'verified');
      assert.equal(reply.ok, false);
      assert.equal(reply.missing, true);
    } finally {
      await ann.terminate();
    }
  });
});
