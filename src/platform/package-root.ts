// The folder of mnemo's package.json, found once by walking up from this module: the same
// answer from the sources (src/platform/, under tsx or the tests' compiled mirror), from a
// per-file build (dist/platform/) and from the bundled bin (dist/cli.js, dist/chunks/), whose
// code sits at other depths. Files shipped beside the code (package.json, vault-template/,
// models/, dist/web/, the worker entries) are found from here instead of `../..` by hand.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

let root: string | undefined;

/** The first folder at or above `from` whose package.json is named mnemo. */
export function findPackageRoot(from: string): string {
  for (let dir = from; ; ) {
    const manifest = path.join(dir, 'package.json');
    try {
      const { name } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: unknown };
      if (name === 'mnemo') return dir;
    } catch {
      // No package.json here (or not JSON): look one folder up.
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json of mnemo at or above ${from}`);
    dir = parent;
  }
}

/** mnemo's package root (where package.json, vault-template/, models/ and dist/ are). */
export function packageRoot(): string {
  root ??= findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));
  return root;
}

/** A path under the package root. */
export function fromPackageRoot(...parts: string[]): string {
  return path.join(packageRoot(), ...parts);
}

/**
 * The compiled entry file of a worker thread (`name`.js, e.g. ann-worker), for the module at
 * `moduleUrl` that starts it: beside that module in a per-file build (dist/search/, the tests'
 * mirror), else dist/search/ under the package root, where the bundled bin's build writes the
 * workers (its code that starts them sits in dist/cli.js or dist/chunks/).
 */
export function workerEntry(moduleUrl: string, name: string): URL {
  const beside = new URL(`./${name}.js`, moduleUrl);
  if (fs.existsSync(beside)) return beside;
  return pathToFileURL(fromPackageRoot('dist', 'search', `${name}.js`));
}

/**
 * Starts the worker thread `name` (e.g. ann-worker) of the module at `moduleUrl`: its compiled
 * entry (`workerEntry`), or, when that module runs from its TypeScript source (the tests and
 * benches, under tsx), the source beside it, with tsx's loader registered first (a worker does
 * not inherit the main thread's).
 */
export function startWorker(moduleUrl: string, name: string, options: WorkerOptions = {}): Worker {
  if (!new URL(moduleUrl).pathname.endsWith('.ts')) {
    return new Worker(workerEntry(moduleUrl, name), options);
  }
  const source = JSON.stringify(new URL(`./${name}.ts`, moduleUrl).href);
  return new Worker(
    `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${source}); })`,
    { ...options, eval: true },
  );
}
