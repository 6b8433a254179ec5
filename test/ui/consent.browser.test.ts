// The OAuth consent in a real browser (Debian's Chromium through playwright-core): a client
// registers, the browser opens its authorize URL (PKCE S256), the page at /ui/consent shows who
// asks, where it sends the answer and the namespaces; the person types the token, picks one and
// allows, and the browser lands on the client's loopback redirect URI with a code that the test
// exchanges and uses at /connect/mcp. Deny lands there with access_denied. Then the grant is on
// the Overview page, and Revoke there ends it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import {
  ADMIN,
  mcpClient,
  type OAuthHarness,
  pkce,
  rawCall,
  register,
  token,
} from '../oauth/support-oauth.js';
import { type Callback, callbackListener, startOAuthWithPage } from '../oauth/support-page.js';
import { openTestMemory, type TestMemory, tempDir } from '../support.js';

const CHROMIUM = '/usr/bin/chromium';
const NAME = 'Browser test client';
const skip = fs.existsSync(CHROMIUM) ? false : 'install chromium: apt-get install -y chromium';

describe('OAuth consent in Chromium', { skip }, () => {
  let t: TestMemory;
  let h: OAuthHarness;
  let callback: Callback;
  let browser: Browser | undefined;
  let page: Page;
  let clientId = '';
  /** The access token the first test's consent gave. */
  let access = '';
  /** Dialogs other than Revoke's confirmation. */
  const unexpected: string[] = [];

  before(
    async () => {
      t = await openTestMemory({}, tempDir());
      h = await startOAuthWithPage(t);
      callback = await callbackListener();
      const client = await register(h.url, { client_name: NAME, redirect_uris: [callback.uri] });
      assert.equal(client.status, 201, JSON.stringify(client.body));
      clientId = String(client.body.client_id);
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ['--no-sandbox', '--disable-background-networking'],
      });
      page = await browser.newPage({ viewport: { width: 900, height: 860 } });
      page.on('dialog', (dialog) => {
        if (dialog.type() === 'confirm') void dialog.accept();
        else {
          unexpected.push(`${dialog.type()}: ${dialog.message()}`);
          void dialog.dismiss();
        }
      });
    },
    { timeout: 60_000 },
  );

  after(async () => {
    await browser?.close();
    await callback?.close();
    await h?.close();
    await t?.close();
  });

  /** Opens the client's authorize URL; resolves once the consent view shows the client. */
  const authorize = async (state: string) => {
    const { verifier, challenge } = pkce();
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: callback.uri,
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
      resource: h.resource,
    });
    const consentAnswer = page.waitForResponse((r) => new URL(r.url()).pathname === '/ui/consent');
    await page.goto(`${h.url}/oauth/authorize?${query}`);
    await page.locator('#client-name').waitFor();
    return { verifier, page: await consentAnswer };
  };

  it('shows the client, its redirect host and the namespaces; refuses a wrong token in words; Allow lands on the redirect URI with a code that works', async () => {
    const { verifier, page: served } = await authorize('allow-1');
    assert.match(new URL(page.url()).pathname, /^\/ui\/consent$/);
    const csp = (await served.allHeaders())['content-security-policy'] ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline/);

    assert.equal(await page.locator('#client-name').textContent(), NAME);
    assert.equal(await page.locator('#redirect-host').textContent(), new URL(callback.uri).host);
    const boxes = page.locator('#namespaces input[type="checkbox"]');
    assert.equal(await boxes.count(), 0, 'no namespace shown before the token');

    const tokenField = page.getByLabel('Access token');
    assert.equal(await tokenField.getAttribute('type'), 'password');
    await tokenField.fill('not-the-token-0123456789');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.locator('#consent .error', { hasText: 'wrong access token' }).waitFor();
    assert.equal(await boxes.count(), 0, 'none for a wrong token');

    await tokenField.fill(ADMIN);
    await page.getByLabel('work').waitFor();
    const values = await Promise.all((await boxes.all()).map((box) => box.getAttribute('value')));
    assert.deepEqual(values, ['default', 'work']);
    assert.equal(await page.locator('#namespaces input:checked').count(), 0, 'none chosen for you');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.locator('#consent .error', { hasText: 'at least one namespace' }).waitFor();

    await page.getByLabel('work').check();
    const landed = callback.next();
    await page.getByRole('button', { name: 'Allow' }).click();
    const back = await landed;
    assert.equal(back.searchParams.get('state'), 'allow-1');
    const code = back.searchParams.get('code');
    assert.ok(code, `a code: ${back}`);
    await page.waitForURL((url) => url.href.startsWith(callback.uri));

    const tokens = await token(h.url, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: callback.uri,
      client_id: clientId,
      code_verifier: verifier,
    });
    assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
    access = tokens.body.access_token as string;
    const client = await mcpClient(h, access);
    await client.callTool({ name: 'save_memory', arguments: { content: 'the browser said yes' } });
    await client.close();
    assert.equal(t.opened.storeOf('work').memories.size, 1, 'in the namespace chosen');
    assert.equal(t.opened.storeOf('default').memories.size, 0);
  });

  it('lists the grant on the Overview page, and Revoke there ends it', async () => {
    assert.equal((await rawCall(h, access)).status, 200);
    await page.goto(`${h.url}/ui#token=${ADMIN}`);
    // The page took the token out of the address: then to the Overview, as a person would.
    await page.waitForURL(/#\/memories$/);
    await page.getByRole('link', { name: 'Overview' }).click();
    const row = page.locator('#grants tbody tr', { hasText: NAME });
    await row.first().waitFor();
    assert.match((await row.first().textContent()) ?? '', /work/);
    await row.first().getByRole('button', { name: 'Revoke' }).click();
    await page.locator('[role="status"]', { hasText: 'revoked' }).waitFor();
    assert.equal((await h.oauth.grants.list()).length, 0);
    assert.equal((await rawCall(h, access)).status, 401);
    assert.deepEqual(unexpected, []);
  });

  it('Deny lands on the redirect URI with access_denied', async () => {
    await authorize('deny-1');
    await page.getByLabel('Access token').fill(ADMIN);
    const landed = callback.next();
    await page.getByRole('button', { name: 'Deny' }).click();
    const back = await landed;
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('state'), 'deny-1');
    assert.equal(back.searchParams.get('code'), null);
    await page.waitForURL((url) => url.href.startsWith(callback.uri));
  });

  it('says in words when the request is unknown or was answered', async () => {
    await page.goto(`${h.url}/ui/consent?uid=no-such-request`);
    await page.locator('#consent .error', { hasText: /expired/ }).waitFor();
    await page.goto(`${h.url}/ui/consent`);
    await page.locator('.error', { hasText: /no consent request/ }).waitFor();
  });
});
