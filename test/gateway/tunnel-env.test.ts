import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { cloudflaredEnvironment } from '../../src/gateway/tunnel.js';

describe("cloudflared's environment", () => {
  it('keeps what it needs to run and its own settings; drops mnemo secrets and the rest', () => {
    const env = {
      PATH: '/usr/bin',
      HOME: '/home/a',
      LC_ALL: 'C',
      HTTPS_PROXY: 'http://proxy:3128',
      TUNNEL_ORIGIN_CERT: '/home/a/.cloudflared/cert.pem',
      CLOUDFLARED_TOKEN_PATH: '/x',
      NO_AUTOUPDATE: 'true',
      MNEMO_AUTH_TOKEN: 'secret-0123456789abcdef',
      MNEMO_TOKENS: '/etc/mnemo/tokens',
      MNEMO_DATABASE_URL: 'postgres://u:p@h/db',
      AWS_SECRET_ACCESS_KEY: 'aws',
      GITHUB_TOKEN: 'ghp',
      UNSET: undefined,
    };
    assert.deepEqual(cloudflaredEnvironment(env), {
      PATH: '/usr/bin',
      HOME: '/home/a',
      LC_ALL: 'C',
      HTTPS_PROXY: 'http://proxy:3128',
      TUNNEL_ORIGIN_CERT: '/home/a/.cloudflared/cert.pem',
      CLOUDFLARED_TOKEN_PATH: '/x',
      NO_AUTOUPDATE: 'true',
    });
  });

  it('property: whatever the environment, no MNEMO_* variable and no value of one reaches cloudflared', () => {
    const name = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.string({ maxLength: 12 }).map((s) => `MNEMO_${s}`),
      fc.constantFrom('PATH', 'HOME', 'TUNNEL_X', 'LC_CTYPE', 'MNEMO_AUTH_TOKEN'),
    );
    fc.assert(
      fc.property(fc.dictionary(name, fc.string({ maxLength: 20 })), (env) => {
        const kept = cloudflaredEnvironment(env);
        for (const [key, value] of Object.entries(kept)) {
          assert.ok(!key.startsWith('MNEMO_'), key);
          assert.equal(value, env[key]);
        }
      }),
      { numRuns: 300, interruptAfterTimeLimit: 2_000 },
    );
  });
});
