// The consent page at /ui/consent?uid=…: the web page's own file (web/, built into dist/web),
// whose script sees the path and shows the consent view over the consent API (consent.ts), with
// the page's Content-Security-Policy. Nothing of the request is in the HTML: the client's name
// reaches the page as JSON and is set as text.
import fs from 'node:fs';
import type express from 'express';
import { PAGE_HEADERS, webDir } from '../ui/page.js';

export function consentPage(dir = webDir()): express.RequestHandler {
  return (_req, res) => {
    res.set(PAGE_HEADERS).set('Cache-Control', 'no-store');
    const index = `${dir}index.html`;
    if (!fs.existsSync(index)) {
      res
        .status(503)
        .type('text/plain')
        .send('the consent page is not built: run npm run build in mnemo, then reload');
      return;
    }
    res.sendFile(index);
  };
}
