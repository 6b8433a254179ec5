import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Channel } from '../../src/gateway/channel.js';
import { realTimers } from '../../src/gateway/timers.js';

/**
 * The SDK's streamable HTTP transport over a fetch that answers every request at once and
 * keeps the signal each was given.
 */
function recordingTransport() {
  const signals: AbortSignal[] = [];
  const answering: typeof fetch = async (_url, init) => {
    const message = JSON.parse(String(init?.body)) as { id?: string };
    if (init?.signal) signals.push(init.signal);
    if (message.id === undefined) return new Response(null, { status: 202 });
    return new Response(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} }), {
      headers: { 'content-type': 'application/json' },
    });
  };
  const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1:9/mcp'), {
    fetch: answering,
  });
  return { transport, signals };
}

function channelOver(transport: StreamableHTTPClientTransport, cancelByAbort: boolean): Channel {
  const channel = new Channel(transport, {
    label: 'upstream',
    timers: realTimers,
    timeoutMs: 60_000,
    cancelByAbort,
  });
  transport.onmessage = (message) => void channel.claim(message);
  return channel;
}

describe('Channel', () => {
  it('gives each call its own signal, so no listener piles up on the connection (HTTP, every era)', async () => {
    for (const cancelByAbort of [false, true]) {
      const { transport, signals } = recordingTransport();
      await transport.start();
      const channel = channelOver(transport, cancelByAbort);
      for (let i = 0; i < 20; i++) {
        const answer = await channel.call('tools/call', { name: 'x', arguments: {} }).answer;
        assert.deepEqual(answer, { result: {} });
      }
      assert.equal(signals.length, 20);
      assert.equal(new Set(signals).size, 20, 'a fetch signal of its own for every call');
      await transport.close();
    }
  });

  it('cancels by notification where it does not cancel by abort, leaving the request be', async () => {
    const { transport, signals } = recordingTransport();
    await transport.start();
    // No answer to the call: it stays pending until cancelled.
    const sent: { method?: string }[] = [];
    const send = transport.send.bind(transport);
    transport.send = async (message, options) => {
      sent.push(message as { method?: string });
      if ((message as { method?: string }).method === 'tools/call') {
        if (options?.requestSignal) signals.push(options.requestSignal);
        return;
      }
      return send(message, options);
    };
    const channel = channelOver(transport, false);
    const call = channel.call('tools/call', { name: 'x', arguments: {} });
    call.cancel('the caller went away');
    await assert.rejects(call.answer);
    assert.equal(signals[0]?.aborted, false, 'the request itself is not aborted');
    assert.deepEqual(
      sent.map((m) => m.method),
      ['tools/call', 'notifications/cancelled'],
    );
    await transport.close();
  });
});
