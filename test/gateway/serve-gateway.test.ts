import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  type CallToolResult,
  Client,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { CLI_PATH, makeTempDir, removeDir } from '../e2e/helpers.js';
import { nodeScript } from '../node-script.js';
import { isAlive } from '../support.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'echo-upstream.ts');
const TOKEN = 'serve-token-0123456789abcdef';
const dirs: string[] = [];
after(() => {
  for (const d of dirs) removeDir(d);
});

function writeConfig(dir: string, config: unknown): string {
  const file = path.join(dir, 'gateway-config.json');
  fs.writeFileSync(file, JSON.stringify(config));
  return file;
}

const env = (extra: Record<string, string>) => ({
  PATH: process.env.PATH ?? '',
  MNEMO_LOG_LEVEL: 'warn',
  MNEMO_AUTH_TOKEN: TOKEN,
  ...extra,
});

async function eventually(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = performance.now() + 30_000;
  while (!(await check())) {
    if (performance.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('mnemo serve with MNEMO_GATEWAY_CONFIG', () => {
  it('refuses a config with a bad entry, naming the label and field', () => {
    const dir = makeTempDir();
    dirs.push(dir);
    const file = writeConfig(dir, { mcpServers: { files: { command: 'x', args: 'nope' } } });
    const r = spawnSync(process.execPath, [CLI_PATH, 'serve', '--port', '0', '--data-dir', dir], {
      encoding: 'utf8',
      env: env({ MNEMO_GATEWAY_CONFIG: file }),
    });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /mcpServers\.files\.args/);
  });

  it('proxies an upstream at /mcp/<label>, shows it in /health, and ends it on SIGTERM', async () => {
    const dir = makeTempDir();
    dirs.push(dir);
    const file = writeConfig(dir, {
      mcpServers: {
        echo: { command: process.execPath, args: nodeScript(FIXTURE), cwd: ROOT },
      },
    });
    const child = spawn(process.execPath, [CLI_PATH, 'serve', '--port', '0', '--data-dir', dir], {
      env: env({ MNEMO_GATEWAY_CONFIG: file }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const base = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /mnemo serve: (http:\/\/\S+)\/mcp/.exec(out);
        if (m) resolve(m[1] as string);
      });
      child.on('exit', () => reject(new Error(`serve exited early: ${out}`)));
    });
    const upstreams = async () =>
      (
        (await (await fetch(`${base}/health`)).json()) as {
          upstreams: { label: string; state: string }[];
        }
      ).upstreams;
    await eventually(async () => (await upstreams())[0]?.state === 'ready', 'echo to be ready');
    assert.equal((await upstreams())[0]?.label, 'echo');

    // A 2025 client (initialize) and a 2026-07-28 one (no handshake), on the same route.
    const pids = new Set<number>();
    for (const negotiation of [{}, { versionNegotiation: { mode: { pin: '2026-07-28' } } }]) {
      const client = new Client({ name: 'serve-gateway-e2e', version: '1' }, negotiation);
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp/echo`), {
          requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
        }),
      );
      const result = (await client.callTool({
        name: 'echo',
        arguments: { text: 'through serve' },
      })) as CallToolResult;
      const first = result.content[0];
      const said = first?.type === 'text' ? first.text : '';
      assert.match(said, /^through serve \(pid \d+\)$/);
      pids.add(Number(/pid (\d+)/.exec(said)?.[1]));
      await client.close();
    }
    assert.equal(pids.size, 1, 'one upstream serves both');
    const [upstreamPid] = [...pids] as [number];

    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    await eventually(() => !isAlive(upstreamPid), 'the upstream child to end');
  });
});
