// `npm run build`, last step: the bin (dist/cli.js) as one esbuild bundle of src/cli.ts, so a
// mnemo process loads a few files instead of ~330 modules one by one (resolution, reads and
// compiles were most of its start). The lazy `await import()`s stay lazy: code split into
// dist/chunks/, loaded when a command asks. The worker threads' entries go to dist/search/,
// where src/platform/package-root.ts's workerEntry looks for them.
//
// Bundled: mnemo's code and the pure ESM packages that cost the most modules (zod, the MCP SDK),
// express (CommonJS, ~60 modules, with what it loads cut below), with whatever they import that
// mnemo does not depend on itself. External (loaded from node_modules as before): mnemo's other
// dependencies, native, CommonJS or path-dependent ones (usearch, pg, pino's worker threads,
// oidc-provider, chokidar, yaml, @huggingface/*).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = path.join(root, 'dist');

/** Packages bundled although mnemo depends on them: pure ESM, many modules (express: CommonJS). */
const BUNDLED = [
  /^zod$/,
  /^@modelcontextprotocol\//,
  /^stemmer$/,
  /^simple-statistics$/,
  /^express$/,
];

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

/**
 * What a start does not need, left out of it (issue 26: a replica's start is its CPU), the
 * behaviour otherwise the same:
 * - the MCP server SDK's node shims load its copy of ajv (~290 KB) with the SDK; the stand-in,
 *   src/transport/mcp-shims.ts, loads the SDK's validator when a schema is first validated (an
 *   elicitation's answer);
 * - zod's `z.locales` holds ~60 languages' messages (~340 KB to compile) for
 *   `z.config(z.locales.xx())`, which neither mnemo nor the SDK calls: English alone stays;
 * - express and body-parser load qs (with side-channel and get-intrinsic, ~35 ms) for the
 *   "extended" query and form parsers, which mnemo does not use: qs loads on its first call;
 * - a package's JSON (mime-db's types, iconv-lite's tables: ~700 KB) stays a JSON file, in
 *   dist/json/, required as node did from node_modules: in the bundle it would be a literal that
 *   V8 reads (and its strings interned) at each start, used or not.
 */
const startCuts: Plugin = {
  name: 'mnemo-start-cuts',
  setup(b) {
    b.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({
      path: path.join(root, 'src', 'transport', 'mcp-shims.ts'),
    }));
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic[\\/]external|core[\\/]index)\.js$/.test(args.importer)
        ? { path: path.join(args.resolveDir, '..', 'locales', 'index.js'), namespace: 'zod-en' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-en' }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: path.dirname(args.path),
      loader: 'js',
    }));
    // The stand-in's own require('qs') (namespace lazy-qs) resolves as usual, to the real qs.
    b.onResolve({ filter: /^qs$/ }, (args) =>
      args.namespace !== 'lazy-qs' &&
      /[\\/]node_modules[\\/](express|body-parser)[\\/]/.test(args.importer)
        ? { path: args.importer, namespace: 'lazy-qs' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-qs' }, (args) => ({
      contents: [
        'let qs;',
        "const load = () => (qs ??= require('qs'));",
        'module.exports = {',
        '  parse: (text, options) => load().parse(text, options),',
        '  stringify: (value, options) => load().stringify(value, options),',
        '};',
      ].join('\n'),
      resolveDir: path.dirname(args.path),
      loader: 'js',
    }));
    b.onLoad({ filter: /[\\/]node_modules[\\/].*\.json$/ }, (args) => {
      const text = fs.readFileSync(args.path);
      const name = `${args.path
        .split(/[\\/]node_modules[\\/]/)
        .at(-1)
        ?.replace(/[\\/]/g, '+')
        .replace(
          /\.json$/,
          '',
        )}-${createHash('sha256').update(text).digest('hex').slice(0, 8)}.json`;
      fs.mkdirSync(path.join(dist, 'json'), { recursive: true });
      fs.writeFileSync(path.join(dist, 'json', name), text);
      // In dist/json/, found from the file the code lands in: dist/cli.js or one folder down.
      const where = `(/\\/(chunks|search)\\/[^/]+$/.test(__mnemoUrl) ? '../' : './') + ${JSON.stringify(`json/${name}`)}`;
      return {
        contents: `module.exports = require(require('node:url').fileURLToPath(new URL(${where}, __mnemoUrl)));`,
      };
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
    'search/rank-facts-worker': path.join(root, 'src', 'search', 'rank-facts-worker.ts'),
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
  // CommonJS code bundled from a dependency calls require: the ESM output gives it node's. The
  // file's own URL is there for that code too (it has no import.meta): see startCuts's JSON.
  banner: {
    js: "import { createRequire as __mnemoCreateRequire } from 'node:module';\nconst __mnemoUrl = import.meta.url;\nconst require = __mnemoCreateRequire(__mnemoUrl);",
  },
  plugins: [startCuts, externals],
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
