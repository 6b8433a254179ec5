import assert from 'node:assert/strict';
import fs from 'node:fs';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import { createStdioApp, type StdioApp } from '../../src/app/stdio.js';
import { loadConfig } from '../../src/config/index.js';
import { INITIALIZE_REQUEST, T0, tempDir } from '../support.js';
import {
  assertNoInternals,
  bounded,
  clip,
  hostileJson,
  hostileText,
  rpcish,
  timeBoxed,
} from './hostile.js';

// The stdio line transport (src/transport/stdio.ts, jsonrpc.ts) under arbitrary lines. What must
// hold: stdout carries JSON-RPC 2.0 messages only, one a line; every line that asks (a request,
// or anything that is not a notification or a response) is answered, with a result or an error;
// no answer shows a path of this machine or a stack; and a ping after the garbage is answered.

type Message = Record<string, unknown>;

let app: StdioApp;
let dir: string;
let stdin: PassThrough;
let tools: string[] = [];
const output: Message[] = [];
const waiting = new Map<string, (message: Message) => void>();

/** Sends `line` (with its newline) and waits for the answer to the request of id `id`. */
function answerTo(id: unknown, line?: string): Promise<Message> {
  const key = JSON.stringify(id);
  const answered = new Promise<Message>((resolve, reject) => {
    // A bound on a failure (an answer that never comes), not a wait for time to pass.
    const timer = setTimeout(() => reject(new Error(`no answer to id ${clip(key, 80)}`)), 10_000);
    waiting.set(key, (message) => {
      clearTimeout(timer);
      resolve(message);
    });
  });
  if (line !== undefined) stdin.write(`${line}\n`);
  return answered;
}

before(async () => {
  dir = tempDir('mnemo-fuzz-stdio-');
  const config = loadConfig({ env: { MNEMO_EMBEDDINGS: 'off', MNEMO_DATA_DIR: dir }, home: dir });
  stdin = new PassThrough();
  const stdout = new PassThrough();
  let buffer = '';
  stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      // stdout is the protocol's: a line that is not JSON fails the test here and now.
      // A batch is answered with a list of answers, one an element.
      const parsed = JSON.parse(line) as Message | Message[];
      for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
        output.push(message);
        if ('id' in message) waiting.get(JSON.stringify(message.id))?.(message);
      }
    }
  });
  app = createStdioApp(config, {
    logger: pino({ level: 'silent' }),
    clock: () => T0,
    stdin,
    stdout,
  });
  await app.start();
  await answerTo(1, JSON.stringify(INITIALIZE_REQUEST));
  stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  const listed = await answerTo(
    'tools',
    JSON.stringify({ jsonrpc: '2.0', id: 'tools', method: 'tools/list' }),
  );
  tools = (listed.result as { tools: { name: string }[] }).tools.map((t) => t.name);
  assert.ok(tools.length > 10);
});

after(async () => {
  stdin.end();
  await app.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const line = fc.oneof(
  { weight: 4, arbitrary: rpcish.map((m) => JSON.stringify(m)) },
  { weight: 1, arbitrary: fc.array(rpcish, { maxLength: 3 }).map((b) => JSON.stringify(b)) },
  { weight: 2, arbitrary: hostileText.map((t) => t.replace(/\n/g, ' ')) },
  { weight: 1, arbitrary: hostileJson.map((v) => JSON.stringify(v) ?? 'null') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"jsonrpc":"2.0","id":1,"method":"ping"',
      '{"jsonrpc":"2.0","id":1e999,"method":"ping"}',
      '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}',
      '{"jsonrpc":"2.0","id":"a","method":"tools/call","params":"{\\"name\\":\\"save_memory\\"}"}',
      '{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"save_memory","arguments":"x"}}',
      '{"__proto__":{"jsonrpc":"2.0","id":1,"method":"ping"}}',
      '\r',
      '\u0000',
      '\ufeff{"jsonrpc":"2.0","id":2,"method":"ping"}',
    ),
  },
);

/** Whether a line must be answered: all but a blank line, a notification and a response. */
function mustAnswer(text: string): boolean {
  if (text.replace(/\r$/, '').trim() === '') return false;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return true;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return true;
  const m = value as Message;
  if (m.jsonrpc !== '2.0') return true;
  if (typeof m.method === 'string' && !('id' in m)) return false;
  if (!('method' in m) && 'id' in m && ('result' in m || 'error' in m)) return false;
  return true;
}

/** The id the answer to `text` carries, when it is a request the server can name. */
function idOf(text: string): unknown {
  try {
    const value = JSON.parse(text) as Message;
    if (value && typeof value === 'object' && !Array.isArray(value) && 'method' in value) {
      const id = value.id;
      if (typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))) return id;
    }
  } catch {
    // not JSON: answered with id null
  }
  return undefined;
}

let pings = 0;

describe('fuzz: the stdio line transport', () => {
  it('answers every line that asks, writes only JSON-RPC, and keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(
        line,
        timeBoxed(3, async (text) => {
          output.length = 0;
          const id = idOf(text);
          const answer = id === undefined ? undefined : answerTo(id);
          stdin.write(`${text}\n`);
          const pingId = `fuzz-ping-${pings++}`;
          const pong = await answerTo(
            pingId,
            JSON.stringify({ jsonrpc: '2.0', id: pingId, method: 'ping' }),
          );
          assert.deepEqual(pong.result, {}, 'the ping after the garbage was not answered');
          if (answer) {
            const reply = await answer;
            assert.ok('result' in reply || 'error' in reply, `an answer without result or error`);
            if ('error' in reply) {
              const error = reply.error as { code: unknown; message: unknown };
              assert.equal(typeof error.code, 'number');
              assert.ok(typeof error.message === 'string' && error.message.length > 0);
            }
          } else if (mustAnswer(text)) {
            const others = output.filter((m) => m.id !== pingId);
            assert.ok(others.length > 0, `no answer to ${clip(JSON.stringify(text), 200)}`);
          }
          for (const message of output) {
            assert.equal(
              message.jsonrpc,
              '2.0',
              `not JSON-RPC 2.0 on stdout: ${clip(JSON.stringify(message))}`,
            );
            assertNoInternals(JSON.stringify(message), 'a stdio answer', [dir]);
          }
        }),
      ),
      bounded(1000),
    );
  });
});
