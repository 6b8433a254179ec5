// The servers bench:gateway measures: mnemo serve with the echo upstream behind /mcp/echo,
// supergateway in front of the same upstream, and a bare node http server (the floor).
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnGroup } from '../lib/processes.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const FIXTURE = path.join(ROOT, 'test/fixtures/echo-upstream.ts');
export const SUPERGATEWAY = path.join(ROOT, 'node_modules/supergateway/dist/index.js');
export const TOKEN = 'bench-gateway-token-0123456789';
export const UPSTREAM_ARGS = ['--import', 'tsx', FIXTURE];

// ---- child processes: each in its own process group, killed as a group ----

/** Keeps the last few KB of a child's output, for error messages. */
function tail(child: ChildProcess): { text: string } {
  const kept = { text: '' };
  const keep = (chunk: Buffer) => {
    kept.text = (kept.text + chunk.toString('utf8')).slice(-4_096);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return kept;
}

async function until(check: () => Promise<boolean>, what: string, output: { text: string }) {
  const deadline = performance.now() + 60_000;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline)
      throw new Error(`timed out waiting for ${what}\n${output.text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

// ---- the servers under test ----

export interface Mnemo {
  base: string;
  child: ChildProcess;
}

export async function startMnemo(cli: string, dir: string): Promise<Mnemo> {
  const config = path.join(dir, 'gateway-config.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { echo: { command: process.execPath, args: UPSTREAM_ARGS, cwd: ROOT } },
    }),
  );
  const child = spawnGroup(
    ROOT,
    process.execPath,
    [cli, 'serve', '--port', '0', '--data-dir', dir],
    {
      MNEMO_LOG_LEVEL: 'warn',
      MNEMO_AUTH_TOKEN: TOKEN,
      MNEMO_GATEWAY_CONFIG: config,
      MNEMO_RATE_LIMIT: '0',
    },
  );
  const output = tail(child);
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /mnemo serve: (http:\/\/\S+)\/mcp/.exec(out);
      if (m) resolve(m[1] as string);
    });
    child.once('exit', () => reject(new Error(`mnemo serve exited early\n${output.text}`)));
  });
  await until(
    async () => {
      const health = (await (await fetch(`${base}/health`)).json()) as {
        store?: string;
        upstreams?: { label: string; state: string }[];
      };
      const echo = health.upstreams?.find((u) => u.label === 'echo')?.state;
      return health.store !== 'loading' && echo === 'ready';
    },
    'the store and the echo upstream of mnemo to be ready',
    output,
  );
  return { base, child };
}

export async function startSupergateway(
  stateful: boolean,
): Promise<{ url: URL; child: ChildProcess }> {
  const port = await freePort();
  const command = [process.execPath, ...UPSTREAM_ARGS].map((a) => JSON.stringify(a)).join(' ');
  const args = [SUPERGATEWAY, '--stdio', command, '--outputTransport', 'streamableHttp'];
  args.push('--port', String(port), '--logLevel', 'none', '--healthEndpoint', '/healthz');
  if (stateful) args.push('--stateful');
  const child = spawnGroup(ROOT, process.execPath, args, {});
  const output = tail(child);
  const base = `http://127.0.0.1:${port}`;
  await until(async () => (await fetch(`${base}/healthz`)).ok, 'supergateway to listen', output);
  return { url: new URL(`${base}/mcp`), child };
}

/**
 * The floor: a node HTTP server that answers every request at once, as little as an MCP server
 * over HTTP can do (initialize and tools/call from a canned answer, notifications 202).
 */
export async function startBareServer(): Promise<{ url: URL; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        id?: unknown;
        method: string;
        params?: { protocolVersion?: string; _meta?: unknown };
      };
      if (message.id === undefined) return void res.writeHead(202).end();
      const modern = message.method === 'server/discover' || message.params?._meta !== undefined;
      const result =
        message.method === 'initialize'
          ? {
              protocolVersion: message.params?.protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: 'bare', version: '1' },
            }
          : message.method === 'server/discover'
            ? {
                supportedVersions: ['2026-07-28'],
                capabilities: { tools: {} },
                _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'bare', version: '1' } },
              }
            : { content: [{ type: 'text', text: 'bare' }] };
      if (modern)
        Object.assign(result, { resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
      const body = JSON.stringify({ jsonrpc: '2.0', id: message.id, result });
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
