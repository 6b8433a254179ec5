import assert from 'node:assert/strict';
import fs from 'node:fs';
import { PassThrough } from 'node:stream';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { createStdioApp } from '../../src/app/stdio.js';
import { loadConfig } from '../../src/config/index.js';
import { INITIALIZE_REQUEST, T0, tempDir } from '../support.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A stdio app on in-memory streams, and a way to speak JSON-RPC lines to it. */
function stdioApp() {
  const dir = tempDir();
  dirs.push(dir);
  const config = loadConfig({ env: { MNEMO_EMBEDDINGS: 'off', MNEMO_DATA_DIR: dir }, home: dir });
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  let buffer = '';
  stdout.on('data', (d: Buffer) => {
    buffer += d.toString();
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>;
      buffer = buffer.slice(nl + 1);
      waiting.get(message.id as number)?.(message);
    }
  });
  const app = createStdioApp(config, {
    logger: pino({ level: 'silent' }),
    clock: () => T0,
    stdin,
    stdout,
  });
  const request = (message: { id: number } & Record<string, unknown>) =>
    new Promise<Record<string, unknown>>((resolve) => {
      waiting.set(message.id, resolve);
      stdin.write(`${JSON.stringify(message)}\n`);
    });
  return { app, dir, stdin, request };
}

const save = (id: number, content: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'save_memory', arguments: { content } },
});

describe('the stdio app', () => {
  it('answers once started, settles closed when stdin ends, and stop keeps every saved memory', async () => {
    const { app, dir, stdin, request } = stdioApp();
    await app.start();
    const init = await request({ ...INITIALIZE_REQUEST });
    assert.equal((init.result as { serverInfo: { name: string } }).serverInfo.name, 'mnemo');
    const saved = await request(save(2, 'The cabin key is under the blue pot.'));
    const id = (saved.result as { structuredContent: { memory_id: string } }).structuredContent
      .memory_id;
    stdin.end();
    await app.closed;
    await app.stop();
    await app.stop();
    assert.ok(fs.readFileSync(`${dir}/memories.jsonl`, 'utf8').includes(id));
  });

  it('stop before the client leaves disconnects: what comes after is not read', async () => {
    const { app, stdin, request } = stdioApp();
    await app.start();
    await request({ ...INITIALIZE_REQUEST });
    await app.stop();
    let answered = false;
    void request(save(3, 'too late')).then(() => {
      answered = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(answered, false);
    assert.equal(stdin.listenerCount('data'), 0);
  });
});
