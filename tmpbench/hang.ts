import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-'));
const child = spawn('node', ['dist/cli.js', 'serve'], { env: { ...process.env, MNEMO_DATA_DIR: dir, MNEMO_EMBEDDINGS: 'off', MNEMO_PORT: '0', MNEMO_AUTH_TOKEN: 'tok-0123456789abcdef', MNEMO_RATE_LIMIT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
let err = ''; child.stderr.on('data', (d) => { err += d; });
const url: string = await new Promise((resolve) => { let out = ''; child.stdout.on('data', (d) => { out += d; const m = /http:\/\/[\d.:]+\/mcp/.exec(out); if (m) resolve(m[0]); }); });
const client = new Client({ name: 'b', version: '1' });
const log: string[] = [];
await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: 'Bearer tok-0123456789abcdef' } } }));
for (let i = 0; i < 50; i++) await client.callTool({ name: 'save_memory', arguments: { content: 'memory ' + i + ' about cats' } });
for (let i = 0; i < 300; i++) await client.callTool({ name: 'search_memory', arguments: { query: 'cats' } });
for (let i = 0; i < 400; i++) {
  try { await client.callTool({ name: process.argv[2] ?? 'memory_stats', arguments: {} }, { timeout: 3000 }); }
  catch (e) { console.log('failed at', i, String(e)); console.log(err.slice(-3000)); break; }
}
child.kill(); fs.rmSync(dir, { recursive: true, force: true });
