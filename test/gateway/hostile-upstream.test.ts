import assert from 'node:assert/strict';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { ProcessGroupStdioTransport } from '../../src/gateway/process-group-stdio.js';
import { createGateway } from '../../src/gateway/proxy.js';
import { Upstream } from '../../src/gateway/upstream.js';
import { createHttpApp } from '../../src/transport/http.js';
import { listen } from '../../src/transport/listen.js';
import { turnCounter } from '../turns.js';
import { handUpstream } from './fake-handshake.js';

const HOSTILE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  'fixtures',
  'hostile-upstream.mjs',
);

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

  it('a flood of short lines that are no messages is handled a little at a time: other work gets a turn between slices', async () => {
    const lines = 60_000;
    // A clock that moves 1 ms each time it is read: a turn of 10 ms is ~10 lines, on any machine.
    let ms = 0;
    const transport = new ProcessGroupStdioTransport({
      command: process.execPath,
      args: node(`process.stdout.write("{}\\n".repeat(${lines}))`),
      graceMs: 200,
      now: () => ms++,
    });
    const turns = turnCounter();
    let errors = 0;
    let done: () => void = () => {};
    const all = new Promise<void>((resolve) => {
      done = resolve;
    });
    transport.onerror = () => {
      turns.record();
      if (++errors === lines) done();
    };
    await transport.start();
    await all;
    turns.stop();
    await transport.close();
    // A 64 KB chunk of the pipe is ~21,800 lines: handled whole, they held the loop ~400 ms. A
    // slice is 10 lines by this clock, and at most two share a turn (the last of one chunk, the
    // first of the next).
    assert.ok(turns.most() <= 20, `${turns.most()} lines handled in one turn of the event loop`);
    assert.ok(turns.busyTurns() >= lines / 20, `${turns.busyTurns()} turns`);
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

describe('a hostile upstream behind /mcp/<label>', () => {
  it('an answer nested too deep is an error naming the upstream, an error message is cut, data too deep dropped; the next call is served', async (t) => {
    const gateway = createGateway({
      servers: { h: { command: process.execPath, args: [HOSTILE] } },
      logger: pino({ level: 'silent' }),
    });
    const app = createHttpApp({
      createMcpServer: () => assert.fail('no memory calls here'),
      allowedHosts: [],
      bodyLimit: '1mb',
      logger: pino({ level: 'silent' }),
      health: () => ({}),
      gateway,
    });
    const server = await listen(app, '127.0.0.1', 0);
    t.after(async () => {
      await server.close(0);
      await gateway.close();
    });
    await gateway.upstream('h')?.whenReady(10_000);
    const call = async (name: string) => {
      const res = await fetch(`${server.url}/mcp/h`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name } }),
        signal: AbortSignal.timeout(10_000),
      });
      return (await res.json()) as {
        result?: unknown;
        error?: { message: string; data?: unknown };
      };
    };
    const deep = await call('deep');
    assert.match(deep.error?.message ?? '', /upstream "h": its answer nests .* more than 256 deep/);
    const deepError = await call('deep_error');
    assert.match(deepError.error?.message ?? '', /upstream "h": deep$/);
    assert.equal(deepError.error?.data, undefined);
    const huge = await call('huge_error');
    assert.ok((huge.error?.message.length ?? 0) < 2_200, 'cut to its first 2,000 characters');
    assert.match(
      huge.error?.message ?? '',
      /upstream "h": failed: x+\.\.\. \(5000008 characters in all\)$/,
    );
    assert.deepEqual((await call('ok')).result, { content: [{ type: 'text', text: 'ok' }] });
  });
});

describe('a hostile HTTP upstream', () => {
  it('an answer past 10 MB is an error naming the upstream, not read whole; the next call is served', async (t) => {
    // Stateless MCP over HTTP by hand: tools/call answers 11 MB of JSON, or an event that long.
    const big = (id: unknown) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        result: { content: [{ type: 'text', text: 'x'.repeat(11 * 1024 * 1024) }] },
      });
    const upstream = handUpstream('big', ({ id, method, params, res, json }) => {
      if (method !== 'tools/call') return false;
      if (params?.name === 'big') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(big(id));
      } else if (params?.name === 'big_event') {
        res
          .writeHead(200, { 'content-type': 'text/event-stream' })
          .end(`event: message\ndata: ${big(id)}\n\n`);
      } else {
        json({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'ok' }] } });
      }
      return true;
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const port = (upstream.address() as { port: number }).port;
    const gateway = createGateway({
      servers: { big: { url: `http://127.0.0.1:${port}/mcp` } },
      logger: pino({ level: 'silent' }),
      backoff: { initialMs: 20, maxMs: 200 },
    });
    t.after(async () => {
      await gateway.close();
      upstream.closeAllConnections();
      await new Promise((resolve) => upstream.close(resolve));
    });
    await gateway.upstream('big')?.whenReady(10_000);
    const call = (name: string) => {
      const upstream = gateway.upstream('big');
      assert.ok(upstream);
      return upstream.call('tools/call', { name }).answer;
    };
    await assert.rejects(call('big'), /more than 10485760 bytes in one message/);
    const restarted = async (times: number) => {
      const upstream = gateway.upstream('big');
      while (upstream?.state !== 'ready' || upstream.health().restarts < times) {
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    await restarted(1);
    // The answer was in an event: the upstream is closed, so the call ends now, not at its timeout.
    await assert.rejects(call('big_event'), /closed its connection before answering/);
    await restarted(2);
    assert.deepEqual(await call('ok'), { result: { content: [{ type: 'text', text: 'ok' }] } });
  });
});

/**
 * The flood's events: enough for chunks of the response of thousands each (what a read handed on
 * whole would give one turn), and hundreds of slices.
 */
const FLOOD_EVENTS = 12_000;

describe('a flood of SSE events that are no messages', () => {
  it('is handed to the SDK a slice at a time, other work getting turns between, and the answer after it arrives', async (t) => {
    const upstream = handUpstream('flood', ({ id, method, res }) => {
      if (method !== 'tools/call') return false;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {}\n\n'.repeat(FLOOD_EVENTS));
      res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result: { content: [] } })}\n\n`);
      return true;
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const port = (upstream.address() as { port: number }).port;
    // Each event the SDK cannot read as a message is logged as a transport error, as it is read.
    const turns = turnCounter();
    const logger = pino(
      { level: 'debug' },
      {
        write(line: string) {
          if (line.includes('upstream transport error')) turns.record();
        },
      },
    );
    const gateway = createGateway({
      servers: { flood: { url: `http://127.0.0.1:${port}/mcp` } },
      logger,
    });
    t.after(async () => {
      turns.stop();
      await gateway.close();
      upstream.closeAllConnections();
      await new Promise((resolve) => upstream.close(resolve));
    });
    await gateway.upstream('flood')?.whenReady(10_000);
    const answer = await gateway.upstream('flood')?.call('tools/call', { name: 'x' }).answer;
    turns.stop();
    assert.deepEqual(answer, { result: { content: [] } });
    // A slice is 1 KB, up to 103 of these 10-byte events, and at most two share a turn (the last
    // of one chunk, the first of the next). Handed on as read, a chunk was thousands in one turn.
    assert.ok(turns.most() <= 2 * 103, `${turns.most()} events read in one turn of the event loop`);
    assert.ok(turns.busyTurns() >= FLOOD_EVENTS / (2 * 103), `${turns.busyTurns()} turns`);
  });
});
