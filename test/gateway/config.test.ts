import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { loadGatewayConfig, parseGatewayConfig } from '../../src/gateway/config.js';
import { tempDir } from '../support.js';

describe('gateway config', () => {
  it('reads stdio and url entries in the Claude Desktop shape', () => {
    const servers = parseGatewayConfig({
      mcpServers: {
        'desktop-commander': {
          command: 'npx',
          args: ['-y', '@wonderwhy-er/desktop-commander'],
          env: { A: '1' },
          token: 'dc-token-0123456789abcdef',
        },
        remote_1: { url: 'https://example.com/mcp', headers: { authorization: 'Bearer x' } },
        bare: { command: 'srv' },
      },
    });
    assert.deepEqual(servers['desktop-commander'], {
      command: 'npx',
      args: ['-y', '@wonderwhy-er/desktop-commander'],
      env: { A: '1' },
      token: 'dc-token-0123456789abcdef',
    });
    assert.equal((servers.remote_1 as { url: string }).url, 'https://example.com/mcp');
    assert.deepEqual(servers.bare, { command: 'srv', args: [] });
  });

  for (const [what, raw, pattern] of [
    ['no mcpServers', { servers: {} }, /"mcpServers"/],
    ['a label with capitals', { mcpServers: { Bad: { command: 'x' } } }, /"Bad".*a-z, 0-9/],
    [
      'neither command nor url',
      { mcpServers: { a: { args: [] } } },
      /mcpServers\.a: needs exactly one/,
    ],
    [
      'both command and url',
      { mcpServers: { a: { command: 'x', url: 'http://h' } } },
      /mcpServers\.a:/,
    ],
    [
      'args that are not strings',
      { mcpServers: { a: { command: 'x', args: [1] } } },
      /mcpServers\.a\.args/,
    ],
    ['a bad url', { mcpServers: { b: { url: 'not a url' } } }, /mcpServers\.b\.url/],
    [
      'a short token',
      { mcpServers: { c: { command: 'x', token: 'short' } } },
      /mcpServers\.c\.token/,
    ],
  ] as const) {
    it(`rejects ${what}, naming the label and field`, () => {
      assert.throws(
        () => parseGatewayConfig(raw),
        (e: unknown) => e instanceof ConfigError && pattern.test(e.message),
      );
    });
  }

  it('refuses a blank token (16 spaces included) by label, and trims one as the header is', () => {
    for (const blank of ['', ' '.repeat(16), ' \t\n'.repeat(8)]) {
      assert.throws(
        () => parseGatewayConfig({ mcpServers: { c: { command: 'x', token: blank } } }),
        (e: unknown) =>
          e instanceof ConfigError &&
          /mcpServers\.c\.token: token is blank .*openssl rand -hex 32\), or leave token out/.test(
            e.message,
          ) &&
          !/too short/.test(e.message),
      );
    }
    const servers = parseGatewayConfig({
      mcpServers: { c: { url: 'https://h/mcp', token: ' c-token-0123456789abcdef\n' } },
    });
    assert.equal(servers.c?.token, 'c-token-0123456789abcdef');
  });

  it('comes from MNEMO_GATEWAY_CONFIG, as an absolute path', () => {
    const env = { MNEMO_DATA_DIR: '/tmp/mnemo-unused' };
    assert.equal(loadConfig({ env }).gatewayConfig, undefined);
    assert.equal(
      loadConfig({ env: { ...env, MNEMO_GATEWAY_CONFIG: 'gw.json' } }).gatewayConfig,
      path.resolve('gw.json'),
    );
  });

  it('names the file when it is missing or not JSON', () => {
    const dir = tempDir();
    try {
      const file = path.join(dir, 'gateway.json');
      assert.throws(
        () => loadGatewayConfig(file),
        /cannot read the gateway config .*MNEMO_GATEWAY_CONFIG/,
      );
      fs.writeFileSync(file, '{"mcpServers": ');
      assert.throws(() => loadGatewayConfig(file), /not valid JSON/);
      fs.writeFileSync(file, JSON.stringify({ mcpServers: { a: { command: 'x' } } }));
      assert.deepEqual(loadGatewayConfig(file), { a: { command: 'x', args: [] } });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
