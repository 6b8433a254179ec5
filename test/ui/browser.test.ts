// The page in a real browser (Debian's Chromium through playwright-core) against a real
// `mnemo serve` on a seeded data dir with a fixed clock. Takes the README's screenshots.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { CLI_PATH, makeTempDir, removeDir } from '../e2e/helpers.js';
import { T0 } from '../support.js';
import { IDS, seedDataDir, XSS_IMG, XSS_LINK } from './seed.js';

const CHROMIUM = '/usr/bin/chromium';
const TOKEN = 'browser-token-0123456789';
/**
 * Where the screenshots go: the README's (docs/screenshots) with `npm run screenshots`, else
 * nowhere, so a test run leaves the tree as it was (a PNG differs from run to run in its bytes).
 */
const SHOTS = process.env.MNEMO_SCREENSHOTS;
const skip = fs.existsSync(CHROMIUM) ? false : 'install chromium: apt-get install -y chromium';

describe('the web page in Chromium', { skip }, () => {
  const dir = makeTempDir();
  let server: ChildProcess | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let base = '';
  /** Every alert, prompt or beforeunload: none may come from a memory's content. */
  const unexpected: string[] = [];

  before(
    async () => {
      seedDataDir(dir);
      server = spawn(process.execPath, [CLI_PATH, 'serve', '--port', '0', '--data-dir', dir], {
        env: {
          PATH: process.env.PATH ?? '',
          MNEMO_NOW: String(T0),
          MNEMO_AUTH_TOKEN: TOKEN,
          MNEMO_EMBEDDINGS: 'off',
          MNEMO_LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const child = server;
      base = await new Promise<string>((resolve, reject) => {
        let printed = '';
        child.stdout?.on('data', (chunk: Buffer) => {
          printed += chunk.toString('utf8');
          const m = /the web page at (http:\/\/[^\s/]+)\/ui/.exec(printed);
          if (m) resolve(m[1] as string);
        });
        child.on('exit', (code) => reject(new Error(`serve exited (${code}): ${printed}`)));
      });
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ['--no-sandbox', '--disable-background-networking'],
      });
      page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.on('dialog', (dialog) => {
        if (dialog.type() === 'confirm') void dialog.accept();
        else {
          unexpected.push(`${dialog.type()}: ${dialog.message()}`);
          void dialog.dismiss();
        }
      });
      if (SHOTS) fs.mkdirSync(SHOTS, { recursive: true });
    },
    { timeout: 60_000 },
  );

  after(async () => {
    await browser?.close();
    if (server && server.exitCode === null) {
      const gone = new Promise((resolve) => server?.on('exit', resolve));
      server.kill('SIGTERM');
      await gone;
    }
    removeDir(dir);
  });

  const shot = async (name: string) => {
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  };
  const open = async (route: string) => {
    await page.goto(`${base}/ui#/${route}`);
  };

  it('takes the token from the fragment, drops it from the address, and lists the memories', async () => {
    await page.goto(`${base}/ui#token=${TOKEN}`);
    await page.locator('#memories tbody tr').first().waitFor();
    assert.doesNotMatch(page.url(), /token/);
    assert.equal(await page.evaluate("sessionStorage.getItem('mnemo.token')"), TOKEN);
    assert.equal(await page.locator('#memories tbody tr').count(), 7);
    await shot('memories');
  });

  it('searches and opens a memory with the keyboard; its plot is drawn', async () => {
    await open('memories');
    const search = page.getByRole('searchbox', { name: 'Search' });
    await search.focus();
    await page.keyboard.type('cat rug');
    await page.keyboard.press('Enter');
    await page.locator('#memories-count', { hasText: 'match' }).waitFor();
    const first = page.locator('#memories tbody tr a').first();
    assert.match((await first.textContent()) ?? '', /Ralph/);
    await first.focus();
    await page.keyboard.press('Enter');
    await page.locator('#curve[data-drawn="true"] canvas').waitFor();
    const size = await page.evaluate("document.querySelector('#curve canvas').width");
    assert.ok(typeof size === 'number' && size > 200);
    assert.match(page.url(), new RegExp(`#/memory/${IDS.cat}$`));
    await shot('memory');
  });

  it('shows markup and javascript: links in a memory as text, and runs none of it', async () => {
    await open(`memory/${IDS.img}`);
    await page.locator('#content').waitFor();
    assert.equal(await page.locator('#content').textContent(), XSS_IMG);
    assert.equal(await page.locator('#content img').count(), 0);
    // Its date in words, and the memory saved around it, its markup shown as text too.
    assert.match(
      (await page.locator('#when').textContent()) ?? '',
      /2025-12-31, a Wednesday, yesterday/,
    );
    const around = page.locator(`#neighbours a[href="#/memory/${IDS.link}"]`);
    assert.equal(await around.textContent(), XSS_LINK);
    await open('memories');
    await page.locator('#memories tbody tr').first().waitFor();
    assert.equal(await page.locator('img').count(), 0);
    assert.equal(await page.locator('a[href^="javascript:"]').count(), 0);
    await open(`memory/${IDS.link}`);
    await page.locator('#content').waitFor();
    assert.equal(await page.locator('a[href^="javascript:"]').count(), 0);
    assert.deepEqual(unexpected, []);
  });

  it('previews gc at a later date with the slider', async () => {
    await open('forgetting');
    await page.locator('#gc-summary', { hasText: 'forget 1 memory' }).waitFor();
    await page.getByLabel(/Days from now/).fill('30');
    await page.locator('#gc-summary', { hasText: 'forget 2 memories' }).waitFor();
    assert.match((await page.locator('#gc-summary').textContent()) ?? '', /2026-01-31/);
    assert.equal(await page.locator('#gc tbody tr').count(), 2);
    await shot('forgetting');
  });

  it('archives and restores a memory, each after a confirmation', async () => {
    await open(`memory/${IDS.cat}`);
    await page.locator('#status', { hasText: 'active' }).waitFor();
    await page.getByRole('button', { name: 'Archive' }).click();
    await page.locator('#status', { hasText: 'archived' }).waitFor();
    await page.getByRole('button', { name: 'Restore' }).click();
    await page.locator('#status', { hasText: 'active' }).waitFor();
  });

  it('its API refuses a call without the token, and one from another origin', async () => {
    await open('memories');
    const bare = await page.evaluate(async () => (await fetch('/ui/api/session')).status);
    assert.equal(bare, 401);
    // localhost and 127.0.0.1 are two origins: a page on one is another site to the other.
    await page.goto(`${base.replace('127.0.0.1', 'localhost')}/ui`);
    const target = `${base}/ui/api`;
    const read = await page.evaluate(
      async ([url, token]) => {
        try {
          const res = await fetch(`${url}/session`, {
            headers: { authorization: `Bearer ${token}` },
          });
          return `read ${res.status}`;
        } catch {
          return 'refused';
        }
      },
      [target, TOKEN] as const,
    );
    assert.equal(read, 'refused');
    await page.evaluate(async (url) => {
      await fetch(`${url}/gc`, { method: 'POST', mode: 'no-cors', body: '{}' }).catch(() => {});
    }, target);
    const left = await fetch(`${target}/memories`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(((await left.json()) as { total: number }).total, 7, 'gc did not run');
  });

  it('shows review, promotion and overview, and fits 390 px', async () => {
    for (const [route, ready] of [
      ['review', '#review tbody tr'],
      ['promotion', '#promotion tbody tr'],
      ['overview', '#per-day[data-drawn="true"]'],
    ] as const) {
      await open(route);
      await page.locator(ready).first().waitFor();
      await shot(route);
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await open('memories');
    await page.locator('#memories tbody tr').first().waitFor();
    const width = Number(await page.evaluate('document.documentElement.scrollWidth'));
    assert.ok(width <= 390, `no sideways scroll (${width} px)`);
    await shot('memories-390');
    await open(`memory/${IDS.cat}`);
    await page.locator('#curve[data-drawn="true"]').waitFor();
    assert.ok(Number(await page.evaluate('document.documentElement.scrollWidth')) <= 390);
    await shot('memory-390');
  });
});
