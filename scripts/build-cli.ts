// `npm run build`, last step: the bin (dist/cli.js) as one esbuild bundle of src/cli.ts, so a
// mnemo process loads a few files instead of ~330 modules one by one (resolution, reads and
// compiles were most of its start). The lazy `await import()`s stay lazy: code split into
// dist/chunks/, loaded when a command asks. The worker threads' entries go to dist/search/,
// where src/platform/package-root.ts's workerEntry looks for them.
//
// Bundled: mnemo's code and the pure ESM packages that cost the most modules (zod, the MCP SDK)
// with whatever they import that mnemo does not depend on itself. External (loaded from
// node_modules as before): mnemo's other dependencies, native, CommonJS or path-dependent ones
// (usearch, pg, pino's worker threads, express, oidc-provider, chokidar, yaml, @huggingface/*).
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = path.join(root, 'dist');

/** Packages bundled although mnemo depends on them: pure ESM, many modules. */
const BUNDLED = [/^zod$/, /^@modelcontextprotocol\//, /^stemmer$/, /^simple-statistics$/];

const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};
const ownDependencies = new Set([
  ...Object.keys(manifest.dependencies ?? {}),
  ...Object.keys(manifest.peerDependencies ?? {}),
]);

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}

/**
 * A bare import stays external when it names one of mnemo's own dependencies (so node finds it
 * from mnemo's folder as before) that is not in BUNDLED.
 */
const externals: Plugin = {
  name: 'mnemo-externals',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || builtinModules.includes(args.path)) {
        return { path: args.path, external: true };
      }
      const name = packageName(args.path);
      if (ownDependencies.has(name) && !BUNDLED.some((re) => re.test(name))) {
        return { path: args.path, external: true };
      }
      return undefined;
    });
  },
};

// Only the web page (scripts/build-web.ts) stays: the rest of dist/ is this bundle's.
for (const entry of fs.existsSync(dist) ? fs.readdirSync(dist) : []) {
  if (entry !== 'web') fs.rmSync(path.join(dist, entry), { recursive: true, force: true });
}
const result = await build({
  entryPoints: {
    cli: path.join(root, 'src', 'cli.ts'),
    'search/load-words-worker': path.join(root, 'src', 'search', 'load-words-worker.ts'),
    'search/ann-worker': path.join(root, 'src', 'search', 'ann-worker.ts'),
  },
  outdir: dist,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: ['node20'],
  sourcemap: true,
  // Stack traces name the src/ files and lines (--enable-source-maps); the text is not needed.
  sourcesContent: false,
  // CommonJS code bundled from a dependency calls require: the ESM output gives it node's.
  banner: {
    js: "import { createRequire as __mnemoCreateRequire } from 'node:module';\nconst require = __mnemoCreateRequire(import.meta.url);",
  },
  plugins: [externals],
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});
const cli = path.join(dist, 'cli.js');
// The shebang of src/cli.ts is first in the file, before the banner, for the bin to run.
const text = fs.readFileSync(cli, 'utf8');
if (!text.startsWith('#!/usr/bin/env node\n')) {
  fs.writeFileSync(cli, `#!/usr/bin/env node\n${text.replace(/^#!.*\n/m, '')}`);
}
fs.chmodSync(cli, 0o755);
if (process.env.MNEMO_BUILD_SIZES === '1') {
  for (const [file, out] of Object.entries(result.metafile.outputs)) {
    if (!file.endsWith('.map')) console.log(`${file} ${out.bytes}`);
  }
}
