import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkLine } from '../../src/transport/jsonrpc.js';

describe('checkLine: batches', () => {
  it('answers a small batch an error per message, each with its id', () => {
    const checked = checkLine(
      JSON.stringify([1, 2].map((id) => ({ jsonrpc: '2.0', id, method: 'ping' }))),
    );
    assert.ok('reply' in checked && Array.isArray(checked.reply));
    assert.deepEqual(
      checked.reply.map((r) => [r.id, r.error.code]),
      [
        [1, -32600],
        [2, -32600],
      ],
    );
  });

  it('answers a batch of a million messages with one error, in well under 200 ms', () => {
    const line = `[${'0,'.repeat(1_000_000)}0]`;
    const started = performance.now();
    const checked = checkLine(line);
    const reply = 'reply' in checked ? JSON.stringify(checked.reply) : '';
    const ms = performance.now() - started;
    assert.ok('reply' in checked && !Array.isArray(checked.reply), 'one answer, not one a message');
    assert.match(reply, /-32600.*batches are not supported/);
    assert.ok(reply.length < 1_000, `the answer is short (${reply.length} characters)`);
    assert.ok(ms < 200, `took ${ms} ms`);
  });
});
