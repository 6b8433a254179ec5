import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { INITIALIZE_REQUEST } from '../support.js';
import { CLI_PATH, makeTempDir, removeDir } from './helpers.js';

type Reply = {
  jsonrpc?: string;
  id?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
};

/** `mnemo stdio` spoken to line by line, as a client that sends anything would. */
class RawSession {
  readonly child: ChildProcessWithoutNullStreams;
  readonly stdoutLines: string[] = [];
  stderr = '';
  private unread: unknown[] = [];
  private waiting: (() => void)[] = [];
  private partial = '';
  readonly exited: Promise<number | null>;

  constructor(dataDir: string) {
    this.child = spawn(process.execPath, [CLI_PATH, 'stdio', '--data-dir', dataDir], {
      env: { PATH: process.env.PATH ?? '', MNEMO_LOG_LEVEL: 'warn', MNEMO_EMBEDDINGS: 'off' },
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
    this.child.stdout.on('data', (d: Buffer) => {
      const text = this.partial + d.toString('utf8');
      const lines = text.split('\n');
      this.partial = lines.pop() ?? '';
      for (const line of lines) {
        this.stdoutLines.push(line);
        this.unread.push(JSON.parse(line));
      }
      for (const wake of this.waiting.splice(0)) wake();
    });
    this.child.stderr.on('data', (d: Buffer) => {
      this.stderr += d.toString('utf8');
    });
    this.child.on('exit', () => {
      for (const wake of this.waiting.splice(0)) wake();
    });
  }

  write(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** The next unread reply that `matches`; fails if the process exits first. */
  async reply<T = Reply>(matches: (r: T) => boolean): Promise<T> {
    for (;;) {
      const i = this.unread.findIndex((r) => matches(r as T));
      if (i !== -1) return this.unread.splice(i, 1)[0] as T;
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(
          `mnemo stdio exited (${this.child.exitCode}) before the reply\n${this.stderr}`,
        );
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  /** Sends a line that must be refused with `code`; returns the error reply. */
  async refused(line: string, code: number, id: unknown = null): Promise<Reply> {
    this.write(line);
    const r = await this.reply<Reply>(
      (x) => !Array.isArray(x) && x.id === id && x.error !== undefined,
    );
    assert.equal(r.jsonrpc, '2.0');
    assert.equal(r.error?.code, code, JSON.stringify(r));
    return r;
  }
}

// A reply that never comes fails the test instead of hanging the run.
describe('mnemo stdio under malformed input', { timeout: 60_000 }, () => {
  let dir: string;
  let s: RawSession;
  before(async () => {
    dir = makeTempDir();
    s = new RawSession(dir);
    s.write(JSON.stringify(INITIALIZE_REQUEST));
    const init = await s.reply((r) => r.id === 1);
    assert.ok(init.result, 'initialized');
    s.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  });
  after(async () => {
    s.child.stdin.end();
    await s.exited;
    removeDir(dir);
  });

  const ping = async (id: number) => {
    s.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }));
    assert.deepEqual((await s.reply((r) => r.id === id)).result, {}, 'still serving');
  };

  it('answers malformed JSON with -32700 and goes on', async () => {
    const r = await s.refused('{"jsonrpc": "2.0", "id": 2, "method": "ping"', -32700);
    assert.match(r.error?.message ?? '', /parse error: the line is not JSON/);
    await ping(2);
  });

  it('answers an empty batch, a batch and a non-object with -32600', async () => {
    const empty = await s.refused('[]', -32600);
    assert.match(empty.error?.message ?? '', /empty batch/);
    s.write('[{"jsonrpc": "2.0", "id": 3, "method": "ping"}, 42]');
    const batch = await s.reply<Reply[]>((x) => Array.isArray(x));
    assert.deepEqual(
      batch.map((e) => [e.id, e.error?.code]),
      [
        [3, -32600],
        [null, -32600],
      ],
    );
    assert.match(batch[0]?.error?.message ?? '', /batches are not supported/);
    await s.refused('"ping"', -32600);
    await ping(4);
  });

  it('answers "jsonrpc": "1.0" with -32600 under the request id', async () => {
    const r = await s.refused('{"jsonrpc": "1.0", "id": 5, "method": "ping"}', -32600, 5);
    assert.match(r.error?.message ?? '', /"jsonrpc" must be "2\.0"/);
    await ping(6);
  });

  it('answers arguments sent as a string with a readable -32602 naming params.arguments', async () => {
    const secret = 'argument-text-marker-0123';
    const r = await s.refused(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'save_memory', arguments: JSON.stringify({ content: secret }) },
      }),
      -32602,
      7,
    );
    const message = r.error?.message ?? '';
    assert.match(message, /params\.arguments must be an object/);
    assert.match(message, /not JSON text in a string/);
    assert.ok(!message.includes('"expected"') && !message.includes('invalid_type'), message);
    assert.ok(!message.includes(secret), 'the input is not echoed');
    await ping(8);
  });

  it('refuses a message over 10 MiB with an error (id null), and reads the next ones', async () => {
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'save_memory', arguments: { content: 'x'.repeat(10 * 1024 * 1024) } },
    });
    const r = await s.refused(huge, -32600);
    assert.match(r.error?.message ?? '', /over the 10485760-byte limit/);
    await ping(10);
    s.write(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 11,
        method: 'tools/call',
        params: { name: 'save_memory', arguments: { content: 'saved after the big one' } },
      }),
    );
    const saved = await s.reply((x) => x.id === 11);
    assert.equal((saved.result as { isError?: boolean }).isError, undefined);
    assert.ok(!r.error?.message.includes('xxxx'));
  });

  it('refuses a "__proto__" key in meta as it came over the wire, by name', async () => {
    s.write(
      '{"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": {"name": "save_memory", ' +
        '"arguments": {"content": "proto over the wire", "meta": {"__proto__": {"x": 1}}}}}',
    );
    const r = await s.reply((x) => x.id === 12);
    const result = r.result as { isError?: boolean; content: { text: string }[] };
    assert.equal(result.isError, true);
    assert.match(result.content[0]?.text ?? '', /meta has a key named "__proto__"/);
  });

  it('kept stdout to protocol JSON, logged one stderr line per refusal, and is still up', async () => {
    for (const line of s.stdoutLines) {
      const value = JSON.parse(line) as Reply | Reply[];
      for (const m of Array.isArray(value) ? value : [value]) assert.equal(m.jsonrpc, '2.0');
    }
    const refusals = s.stderr
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: number; msg: string })
      .filter((l) => /refused a message/.test(l.msg));
    assert.equal(refusals.length, 7, s.stderr);
    assert.ok(refusals.every((l) => l.level === 40));
    assert.ok(!s.stderr.includes('argument-text-marker'), 'no payload in the log');
    assert.equal(s.child.exitCode, null, 'still running');
  });
});
