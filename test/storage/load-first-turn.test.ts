// The store's load waits for the loop to poll once: what a client sent before the start (the MCP
// handshake on stdin) is read before a restore that holds the thread for seconds at a million.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import { describe, it } from 'node:test';
import pino from 'pino';
import { LogSidecar } from '../../src/storage/jsonl/log-sidecar.js';
import { JsonlStore } from '../../src/storage/jsonl/store.js';
import { testDir } from '../support.js';

describe('the load of a data dir', () => {
  it('begins only after the loop has read what waits on a socket, though started in the poll phase', async (t) => {
    const dir = testDir(t);
    const order: string[] = [];
    const restore = LogSidecar.prototype.restore;
    LogSidecar.prototype.restore = function (this: LogSidecar) {
      order.push('load');
      return restore.call(this);
    };
    t.after(() => {
      LogSidecar.prototype.restore = restore;
    });
    // A socket with bytes waiting, not read until resumed (as stdin is until the server wires it).
    const server = net.createServer({ pauseOnConnect: true });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as net.AddressInfo;
    const client = net.connect(port, '127.0.0.1');
    const [socket] = (await once(server, 'connection')) as [net.Socket];
    await new Promise<void>((resolve) =>
      client.write('{"method":"initialize"}\n', () => resolve()),
    );
    t.after(() => {
      client.destroy();
      socket.destroy();
      server.close();
    });
    socket.on('data', () => order.push('data'));
    // Started from an I/O callback, as a start whose last step read a file is: the check phase
    // (the first immediate) comes before the next poll.
    const store = await new Promise<JsonlStore>((resolve) => {
      fs.stat(dir, () => {
        const started = JsonlStore.start({
          dataDir: dir,
          logger: pino({ level: 'silent' }),
          clock: () => 1_767_225_600,
        });
        socket.resume();
        resolve(started);
      });
    });
    await store.loaded;
    await store.close();
    assert.deepEqual(order, ['data', 'load']);
  });
});
