import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import pino from 'pino';
import { ProcessGroupStdioTransport } from '../../src/gateway/process-group-stdio.js';
import { Upstream } from '../../src/gateway/upstream.js';

/** A child that writes what `script` writes, then waits on stdin (so only close() ends it). */
const node = (script: string) => ['-e', `${script}; process.stdin.resume()`];

describe('a hostile stdio upstream', () => {
  it('a line past the cap closes the transport with an error, and the process goes on', async () => {
    const transport = new ProcessGroupStdioTransport({
      command: process.execPath,
      // Past the 10 MB cap, without a line end: the SDK's ReadBuffer threw from the 'data' event.
      args: node('process.stdout.write("x".repeat(11 * 1024 * 1024))'),
      graceMs: 200,
    });
    const errors: Error[] = [];
    transport.onerror = (error) => errors.push(error);
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
    });
    await transport.start();
    await closed;
    assert.equal(errors.length, 1);
    assert.match(errors[0]?.message ?? '', /over the 10485760-byte limit: closing it/);
  });

  it('messages split across chunks still arrive whole', async () => {
    const message = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/x', params: {} });
    const transport = new ProcessGroupStdioTransport({
      command: process.execPath,
      args: node(
        `process.stdout.write(${JSON.stringify(message.slice(0, 10))}); setTimeout(() => process.stdout.write(${JSON.stringify(`${message.slice(10)}\n\n${message}\r\n`)}), 20)`,
      ),
      graceMs: 200,
    });
    const got: unknown[] = [];
    const both = new Promise<void>((resolve) => {
      transport.onmessage = (m) => {
        got.push(m);
        if (got.length === 2) resolve();
      };
    });
    await transport.start();
    await both;
    await transport.close();
    assert.deepEqual(got, [JSON.parse(message), JSON.parse(message)]);
  });

  it('a long stderr line is logged cut to 4 KB, with its length', async () => {
    const logged: { stderr?: string; bytes?: number }[] = [];
    let short: () => void = () => {};
    const shortLogged = new Promise<void>((resolve) => {
      short = resolve;
    });
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        const line = JSON.parse(chunk.toString()) as { stderr?: string; bytes?: number };
        logged.push(line);
        if (line.stderr === 'short') short();
        done();
      },
    });
    const upstream = new Upstream({
      label: 'noisy',
      spec: {
        command: process.execPath,
        args: ['-e', 'process.stderr.write("y".repeat(1024 * 1024) + "\\nshort\\n")'],
      },
      logger: pino(sink),
      backoff: { initialMs: 60_000, maxMs: 60_000 },
      startTimeoutMs: 10_000,
    });
    upstream.start();
    await shortLogged;
    await upstream.close();
    const lines = logged.filter((l) => l.stderr !== undefined);
    assert.deepEqual(
      lines.map((l) => [l.stderr?.length, l.bytes]),
      [
        [4096, 1024 * 1024],
        [5, undefined],
      ],
    );
  });
});
