// npm run bench:ui [-- --size 100000 --loads 5 --calls 50]
// The web page against a data dir of `size` memories: its first load in Chromium (time until the
// memories list is on screen, bytes over the wire) and the API's p50 for the list and one
// memory's curve (README, The web page).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { buildVocabulary, ContentGenerator } from './lib/content.js';
import { summarize } from './lib/percentile.js';
import { killGroup, spawnGroup } from './lib/processes.js';
import { machine } from './lib/report.js';
import { writeMnemoStore } from './lib/stores.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = path.join(ROOT, 'dist/cli.js');
const CHROMIUM = '/usr/bin/chromium';
const TOKEN = 'bench-ui-token-0123456789';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '100000' },
    loads: { type: 'string', default: '5' },
    calls: { type: 'string', default: '50' },
  },
});
const size = Number(values.size);
const loads = Number(values.loads);
const calls = Number(values.calls);
if (!fs.existsSync(CHROMIUM)) {
  console.error('install chromium: apt-get install -y chromium');
  process.exit(1);
}

const now = Math.floor(Date.now() / 1000);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-bench-ui-'));
const generator = new ContentGenerator(buildVocabulary(), 5);
writeMnemoStore(path.join(dir, 'memories.jsonl'), generator.sentences(size), now);
const queries = generator.queries(calls);

const server = spawnGroup(dir, process.execPath, [CLI, 'serve', '--port', '0', '--data-dir', dir], {
  MNEMO_NOW: String(now),
  MNEMO_AUTH_TOKEN: TOKEN,
  MNEMO_EMBEDDINGS: 'off',
  MNEMO_RATE_LIMIT: '0',
  MNEMO_LOG_LEVEL: 'warn',
});
try {
  const base = await new Promise<string>((resolve, reject) => {
    let printed = '';
    server.stdout?.on('data', (chunk: Buffer) => {
      printed += chunk.toString('utf8');
      const m = /the web page at (http:\/\/\S+)\/ui/.exec(printed);
      if (m) resolve(m[1] as string);
    });
    server.on('exit', (code) => reject(new Error(`serve exited (${code})`)));
  });
  const headers = { authorization: `Bearer ${TOKEN}` };
  // The store loads in the background: the figures are of a server ready to answer.
  for (;;) {
    const health = (await (await fetch(`${base}/health`)).json()) as { store: string };
    if (health.store === 'ready') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const timed = async (route: string) => {
    const started = performance.now();
    const res = await fetch(`${base}/ui/api${route}`, { headers });
    const body = (await res.json()) as unknown;
    if (!res.ok) throw new Error(`${route}: ${res.status}`);
    return { ms: performance.now() - started, body };
  };

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking'],
  });
  const firstLoads: { ms: number; inPage: number; bytes: number }[] = [];
  for (let i = 0; i < loads; i++) {
    // A fresh profile each time: nothing cached.
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    let bytes = 0;
    cdp.on('Network.loadingFinished', (event) => {
      bytes += event.encodedDataLength;
    });
    const started = performance.now();
    await page.goto(`${base}/ui#token=${TOKEN}`);
    await page.locator('#memories tbody tr').nth(49).waitFor();
    const ms = performance.now() - started;
    // The page's own clock: from the start of its navigation, the browser's start-up aside.
    const inPage = Number(await page.evaluate('performance.now()'));
    firstLoads.push({ ms, inPage, bytes });
    await context.close();
  }
  await browser.close();

  const list = await timed('/memories');
  const ids = (list.body as { rows: { id: string }[] }).rows.map((r) => r.id);
  const lists: number[] = [];
  const searches: number[] = [];
  const curves: number[] = [];
  for (let i = 0; i < calls; i++) {
    lists.push((await timed('/memories')).ms);
    searches.push((await timed(`/memories?q=${encodeURIComponent(queries[i] as string)}`)).ms);
    curves.push((await timed(`/memories/${ids[i % ids.length]}`)).ms);
  }
  const first = firstLoads[0] as { ms: number; inPage: number; bytes: number };
  const loadTimes = summarize(firstLoads.map((l) => l.ms));
  const m = machine();
  const r = (x: number) => Math.round(x * 10) / 10;
  console.log(
    [
      `mnemo web page, ${size.toLocaleString('en')} memories (${m.cpu}, ${m.cores} cores, ${m.ramGb} GB, Node ${m.node})`,
      '',
      '| measure | value |',
      '|---|---|',
      `| first load to the list on screen, the first after the start | ${r(first.ms)} ms |`,
      `| first load to the list on screen, p50 of ${loads} (a fresh profile each) | ${r(loadTimes.p50)} ms |`,
      `| the same, by the page's clock (from its navigation start), p50 | ${r(summarize(firstLoads.map((l) => l.inPage)).p50)} ms |`,
      `| bytes transferred by a first load | ${Math.round(first.bytes / 1024)} KiB |`,
      `| API p50, the list (50 by score) | ${r(summarize(lists).p50)} ms |`,
      `| API p50, a search of the list | ${r(summarize(searches).p50)} ms |`,
      `| API p50, one memory with its curve | ${r(summarize(curves).p50)} ms |`,
    ].join('\n'),
  );
} finally {
  await killGroup(server);
  fs.rmSync(dir, { recursive: true, force: true });
}
