import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-'));
const child = spawn('node', ['dist/cli.js', 'serve', '--port', '0'], { env: { ...process.env, MNEMO_DATA_DIR: dir, MNEMO_EMBEDDINGS: 'off', MNEMO_PORT: '0', MNEMO_AUTH_TOKEN: 'tok-0123456789abcdef', MNEMO_RATE_LIMIT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
let err = ''; child.stderr.on('data', (d) => { err += d; });
const url: string = await new Promise((resolve) => { let out = ''; child.stdout.on('data', (d) => { out += d; const m = /http:\/\/[\d.:]+\/mcp/.exec(out); if (m) resolve(m[0]); }); });
async function run(mode: 'legacy' | 'modern') {
  const client = new Client({ name: 'b', version: '1' }, mode === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: 'Bearer tok-0123456789abcdef' } } }));
  for (let i = 0; i < 50; i++) await client.callTool({ name: 'save_memory', arguments: { content: `memory ${i} about cats and dogs ${mode}` } });
  for (const [name, args] of [['search_memory', { query: 'cats' }], ['memory_stats', {}]] as const) {
    const times: number[] = [];
    for (let i = 0; i < 300; i++) { const s = performance.now(); try { await client.callTool({ name, arguments: args }, { timeout: 5000 }); } catch (e) { console.log('FAIL', name, i, String(e)); console.log(err.slice(-4000)); process.exit(1); } times.push(performance.now() - s); }
    times.sort((a, b) => a - b);
    console.log(mode, name, 'p50', times[150]!.toFixed(2), 'p99', times[297]!.toFixed(2));
  }
  const t: number[] = [];
  for (let i = 0; i < 100; i++) { const s = performance.now(); await client.listTools(); t.push(performance.now() - s); }
  t.sort((a, b) => a - b); console.log(mode, 'tools/list p50', t[50]!.toFixed(2));
  await client.close();
}
await run('legacy'); await run('modern'); await run('legacy'); await run('modern');
child.kill(); fs.rmSync(dir, { recursive: true, force: true });
