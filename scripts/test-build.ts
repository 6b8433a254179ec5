// The checkout as plain JavaScript for the test runner: a mirror of the repository in a folder
// of its own, where every TypeScript file of src, test, bench and scripts sits beside its
// JavaScript (esbuild's transform, as tsx does it, per file) and everything else is a link to the
// original. Run from there, a test file loads with no loader hooks (tsx costs each test process
// about 1.5 s of CPU time to load mnemo through them), yet finds what it looks for by its own
// path as from the checkout: the .ts sources (linked), dist/, package.json, the fixtures.
//
//   mirrorForTests(root, into): writes the mirror into `into` (an empty folder)
import fs from 'node:fs';
import path from 'node:path';
import { transform } from 'esbuild';

/** The folders whose TypeScript is compiled; every other entry of the root is linked. */
const COMPILED = ['src', 'test', 'bench', 'scripts'];
/** What is never mirrored. */
const SKIPPED = new Set(['.git']);

const isTypeScript = (name: string) => name.endsWith('.ts') && !name.endsWith('.d.ts');

interface Work {
  from: string;
  to: string;
}

/** Walks a compiled folder: real folders, links to each file, and the .ts files to compile. */
function mirrorFolder(from: string, to: string, compile: Work[]): void {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      mirrorFolder(source, target, compile);
      continue;
    }
    fs.symlinkSync(source, target);
    if (isTypeScript(entry.name)) {
      const js = `${target.slice(0, -'.ts'.length)}.js`;
      // A folder holding both x.ts and x.js keeps its own x.js.
      if (!fs.existsSync(`${source.slice(0, -'.ts'.length)}.js`))
        compile.push({ from: source, to: js });
    }
  }
}

/** Writes the mirror of `root` into `into`; resolves with the number of files compiled. */
export async function mirrorForTests(root: string, into: string): Promise<number> {
  const compile: Work[] = [];
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const source = path.join(root, entry.name);
    const target = path.join(into, entry.name);
    if (entry.isDirectory() && COMPILED.includes(entry.name)) mirrorFolder(source, target, compile);
    else fs.symlinkSync(source, target);
  }
  const tsconfigRaw = fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8');
  await Promise.all(
    compile.map(async ({ from, to }) => {
      const { code } = await transform(fs.readFileSync(from, 'utf8'), {
        loader: 'ts',
        format: 'esm',
        platform: 'node',
        target: 'es2022',
        tsconfigRaw,
        sourcefile: from,
        sourcemap: 'inline',
      });
      fs.writeFileSync(to, code);
    }),
  );
  return compile.length;
}
