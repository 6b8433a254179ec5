import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { FileOAuthStore, OAUTH_FILE } from '../../src/oauth/file-store.js';
import { UserError } from '../../src/platform/errors.js';
import { tempDir } from '../support.js';
import {
  assertNoPollution,
  bounded,
  hostileJson,
  hostileNumber,
  hostileText,
  timeBoxed,
  withProtoKey,
} from './hostile.js';

// oauth.json holds what the OAuth server made (clients, grants, codes, tokens), read again
// whenever another process rewrote it. Whatever it holds (a hand edit, a damaged disk, another
// version), an entry answered is of the shape mnemo writes, and anything else is refused in
// words that say what to do.

const NOW = 1_767_225_600;

const entryish = fc.record(
  {
    model: fc.oneof(fc.constantFrom('Client', 'Grant', 'AccessToken'), hostileText, hostileJson),
    payload: fc.oneof(hostileJson, fc.dictionary(hostileText, hostileJson, { maxKeys: 4 })),
    expiresAt: fc.oneof(hostileNumber, hostileText, fc.constant(NOW + 3600)),
    grantKey: fc.oneof(hostileText, hostileJson),
    uidKey: fc.oneof(hostileText, hostileJson),
    consumedAt: fc.oneof(hostileNumber, hostileText),
    usedAt: fc.oneof(hostileNumber, hostileText),
  },
  { requiredKeys: [] },
);

const fileText = fc.oneof(
  hostileText,
  hostileJson.map((v) => JSON.stringify(v) ?? 'null'),
  fc
    .dictionary(fc.oneof(hostileText, fc.constant('__proto__')), fc.oneof(entryish, hostileJson), {
      maxKeys: 6,
    })
    .map((entries) => JSON.stringify({ entries })),
  fc.constantFrom(
    '{"entries":"abc"}',
    '{"entries":[{"model":"Client","payload":{}}]}',
    '{"entries":{"k":null}}',
    withProtoKey('{"entries":{}}'),
    'null',
  ),
);

describe('fuzz: an oauth.json that holds anything (src/oauth/file-store.ts)', () => {
  it('answers entries of the shape mnemo writes, or a UserError, and writes again', async () => {
    await fc.assert(
      fc.asyncProperty(
        fileText,
        timeBoxed(3, async (text) => {
          const dir = tempDir('mnemo-fuzz-oauth-');
          try {
            fs.writeFileSync(path.join(dir, OAUTH_FILE), text);
            const store = new FileOAuthStore(dir, () => NOW);
            let readable = true;
            try {
              for (const model of ['Client', 'Grant', 'AccessToken']) {
                for (const { key, entry } of await store.list(model)) {
                  assert.equal(typeof key, 'string');
                  assert.equal(entry.model, model);
                  assert.ok(typeof entry.payload === 'object' && entry.payload !== null);
                  assert.ok(!Array.isArray(entry.payload));
                  for (const t of [entry.expiresAt, entry.consumedAt, entry.usedAt]) {
                    assert.ok(t === undefined || Number.isFinite(t), `time ${String(t)}`);
                  }
                  const found = await store.get(key);
                  assert.equal(found?.model, model);
                }
              }
            } catch (error) {
              if (!(error instanceof UserError)) throw error;
              assert.match(error.message, /move it aside and restart mnemo serve/);
              readable = false;
            }
            const entry = { model: 'Client', payload: { client_id: 'c' }, expiresAt: NOW + 60 };
            if (readable) {
              await store.put('fresh', entry);
              assert.deepEqual(await store.get('fresh'), entry);
            } else {
              await assert.rejects(store.put('fresh', entry), UserError);
            }
            assertNoPollution();
          } finally {
            fs.rmSync(dir, { recursive: true, force: true });
          }
        }),
      ),
      bounded(200),
    );
  });
});
