// listen()'s close(): it stops accepting and lets the answers under way end, and closes each of
// their connections as its answer ends, instead of keeping it alive for its client until the
// drain runs out (a `mnemo serve` stopped under load waited seconds for its clients' idle sockets).
import assert from 'node:assert/strict';
import http from 'node:http';
import { it } from 'node:test';
import express from 'express';
import { listen } from '../../src/transport/listen.js';

it('close(): a kept-alive connection whose answer ends after close began is closed then, the drain not waited out', {
  // A hang (the connection kept alive, close() waiting for it) fails instead of stalling the run.
  timeout: 60_000,
}, async () => {
  let answer = () => {};
  const answered = new Promise<void>((resolve) => {
    answer = resolve;
  });
  let arrived = () => {};
  const inFlight = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const app = express();
  app.get('/slow', async (_req, res) => {
    arrived();
    await answered;
    res.json({ ok: true });
  });
  const s = await listen(app, '127.0.0.1', 0);
  // Neither side would end the idle connection by itself for longer than the test may take.
  s.server.keepAliveTimeout = 600_000;
  const agent = new http.Agent({ keepAlive: true });
  try {
    const response = new Promise<{ status?: number; connection?: string; body: string }>(
      (resolve, reject) => {
        http
          .get(`${s.url}/slow`, { agent }, (res) => {
            let body = '';
            res.on('data', (d: Buffer) => {
              body += d.toString();
            });
            res.on('end', () =>
              resolve({ status: res.statusCode, connection: res.headers.connection, body }),
            );
          })
          .on('error', reject);
      },
    );
    await inFlight;
    const closed = s.close(600_000);
    answer();
    const got = await response;
    assert.equal(got.status, 200);
    assert.deepEqual(JSON.parse(got.body), { ok: true });
    assert.equal(got.connection, 'close', 'answered with Connection: close');
    await closed;
  } finally {
    agent.destroy();
  }
});
