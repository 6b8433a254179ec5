import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-'));
const child = spawn('node', ['dist/cli.js', 'serve', '--port', '0'], { env: { ...process.env, MNEMO_DATA_DIR: dir, MNEMO_EMBEDDINGS: 'off', MNEMO_AUTH_TOKEN: 'tok-0123456789abcdef', MNEMO_RATE_LIMIT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
let err = ''; child.stderr.on('data', (d) => { err += d; });
const url: string = await new Promise((resolve) => { let out = ''; child.stdout.on('data', (d) => { out += d; const m = /http:\/\/[\d.:]+\/mcp/.exec(out); if (m) resolve(m[0]); }); });
const M = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
async function time(label: string, body: object, headers: Record<string, string>) {
  const t: number[] = [];
  for (let i = 0; i < 200; i++) {
    const s = performance.now();
    const r = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer tok-0123456789abcdef', 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) }).catch((e) => { console.log(label, 'ERR', i, String(e)); console.log(err.slice(-2500)); process.exit(1); });
    const txt = await r.text(); if (i === 0) console.log(label, r.status, txt.slice(0, 200)); t.push(performance.now() - s);
  }
  t.sort((a, b) => a - b); console.log(label, 'p50', t[100]!.toFixed(2), 'p90', t[180]!.toFixed(2));
}
for (let k = 0; k < 2; k++) {
await time('legacy tools/list', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, {});
await time('modern tools/list', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: M } }, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
await time('legacy stats', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'memory_stats', arguments: {} } }, {});
await time('modern stats', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'memory_stats', arguments: {}, _meta: M } }, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'memory_stats' });
await time('health', {}, {});
}
child.kill(); fs.rmSync(dir, { recursive: true, force: true });
