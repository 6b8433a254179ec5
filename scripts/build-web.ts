// `npm run build`, second half: the web page (web/) bundled into dist/web with esbuild, from
// the npm packages alone, so mnemo serves it offline.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = path.join(root, 'dist', 'web');

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(path.join(out, 'assets'), { recursive: true });
await build({
  entryPoints: {
    app: path.join(root, 'web', 'src', 'main.tsx'),
  },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: path.join(out, 'assets'),
  legalComments: 'none',
  logLevel: 'warning',
});
await build({
  entryPoints: { app: path.join(root, 'web', 'src', 'app.css') },
  bundle: true,
  minify: true,
  outdir: path.join(out, 'assets'),
  logLevel: 'warning',
});
fs.copyFileSync(path.join(root, 'web', 'index.html'), path.join(out, 'index.html'));
// Compressed once here, so the server sends the .gz to a browser that takes gzip, no work a call.
for (const name of ['app.js', 'app.css']) {
  const file = path.join(out, 'assets', name);
  fs.writeFileSync(`${file}.gz`, zlib.gzipSync(fs.readFileSync(file), { level: 9 }));
}
