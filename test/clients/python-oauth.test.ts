// The Python MCP SDK's OAuth client (mcp.client.auth.OAuthClientProvider, in a venv made as for
// python.test.ts) through mnemo's whole OAuth flow at /connect/mcp: discovery, dynamic
// registration, authorize with PKCE, the consent page driven in Chromium (the SDK's redirect
// handler prints the authorize URL; this test opens it, types the token, picks a namespace and
// allows; the browser lands on the script's own loopback listener), token, tools/list,
// save_memory, search_memory, and a refresh. mnemo runs in-process with OAuth and the web page on
// port 0 (its public URL is its loopback URL, known only once it listens). Skips, saying why,
// without python3, the SDK (no package index) or Chromium.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { ADMIN, type OAuthHarness } from '../oauth/support-oauth.js';
import { startOAuthWithPage } from '../oauth/support-page.js';
import { openTestMemory, type TestMemory, tempDir } from '../support.js';
import { childEnv, type Python, type Ran, sdkVenv, summaryOf, usable } from './support-python.js';

const SCRIPT = fileURLToPath(new URL('../fixtures/python/oauth_client.py', import.meta.url));
const CHROMIUM = '/usr/bin/chromium';
const CLIENT_NAME = 'Python SDK OAuth test';
const RUN_MS = 120_000;
const noChromium = fs.existsSync(CHROMIUM)
  ? false
  : 'install chromium: apt-get install -y chromium';

describe('the Python MCP SDK OAuth client, consent in Chromium', {
  skip: noChromium,
  timeout: 15 * 60_000,
}, () => {
  let root: string;
  let sdk: Python | undefined;
  let t: TestMemory;
  let h: OAuthHarness;
  let browser: Browser | undefined;
  before(async () => {
    root = tempDir('mnemo-python-oauth-');
    sdk = await sdkVenv(root);
    if ('skip' in sdk) return;
    t = await openTestMemory({}, path.join(root, 'data'));
    h = await startOAuthWithPage(t);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-background-networking'],
    });
  });
  after(async () => {
    await browser?.close();
    await h?.close();
    await t?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** What the consent page showed the person. */
  const shown: { name?: string | null; host?: string | null } = {};

  /** Consents in Chromium to the authorize URL the script prints; the browser lands on its listener. */
  async function consent(url: string): Promise<void> {
    const page = await (browser as Browser).newPage();
    try {
      await page.goto(url);
      await page.locator('#client-name').waitFor();
      shown.name = await page.locator('#client-name').textContent();
      shown.host = await page.locator('#redirect-host').textContent();
      await page.getByLabel('Access token').fill(ADMIN);
      await page.getByLabel('work').check();
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((at) => at.pathname === '/callback');
    } finally {
      await page.close();
    }
  }

  /** Runs the script to its end, consenting when it asks. */
  function runClient(python: string): Promise<Ran> {
    return new Promise((resolve) => {
      const child = spawn(python, [SCRIPT, '--url', h.resource], {
        env: childEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      let asked = false;
      const timer = setTimeout(() => child.kill('SIGKILL'), RUN_MS);
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        const url = asked ? null : /^AUTHORIZE (\S+)$/m.exec(stdout)?.[1];
        if (!url) return;
        asked = true;
        consent(url).catch((error: Error) => {
          stderr += `\nconsent in Chromium failed: ${error.message}`;
          child.kill('SIGKILL');
        });
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  }

  it('registers, gets the consent of the person in Chromium, calls the tools, and refreshes', async (t2) => {
    const python = usable(t2, sdk);
    if (!python) return;
    const ran = await runClient(python);
    const summary = summaryOf(ran, 'the Python SDK OAuth client');
    assert.equal(shown.name, CLIENT_NAME);
    assert.match(shown.host ?? '', /^127\.0\.0\.1:\d+$/);
    assert.ok((summary.tools as string[]).includes('save_memory'), JSON.stringify(summary));
    assert.match(String(summary.found), /oolong/);
    assert.equal(summary.token_sets, 2, 'the code gave tokens once, the refresh once more');
    assert.equal(summary.refresh_rotated, true, 'the refresh token rotated');
    assert.equal(summary.access_tokens, 2);
    // The grant gave `work` only: the memory is there.
    assert.equal(t.opened.storeOf('work').memories.size, 1);
    assert.equal(t.opened.storeOf('default').memories.size, 0);
    const grants = await h.oauth.grants.list();
    assert.deepEqual(
      grants.map((g) => [g.client.name, g.namespaces]),
      [[CLIENT_NAME, ['work']]],
    );
  });
});
