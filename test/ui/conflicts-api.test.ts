// The review list's conflicts through the page API: listed with GET /review, settled with POST
// /conflicts/settle, whose body is checked as settle_conflict's input.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { createServeApp } from '../../src/app/http.js';
import { loadConfig } from '../../src/config/index.js';
import { JsonlFile } from '../../src/storage/jsonl/jsonl-file.js';
import { DAY, T0, tempDir } from '../support.js';
import { IDS, seedDataDir } from './seed.js';

const TOKEN = 'ui-token-0123456789abcdef';
const stops: (() => Promise<void>)[] = [];
after(async () => {
  for (const stop of stops) await stop();
});

/** The seeded data dir, with an open conflict between the cat and the bike lock memories. */
async function started(): Promise<string> {
  const dir = tempDir();
  seedDataDir(dir);
  const file = new JsonlFile(path.join(dir, 'relations.jsonl'));
  try {
    file.append([
      {
        id: '00000000-0000-4000-8000-0000000000c1',
        from_memory_id: IDS.cat,
        to_memory_id: IDS.later,
        relation_type: 'conflicts_with',
        strength: 1,
        created_at: T0 - DAY,
        metadata: {},
      },
    ]);
  } finally {
    file.close();
  }
  const config = loadConfig({
    env: {
      MNEMO_EMBEDDINGS: 'off',
      MNEMO_DATA_DIR: dir,
      MNEMO_HTTP_PORT: '0',
      MNEMO_AUTH_TOKEN: TOKEN,
    },
    home: dir,
  });
  const app = createServeApp(config, { logger: pino({ level: 'silent' }), clock: () => T0 });
  const { url } = await app.start();
  stops.push(async () => {
    await app.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return url;
}

describe('the page API: conflicts in the review list', () => {
  it('lists an open conflict, refuses a bad body, and settles it', async () => {
    const url = await started();
    const call = (route: string, body?: unknown) =>
      fetch(`${url}/ui/api${route}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const review = async () =>
      (await (await call('/review')).json()) as {
        conflicts: { first: { memory_id: string }; second: { memory_id: string } }[];
      };
    const listed = await review();
    assert.deepEqual(
      listed.conflicts.map((c) => [c.first.memory_id, c.second.memory_id]),
      [[IDS.cat, IDS.later]],
    );

    const bad = await call('/conflicts/settle', { memory_id: IDS.cat, other_id: IDS.later });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /keep must be first/);

    const settled = await call('/conflicts/settle', {
      memory_id: IDS.cat,
      other_id: IDS.later,
      keep: 'both',
    });
    assert.equal(settled.status, 200, await settled.clone().text());
    assert.deepEqual(((await settled.json()) as { kept: string[] }).kept, [IDS.cat, IDS.later]);
    assert.deepEqual((await review()).conflicts, []);
  });
  it('archiving the kept side from the page makes the superseded one current again', async () => {
    const url = await started();
    const call = async (route: string, body?: unknown) => {
      const res = await fetch(`${url}/ui/api${route}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      assert.equal(res.status, 200, await res.clone().text());
      return (await res.json()) as Record<string, unknown>;
    };
    const status = async (id: string) =>
      ((await call(`/memories/${id}`)).memory as { status: string }).status;
    await call('/conflicts/settle', { memory_id: IDS.cat, other_id: IDS.later, keep: 'first' });
    assert.equal(await status(IDS.later), 'superseded');
    const archived = await call(`/memories/${IDS.cat}/archive`, {});
    assert.deepEqual(
      (archived.superseded_undone as { memory_id: string }[]).map((m) => m.memory_id),
      [IDS.later],
    );
    assert.equal(await status(IDS.later), 'active');
  });
});
