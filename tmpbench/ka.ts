import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-'));
const child = spawn('node', ['dist/cli.js', 'serve', '--port', '0'], { env: { ...process.env, MNEMO_DATA_DIR: dir, MNEMO_EMBEDDINGS: 'off', MNEMO_AUTH_TOKEN: 'tok-0123456789abcdef', MNEMO_RATE_LIMIT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
let err = ''; child.stderr.on('data', (d) => { err += d; });
const url: string = await new Promise((resolve) => { let out = ''; child.stdout.on('data', (d) => { out += d; const m = /http:\/\/[\d.:]+\/mcp/.exec(out); if (m) resolve(m[0]); }); });
const M = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
for (let i = 0; i < 300; i++) {
  const method = process.argv[2] ?? 'tools/list';
  const body = method === 'tools/list' ? { jsonrpc: '2.0', id: i, method, params: { _meta: M } } : { jsonrpc: '2.0', id: i, method, params: { name: 'memory_stats', arguments: {}, _meta: M } };
  const r = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer tok-0123456789abcdef', 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(method === 'tools/call' ? { 'mcp-name': 'memory_stats' } : {}) }, body: JSON.stringify(body), signal: AbortSignal.timeout(3000) }).catch((e) => { console.log(i, 'ERR', String(e)); console.log(err.slice(-1500)); process.exit(1); });
  const txt = await r.text(); if (i % 100 === 0 || r.status !== 200) console.log(i, r.status, [...r.headers.entries()].map(([k, v]) => k + '=' + v).join(' '), txt.length);
}
child.kill(); fs.rmSync(dir, { recursive: true, force: true });
