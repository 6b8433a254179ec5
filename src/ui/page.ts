// The web page's files (built by `npm run build` into dist/web), served under /ui with a strict
// Content-Security-Policy: scripts and styles from mnemo only, nothing inline, no frames.
import fs from 'node:fs';
import path from 'node:path';
import express from 'express';
import { fromPackageRoot } from '../platform/package-root.js';

/** dist/web under the package root (built by `npm run build`), with a trailing separator. */
export function webDir(): string {
  return `${fromPackageRoot('dist', 'web')}${path.sep}`;
}

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Every answer of the page's routes: its CSP, no sniffing, no referrer, no frames. */
export const PAGE_HEADERS = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const ASSET_TYPES: Record<string, string> = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/**
 * GET /ui (the page) and /ui/assets/* (its script and styles). The page holds no data, so it
 * needs no token: its script asks the API with one.
 */
export function uiPage(dir = webDir()): express.Router {
  const router = express.Router();
  router.use((_req, res, next) => {
    res.set(PAGE_HEADERS);
    next();
  });
  router.get('/', (_req, res) => {
    const index = `${dir}index.html`;
    if (!fs.existsSync(index)) {
      res
        .status(503)
        .type('text/plain')
        .send('the web page is not built: run npm run build in mnemo, then reload');
      return;
    }
    res.set('Cache-Control', 'no-cache').sendFile(index);
  });
  // The script and the styles as the build compressed them, to a browser that takes gzip.
  router.get('/assets/:name', (req, res, next) => {
    const name = req.params.name;
    const type = ASSET_TYPES[name];
    const packed = `${dir}assets/${name}.gz`;
    if (!type || !req.acceptsEncodings('gzip') || !fs.existsSync(packed)) {
      next();
      return;
    }
    res
      .set({ 'Content-Encoding': 'gzip', 'Content-Type': type, Vary: 'Accept-Encoding' })
      .set('Cache-Control', 'public, max-age=3600')
      .sendFile(packed);
  });
  router.use('/assets', express.static(`${dir}assets`, { index: false, maxAge: '1h' }));
  return router;
}
