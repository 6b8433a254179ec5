// The page API in process: the same tokens and namespaces as /mcp, the page's own origin only,
// no token in a query string, errors through the one mapper; each route over its use case.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { createServeApp, type ServeApp } from '../../src/app/http.js';
import { loadConfig } from '../../src/config/index.js';
import { DAY, T0, tempDir } from '../support.js';
import { IDS, seedDataDir } from './seed.js';

const TOKEN = 'ui-token-0123456789abcdef';
const OTHER = 'ui-other-0123456789abcdef';

const stops: (() => Promise<void>)[] = [];
after(async () => {
  for (const stop of stops) await stop();
});

async function started(env: Record<string, string>): Promise<{ url: string; app: ServeApp }> {
  const dir = tempDir();
  seedDataDir(dir);
  const config = loadConfig({
    env: { MNEMO_EMBEDDINGS: 'off', MNEMO_DATA_DIR: dir, MNEMO_HTTP_PORT: '0', ...env },
    home: dir,
  });
  const app = createServeApp(config, { logger: pino({ level: 'silent' }), clock: () => T0 });
  const { url } = await app.start();
  stops.push(async () => {
    await app.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { url, app };
}

describe('the page API', () => {
  let url = '';
  const call = (route: string, init: RequestInit & { token?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const token = init.token === undefined ? TOKEN : init.token;
    if (token !== null) headers.set('authorization', `Bearer ${token}`);
    return fetch(`${url}/ui/api${route}`, { ...init, headers });
  };
  const json = async <T = Record<string, unknown>>(route: string, init?: RequestInit) => {
    const res = await call(route, init);
    assert.equal(res.status, 200, `${route}: ${await res.clone().text()}`);
    return (await res.json()) as T;
  };
  const post = (route: string, body: unknown = {}) =>
    json(route, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  before(async () => {
    ({ url } = await started({ MNEMO_AUTH_TOKEN: TOKEN }));
  });

  it('serves the page without a token, under a strict Content-Security-Policy', async () => {
    const res = await fetch(`${url}/ui`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    const html = await res.text();
    assert.doesNotMatch(html, /<script>|<script [^>]*>[^<]/, 'no inline script');
    // fetch takes gzip: the build's compressed copy, unpacked on the way in.
    const script = await fetch(`${url}/ui/assets/app.js`);
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-type') ?? '', /javascript/);
    assert.equal(script.headers.get('content-encoding'), 'gzip');
    assert.match(await script.text(), /uPlot|preact|createElement/);
  });

  it('answers 401 without the token, with a wrong one, and with one in the query string', async () => {
    for (const res of [
      await call('/session', { token: null }),
      await call('/session', { token: OTHER }),
      await call(`/session?token=${TOKEN}`, { token: null }),
      await call(`/session?access_token=${TOKEN}`, { token: null }),
    ]) {
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('www-authenticate'), 'Bearer');
      assert.doesNotMatch(await res.text(), new RegExp(TOKEN));
    }
    const ok = await json<{ namespace: string; now: number }>('/session');
    assert.deepEqual([ok.namespace, ok.now], ['default', T0]);
  });

  it('refuses another origin (403) and sends no CORS header', async () => {
    for (const headers of [
      { origin: 'http://evil.example' } as Record<string, string>,
      { origin: 'http://localhost:1' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ]) {
      const res = await call('/session', { headers });
      assert.equal(res.status, 403, JSON.stringify(headers));
      assert.equal(res.headers.get('access-control-allow-origin'), null);
    }
    const own = await call('/session', {
      headers: { origin: url, 'sec-fetch-site': 'same-origin' },
    });
    assert.equal(own.status, 200);
    assert.equal(own.headers.get('access-control-allow-origin'), null);
    const preflight = await fetch(`${url}/ui/api/session`, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'GET' },
    });
    assert.equal(preflight.headers.get('access-control-allow-origin'), null);
    // A form another site posts: refused for its origin; without one, for its type.
    const form = await call('/gc', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'archive=true',
    });
    assert.equal(form.status, 415);
  });

  it('lists by score, last use and uses; searches with search_memory ranking; filters', async () => {
    type Listing = { total: number; rows: { id: string; score: number; use_count: number }[] };
    const byScore = await json<Listing>('/memories');
    assert.equal(byScore.total, 7);
    const scores = byScore.rows.map((r) => r.score);
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => b - a),
    );
    assert.equal(byScore.rows[0]?.id, IDS.promote);
    const byUses = await json<Listing>('/memories?sort=use_count');
    assert.deepEqual(
      byUses.rows.slice(0, 2).map((r) => r.id),
      [IDS.promote, IDS.cat],
    );
    const found = await json<Listing>('/memories?q=cat%20rug');
    assert.equal(found.rows[0]?.id, IDS.cat);
    const tagged = await json<Listing>('/memories?tags=home');
    assert.deepEqual(tagged.rows.map((r) => r.id).sort(), [IDS.wifi, IDS.cat].sort());
    const bad = await call('/memories?sort=colour');
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: { message: string } }).error.message, /sort/);
  });

  it('opens a memory with its relations and its curve: the past, 90 days projected, the lines', async () => {
    const { memory, curve } = await json<{
      memory: { id: string; relations: unknown[] };
      curve: {
        t: number[];
        past: (number | null)[];
        future: (number | null)[];
        thresholds: Record<string, number>;
        uses: number[];
      };
    }>(`/memories/${IDS.cat}`);
    assert.equal(memory.id, IDS.cat);
    assert.equal(memory.relations.length, 1);
    assert.deepEqual(curve.thresholds, {
      forget: 0.05,
      dangerMin: 0.15,
      dangerMax: 0.35,
      promote: 0.65,
    });
    assert.equal(curve.uses.length, 3);
    assert.equal(curve.t.at(-1), T0 + 90 * DAY);
    assert.ok(curve.t.every((t, i) => i === 0 || t > (curve.t[i - 1] as number)));
    assert.ok(curve.past.some((v) => v !== null) && curve.future.some((v) => v !== null));
    const missing = await call('/memories/00000000-0000-4000-8000-00000000ffff');
    assert.equal(missing.status, 400);
  });

  it('opens a memory with its date in words and the memories saved around it', async () => {
    const { memory } = await json<{
      memory: {
        date: string;
        ago: string;
        neighbours: { memory_id: string; offset: number; date: string; content: string }[];
      };
    }>(`/memories/${IDS.img}`);
    assert.equal(memory.date, '2025-12-31, a Wednesday');
    assert.equal(memory.ago, 'yesterday');
    // Neither has a source or a context: neighbours by time, the other one saved that second.
    assert.deepEqual(
      memory.neighbours.map((n) => [n.memory_id, n.offset]),
      [[IDS.link, 1]],
    );
    const far = await json<{ memory: { neighbours: unknown[] } }>(`/memories/${IDS.wifi}`);
    assert.deepEqual(far.memory.neighbours, [], 'nothing within 6 hours of it');
  });

  it('previews gc at a later date without changing anything, then runs it now', async () => {
    const now = await json<{ total: number }>('/gc');
    const later = await json<{ total: number; rows: { memory_id: string }[] }>(
      `/gc?at=${T0 + 30 * DAY}`,
    );
    assert.equal(now.total, 1);
    assert.equal(later.total, 2);
    assert.ok(later.rows.some((r) => r.memory_id === IDS.later));
    assert.equal(
      (await json<{ total: number }>('/memories')).total,
      7,
      'a preview forgets nothing',
    );
    assert.equal((await call('/gc?at=soon')).status, 400);
  });

  it('touches, archives, restores, deletes recoverably, and lists review and promotion', async () => {
    const review = await json<{ rows: { id: string }[] }>('/review');
    assert.deepEqual(
      review.rows.map((r) => r.id),
      [IDS.review],
    );
    const promotion = await json<{ rows: { memory_id: string; reason: string }[] }>('/promotion');
    assert.ok(promotion.rows.some((r) => r.memory_id === IDS.promote && r.reason.length > 0));
    const promoted = (await post(`/memories/${IDS.promote}/promote`)) as {
      promoted: { memory_id: string; path: string }[];
    };
    assert.deepEqual(
      promoted.promoted.map((p) => p.memory_id),
      [IDS.promote],
    );
    const note = await json<{
      memory: { status: string; promoted_to: string };
      note_url: string;
    }>(`/memories/${IDS.promote}`);
    // By the vault's name and the note's path in it: never where the vault is on the server.
    assert.equal(
      note.note_url,
      `obsidian://open?vault=vault&file=${encodeURIComponent(note.memory.promoted_to)}`,
    );
    assert.doesNotMatch(note.note_url, /%2F(tmp|home|root)|path=/);
    assert.deepEqual(
      [note.memory.status, note.memory.promoted_to],
      ['promoted', promoted.promoted[0]?.path],
    );
    const unknown = await call(`/memories/${IDS.review}/toString`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(unknown.status, 404, 'an action the page has not: no route, not a method');
    const touched = await post(`/memories/${IDS.review}/touch`);
    assert.equal(touched.use_count, 1);
    assert.equal((await post(`/memories/${IDS.cat}/archive`)).status, 'archived');
    const archived = await json<{ rows: { id: string }[] }>('/memories?status=archived');
    assert.deepEqual(
      archived.rows.map((r) => r.id),
      [IDS.cat],
    );
    assert.equal((await post(`/memories/${IDS.cat}/restore`)).status, 'active');
    assert.equal((await post(`/memories/${IDS.img}/delete`)).status, 'deleted');
    assert.equal((await call(`/memories/${IDS.img}`)).status, 400);
    assert.equal((await post(`/memories/${IDS.img}/restore`)).status, 'active');
    const overview = await json<{ stats: { total: number }; scores: { counts: number[] } }>(
      '/overview',
    );
    assert.equal(overview.stats.total, 7);
    assert.equal(
      overview.scores.counts.reduce((a, b) => a + b, 0),
      7,
    );
    const gc = await post('/gc');
    assert.equal(gc.total_affected, 1);
    assert.equal((await json<{ total: number }>('/memories')).total, 6);
  });
});

describe('the page API with a token file', () => {
  it('gives each token its namespaces, as /mcp does', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'tokens');
    fs.writeFileSync(file, `${TOKEN} default\n${OTHER} team\n`);
    const { url } = await started({ MNEMO_TOKENS: file });
    const session = (token: string, namespace?: string) =>
      fetch(`${url}/ui/api/session`, {
        headers: {
          authorization: `Bearer ${token}`,
          ...(namespace ? { 'x-mnemo-namespace': namespace } : {}),
        },
      });
    const own = (await (await session(OTHER)).json()) as {
      namespace: string;
      namespaces: string[];
    };
    assert.deepEqual([own.namespace, own.namespaces], ['team', ['team']]);
    assert.equal((await session(OTHER, 'default')).status, 403);
    assert.equal((await session(TOKEN, 'team')).status, 403);
    const team = (await (
      await fetch(`${url}/ui/api/memories`, { headers: { authorization: `Bearer ${OTHER}` } })
    ).json()) as { total: number };
    assert.equal(team.total, 0, 'another namespace sees none of the default one');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
